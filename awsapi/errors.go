package awsapi

import (
	"net/http"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/awsauth"
	"github.com/heraldmq/herald/sqs"
)

// Errors the edge itself raises, before any service sees a request. They
// are *sqs.Error values because SQS is the default shape; a QueryService
// recognises them by Code.
const (
	CodeSerialization          = "SerializationException"
	CodeMalformedQueryString   = "MalformedQueryString"
	CodeRequestEntityTooLarge  = "RequestEntityTooLarge"
	CodeUnsupportedContentType = "UnsupportedMediaType"
)

// Messages of the edge's errors repeat client input only through
// herald.Clip, and the error writers bound every message with
// herald.ClipMessage, so that a huge request never gets a huge answer.

// errSerialization reports a JSON body that is not the shape an action
// expects: not an object, a member of the wrong type, bad base64.
// AWS JSON services report it from their common request layer, under the
// com.amazon.coral.service namespace rather than the service's own.
func errSerialization(format string, args ...any) *sqs.Error {
	e := sqs.NewError(CodeSerialization, format, args...)
	e.Type = "com.amazon.coral.service#" + CodeSerialization
	return e
}

// errMissingAction answers a Query request without an Action as AWS
// does: 404 UnknownOperationException, the request naming no operation.
func errMissingAction() *sqs.Error {
	e := sqs.NewError(sqs.CodeUnknownOperation, "The request must contain the parameter Action.")
	e.Status, e.QueryCode = http.StatusNotFound, sqs.CodeUnknownOperation
	return e
}

func errMalformedQuery(cause error) *sqs.Error {
	return sqs.NewError(CodeMalformedQueryString, "The query string is malformed: %s", herald.Clip(cause.Error()))
}

func errRepeatedParameter(name string) *sqs.Error {
	return sqs.NewError(CodeMalformedQueryString, "The parameter %s appears more than once.", herald.Clip(name))
}

func errUnsupportedContentType(ct string) *sqs.Error {
	e := sqs.NewError(CodeUnsupportedContentType, "Content type %q is not supported; use %s.", herald.Clip(ct), formContentType)
	e.Status = http.StatusUnsupportedMediaType
	return e
}

func errBodyTooLarge(limit int64) *sqs.Error {
	e := sqs.NewError(CodeRequestEntityTooLarge, "The request body is larger than %d bytes.", limit)
	e.Status = http.StatusRequestEntityTooLarge
	return e
}

func errUnreadableBody(cause error) *sqs.Error {
	e := sqs.NewError(sqs.CodeInvalidParameterValue, "The request body cannot be read.")
	e.Err = cause
	return e
}

// errInvalidRegion refuses a signature whose credential scope names a
// region the edge does not serve (Config.Regions), in AWS's words. Being
// an *awsauth.Error, it is rendered like any other signature failure.
func errInvalidRegion() *awsauth.Error {
	return &awsauth.Error{Code: awsauth.CodeSignatureDoesNotMatch, Status: http.StatusForbidden,
		Message: "Credential should be scoped to a valid region. "}
}
