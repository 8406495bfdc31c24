package awsauth

import (
	"fmt"
	"net/http"
)

// Error codes returned by Verify, as named by AWS.
const (
	CodeMissingAuthenticationToken = "MissingAuthenticationToken"
	CodeIncompleteSignature        = "IncompleteSignature"
	CodeInvalidClientTokenID       = "InvalidClientTokenId"
	CodeSignatureDoesNotMatch      = "SignatureDoesNotMatch"
	CodeRequestExpired             = "RequestExpired"
)

// Error is an authentication failure. Code is the AWS error code, Status the
// HTTP status AWS answers with, Message a human-readable explanation that
// never contains secret material.
type Error struct {
	Code    string
	Message string
	Status  int
}

// Error implements the error interface.
func (e *Error) Error() string {
	return e.Code + ": " + e.Message
}

func errMissing() *Error {
	return &Error{
		Code:    CodeMissingAuthenticationToken,
		Message: "request is not signed: an AWS Signature Version 4 Authorization header or presigned query is required",
		Status:  http.StatusForbidden,
	}
}

func errIncomplete(format string, args ...any) *Error {
	return &Error{Code: CodeIncompleteSignature, Message: fmt.Sprintf(format, args...), Status: http.StatusBadRequest}
}

func errUnknownKey() *Error {
	return &Error{
		Code:    CodeInvalidClientTokenID,
		Message: "the access key ID in the request is not known to this server",
		Status:  http.StatusForbidden,
	}
}

func errMismatch(format string, args ...any) *Error {
	return &Error{Code: CodeSignatureDoesNotMatch, Message: fmt.Sprintf(format, args...), Status: http.StatusForbidden}
}

func errExpired(format string, args ...any) *Error {
	return &Error{Code: CodeRequestExpired, Message: fmt.Sprintf(format, args...), Status: http.StatusBadRequest}
}
