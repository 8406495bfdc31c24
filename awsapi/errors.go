package awsapi

import (
	"net/http"

	"github.com/heraldmq/herald/sqs"
)

// Errors the edge itself raises, before any service sees a request. They
// are *sqs.Error values because SQS is the default shape; a QueryService
// recognises them by Code.
const (
	CodeSerialization          = "SerializationException"
	CodeMissingAction          = "MissingAction"
	CodeMalformedQueryString   = "MalformedQueryString"
	CodeRequestEntityTooLarge  = "RequestEntityTooLarge"
	CodeUnsupportedContentType = "UnsupportedMediaType"
)

// coralErrors are the codes AWS JSON services report from their common
// request layer, under the com.amazon.coral.service namespace rather than
// the service's own.
var coralErrors = map[string]bool{CodeSerialization: true}

// errSerialization reports a JSON body that is not the shape an action
// expects: not an object, a member of the wrong type, bad base64.
func errSerialization(format string, args ...any) *sqs.Error {
	return sqs.NewError(CodeSerialization, format, args...)
}

func errMissingAction() *sqs.Error {
	return sqs.NewError(CodeMissingAction, "The request must contain the parameter Action.")
}

func errMalformedQuery(cause error) *sqs.Error {
	return sqs.NewError(CodeMalformedQueryString, "The query string is malformed: %v", cause)
}

func errRepeatedParameter(name string) *sqs.Error {
	return sqs.NewError(CodeMalformedQueryString, "The parameter %s appears more than once.", name)
}

func errUnsupportedContentType(ct string) *sqs.Error {
	e := sqs.NewError(CodeUnsupportedContentType, "Content type %q is not supported; use %s.", ct, formContentType)
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
