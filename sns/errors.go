package sns

import (
	"context"
	"errors"
	"fmt"

	"github.com/heraldmq/herald"
)

// AWS error codes of SNS, with the HTTP status AWS sends each with.
const (
	CodeNotFound                     = "NotFound"
	CodeInvalidParameter             = "InvalidParameter"
	CodeInvalidParameterValue        = "InvalidParameterValue"
	CodeAuthorizationError           = "AuthorizationError"
	CodeInternalError                = "InternalError"
	CodeThrottled                    = "Throttled"
	CodeTopicLimitExceeded           = "TopicLimitExceeded"
	CodeSubscriptionLimitExceeded    = "SubscriptionLimitExceeded"
	CodeFilterPolicyLimitExceeded    = "FilterPolicyLimitExceeded"
	CodeTagLimitExceeded             = "TagLimitExceeded"
	CodeTagPolicy                    = "TagPolicy"
	CodeResourceNotFound             = "ResourceNotFound"
	CodeConcurrentAccess             = "ConcurrentAccess"
	CodeInvalidSecurity              = "InvalidSecurity"
	CodeValidation                   = "ValidationException"
	CodeEmptyBatchRequest            = "EmptyBatchRequest"
	CodeTooManyEntriesInBatchRequest = "TooManyEntriesInBatchRequest"
	CodeBatchEntryIdsNotDistinct     = "BatchEntryIdsNotDistinct"
	CodeInvalidBatchEntryID          = "InvalidBatchEntryId"
	CodeBatchRequestTooLong          = "BatchRequestTooLong"
	CodeInvalidAction                = "InvalidAction"
	CodeMissingParameter             = "MissingParameter"
	CodeServiceUnavailable           = "ServiceUnavailable"

	// Errors common to AWS services (authentication).
	CodeInvalidClientTokenID       = "InvalidClientTokenId"
	CodeSignatureDoesNotMatch      = "SignatureDoesNotMatch"
	CodeIncompleteSignature        = "IncompleteSignature"
	CodeRequestExpired             = "RequestExpired"
	CodeMissingAuthenticationToken = "MissingAuthenticationToken"
)

var errorStatus = map[string]int{
	CodeNotFound:                   404,
	CodeResourceNotFound:           404,
	CodeAuthorizationError:         403,
	CodeTopicLimitExceeded:         403,
	CodeSubscriptionLimitExceeded:  403,
	CodeFilterPolicyLimitExceeded:  403,
	CodeInvalidSecurity:            403,
	CodeInternalError:              500,
	CodeThrottled:                  429,
	CodeServiceUnavailable:         503,
	CodeInvalidClientTokenID:       403,
	CodeSignatureDoesNotMatch:      403,
	CodeMissingAuthenticationToken: 403,
	CodeIncompleteSignature:        400,
	CodeRequestExpired:             400,
}

// Error is an error as SNS reports it; the Query edge renders it as an
// <ErrorResponse> with Type (Sender/Receiver), Code and Message.
type Error struct {
	Code    string
	Status  int
	Sender  bool
	Message string
	Err     error // optional cause, never shown to clients
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Fault is "Sender" or "Receiver".
func (e *Error) Fault() string {
	if e.Sender {
		return "Sender"
	}
	return "Receiver"
}

// NewError returns an *Error for code with a formatted message; codes not
// in the table are 400 Sender errors.
func NewError(code, format string, args ...any) *Error {
	status, ok := errorStatus[code]
	if !ok {
		status = 400
	}
	return &Error{Code: code, Status: status, Sender: status < 500, Message: fmt.Sprintf(format, args...)}
}

// ErrNotFound reports a missing topic, subscription or endpoint.
func ErrNotFound(what string) *Error { return NewError(CodeNotFound, "%s does not exist", what) }

// ErrInvalidParameter reports a bad parameter, as AWS words it.
func ErrInvalidParameter(format string, args ...any) *Error {
	return NewError(CodeInvalidParameter, "Invalid parameter: "+format, args...)
}

// AsError converts any error into an *Error: an *Error in err's chain is
// returned as is; *herald.Error and context errors are mapped by kind;
// anything else becomes InternalError. nil stays nil.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		e := NewError(CodeServiceUnavailable, "The request has failed due to a temporary failure of the server.")
		e.Err = err
		return e
	}
	var he *herald.Error
	if errors.As(err, &he) {
		var e *Error
		switch he.Code {
		case herald.EInvalid, herald.ETooLarge, herald.EConflict:
			e = ErrInvalidParameter("%s", he.Message)
		case herald.ENotFound:
			e = ErrNotFound("Resource")
		case herald.EUnavailable:
			e = NewError(CodeServiceUnavailable, "The request has failed due to a temporary failure of the server.")
		default:
			e = NewError(CodeInternalError, "The request processing has failed because of an unknown error, exception or failure.")
		}
		e.Err = err
		return e
	}
	e := NewError(CodeInternalError, "The request processing has failed because of an unknown error, exception or failure.")
	e.Err = err
	return e
}
