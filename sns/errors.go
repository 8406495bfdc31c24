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

// errARNElements is AWS's answer to an ARN param that has fewer than the
// six colon-separated elements of any ARN.
func errARNElements(param string, elements int) *Error {
	return ErrInvalidParameter("%s Reason: An ARN must have at least 6 elements, not %d", param, elements)
}

// errSubject refuses a Subject AWS does not take: empty, too long, or
// with characters other than printable ASCII.
func errSubject() *Error { return ErrInvalidParameter("Subject") }

// errFIFOQueueOnStandardTopic refuses a FIFO queue as the endpoint of a
// standard topic; AWS's message repeats its "Invalid parameter: " prefix.
func errFIFOQueueOnStandardTopic() *Error {
	return ErrInvalidParameter("Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics")
}

// errActionOutOfScope refuses an AddPermission ActionName that is not an
// action a topic policy can grant.
func errActionOutOfScope() *Error {
	return ErrInvalidParameter("Policy statement action out of service scope!")
}

// errStructureUnparsable and errStructureNoDefault refuse a
// MessageStructure=json message that is not a JSON object, or has no
// string "default" entry.
func errStructureUnparsable() *Error {
	return ErrInvalidParameter("Message Structure - JSON message body failed to parse")
}

func errStructureNoDefault() *Error {
	return ErrInvalidParameter("Message Structure - No default entry in JSON message body")
}

// errDataProtectionPolicy refuses a data protection policy that is not a
// JSON document.
func errDataProtectionPolicy() *Error {
	return ErrInvalidParameter("DataProtectionPolicy Reason: the policy is not a valid JSON document")
}

// The errors that fail a whole PublishBatch, worded as AWS's.
func errEmptyBatch() *Error {
	return NewError(CodeEmptyBatchRequest, "The batch request doesn't contain any entries.")
}

func errTooManyEntries() *Error {
	return NewError(CodeTooManyEntriesInBatchRequest, "The batch request contains more entries than permissible.")
}

func errInvalidBatchEntryID() *Error {
	return NewError(CodeInvalidBatchEntryID, "The Id of a batch entry in a batch request doesn't abide by the specification.")
}

func errBatchIDsNotDistinct() *Error {
	return NewError(CodeBatchEntryIdsNotDistinct, "Two or more batch entries in the request have the same Id.")
}

func errBatchTooLong() *Error {
	return NewError(CodeBatchRequestTooLong, "The length of all the messages put together is more than the limit.")
}
