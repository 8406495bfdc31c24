package sqs

import (
	"context"
	"errors"
	"fmt"

	"github.com/heraldmq/herald"
)

// AWS error codes as the JSON 1.0 protocol names them (the short form of the
// "__type" field). Their HTTP statuses and legacy Query codes are in the
// table behind NewError.
const (
	CodeQueueDoesNotExist            = "QueueDoesNotExist"
	CodeQueueNameExists              = "QueueNameExists"
	CodeQueueDeletedRecently         = "QueueDeletedRecently"
	CodeInvalidAttributeName         = "InvalidAttributeName"
	CodeInvalidAttributeValue        = "InvalidAttributeValue"
	CodeInvalidParameterValue        = "InvalidParameterValue"
	CodeMissingParameter             = "MissingParameter"
	CodeInvalidAction                = "InvalidAction"
	CodeInvalidMessageContents       = "InvalidMessageContents"
	CodeReceiptHandleIsInvalid       = "ReceiptHandleIsInvalid"
	CodeMessageNotInflight           = "MessageNotInflight"
	CodePurgeQueueInProgress         = "PurgeQueueInProgress"
	CodeTooManyEntriesInBatchRequest = "TooManyEntriesInBatchRequest"
	CodeEmptyBatchRequest            = "EmptyBatchRequest"
	CodeBatchEntryIdsNotDistinct     = "BatchEntryIdsNotDistinct"
	CodeInvalidBatchEntryID          = "InvalidBatchEntryId"
	CodeBatchRequestTooLong          = "BatchRequestTooLong"
	CodeOverLimit                    = "OverLimit"
	CodeRequestThrottled             = "RequestThrottled"
	CodeUnsupportedOperation         = "UnsupportedOperation"
	CodeInvalidAddress               = "InvalidAddress"
	CodeInvalidSecurity              = "InvalidSecurity"
	CodeResourceNotFound             = "ResourceNotFoundException"

	// Errors common to AWS services (authentication, service health).
	CodeInvalidClientTokenID       = "InvalidClientTokenId"
	CodeSignatureDoesNotMatch      = "SignatureDoesNotMatch"
	CodeIncompleteSignature        = "IncompleteSignature"
	CodeRequestExpired             = "RequestExpired"
	CodeMissingAuthenticationToken = "MissingAuthenticationToken"
	CodeAccessDenied               = "AccessDenied"
	CodeInternalFailure            = "InternalFailure"
	CodeServiceUnavailable         = "ServiceUnavailable"
	// CodeUnknownOperation is a JSON request whose X-Amz-Target names
	// no action; the Query protocol's word for it is InvalidAction.
	CodeUnknownOperation = "UnknownOperationException"
)

// errorSpec is how AWS reports one error code.
type errorSpec struct {
	query  string // legacy Query code, also sent in x-amzn-query-error
	status int
	sender bool // the client is at fault ("Sender"), else "Receiver"
	// jsonType is the JSON protocol's "__type" where it is not
	// "com.amazonaws.sqs#" + the code: AWS's shape names for the errors
	// its service model does not declare, and the common request layer's
	// (coral) names for authentication and service failures.
	jsonType string
}

const (
	sqsShape   = "com.amazonaws.sqs#"
	coralShape = "com.amazon.coral.service#"
)

const legacyPrefix = "AWS.SimpleQueueService."

// errorSpecs: SQS-specific entries follow the SQS service model's
// awsQueryError traits; entries without that trait use the code itself and
// 400. Common errors follow AWS's "Common Errors" reference.
var errorSpecs = map[string]errorSpec{
	CodeQueueDoesNotExist:            {legacyPrefix + "NonExistentQueue", 400, true, ""},
	CodeQueueNameExists:              {"QueueAlreadyExists", 400, true, ""},
	CodeQueueDeletedRecently:         {legacyPrefix + "QueueDeletedRecently", 400, true, ""},
	CodeInvalidAttributeName:         {CodeInvalidAttributeName, 400, true, ""},
	CodeInvalidAttributeValue:        {CodeInvalidAttributeValue, 400, true, ""},
	CodeInvalidParameterValue:        {CodeInvalidParameterValue, 400, true, sqsShape + "InvalidParameterValueException"},
	CodeMissingParameter:             {CodeMissingParameter, 400, true, sqsShape + "MissingRequiredParameterException"},
	CodeInvalidAction:                {CodeInvalidAction, 400, true, ""},
	CodeInvalidMessageContents:       {CodeInvalidMessageContents, 400, true, ""},
	CodeReceiptHandleIsInvalid:       {CodeReceiptHandleIsInvalid, 404, true, ""},
	CodeMessageNotInflight:           {legacyPrefix + "MessageNotInflight", 400, true, ""},
	CodePurgeQueueInProgress:         {legacyPrefix + "PurgeQueueInProgress", 403, true, ""},
	CodeTooManyEntriesInBatchRequest: {legacyPrefix + "TooManyEntriesInBatchRequest", 400, true, ""},
	CodeEmptyBatchRequest:            {legacyPrefix + "EmptyBatchRequest", 400, true, ""},
	CodeBatchEntryIdsNotDistinct:     {legacyPrefix + "BatchEntryIdsNotDistinct", 400, true, ""},
	CodeInvalidBatchEntryID:          {legacyPrefix + "InvalidBatchEntryId", 400, true, ""},
	CodeBatchRequestTooLong:          {legacyPrefix + "BatchRequestTooLong", 400, true, ""},
	CodeOverLimit:                    {CodeOverLimit, 403, true, ""},
	CodeRequestThrottled:             {CodeRequestThrottled, 403, true, ""},
	CodeUnsupportedOperation:         {legacyPrefix + "UnsupportedOperation", 400, true, ""},
	CodeInvalidAddress:               {CodeInvalidAddress, 404, true, ""},
	CodeInvalidSecurity:              {CodeInvalidSecurity, 403, true, ""},
	CodeResourceNotFound:             {CodeResourceNotFound, 404, true, ""},

	CodeInvalidClientTokenID:       {CodeInvalidClientTokenID, 403, true, coralShape + "UnrecognizedClientException"},
	CodeSignatureDoesNotMatch:      {CodeSignatureDoesNotMatch, 403, true, coralShape + "InvalidSignatureException"},
	CodeIncompleteSignature:        {CodeIncompleteSignature, 400, true, coralShape + "IncompleteSignatureException"},
	CodeRequestExpired:             {CodeRequestExpired, 400, true, coralShape + "InvalidSignatureException"},
	CodeMissingAuthenticationToken: {CodeMissingAuthenticationToken, 403, true, coralShape + "MissingAuthenticationTokenException"},
	CodeAccessDenied:               {CodeAccessDenied, 403, true, coralShape + "AccessDeniedException"},
	CodeInternalFailure:            {CodeInternalFailure, 500, false, coralShape + "InternalFailure"},
	CodeServiceUnavailable:         {CodeServiceUnavailable, 503, false, coralShape + "ServiceUnavailableException"},
	CodeUnknownOperation:           {CodeInvalidAction, 400, true, coralShape + "UnknownOperationException"},
}

// Error is an error as SQS reports it. Protocol edges render it: JSON 1.0 as
// {"__type": JSONType(), "message": Message} plus the x-amzn-query-error
// header, the Query protocol as an <ErrorResponse> carrying QueryCode.
type Error struct {
	Code      string // JSON code, e.g. "QueueDoesNotExist"
	QueryCode string // legacy Query code, e.g. "AWS.SimpleQueueService.NonExistentQueue"
	Type      string // JSON "__type", e.g. "com.amazonaws.sqs#QueueDoesNotExist"
	Status    int    // HTTP status
	Sender    bool   // true when the client is at fault
	Message   string // client-facing text
	// QueryMessage, when set, is the text the Query protocol shows
	// instead of Message, where AWS's two protocols word an error apart.
	QueryMessage string
	Err          error // optional cause, never shown to clients
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// JSONType is the value of "__type" in a JSON 1.0 error body.
func (e *Error) JSONType() string {
	if e.Type != "" {
		return e.Type
	}
	return sqsShape + e.Code
}

// QueryText is the message a Query <ErrorResponse> carries.
func (e *Error) QueryText() string {
	if e.QueryMessage != "" {
		return e.QueryMessage
	}
	return e.Message
}

// Fault is "Sender" or "Receiver", as the Query protocol's <Type> says.
func (e *Error) Fault() string {
	if e.Sender {
		return "Sender"
	}
	return "Receiver"
}

// QueryErrorHeader is the value of the x-amzn-query-error response header,
// "<legacy code>;<Sender|Receiver>", which SDKs in Query-compatible mode use.
func (e *Error) QueryErrorHeader() string { return e.QueryCode + ";" + e.Fault() }

// NewError returns an *Error for one of the Code constants with a formatted
// message. An unknown code yields a 400 Sender error using the code as is.
func NewError(code, format string, args ...any) *Error {
	spec, ok := errorSpecs[code]
	if !ok {
		spec = errorSpec{query: code, status: 400, sender: true}
	}
	return &Error{Code: code, QueryCode: spec.query, Type: spec.jsonType, Status: spec.status, Sender: spec.sender, Message: fmt.Sprintf(format, args...)}
}

// Constructors for the errors the domain layer returns most.

// ErrQueueDoesNotExist reports that the addressed queue does not exist.
func ErrQueueDoesNotExist() *Error {
	e := NewError(CodeQueueDoesNotExist, "The specified queue does not exist.")
	e.QueryMessage = "The specified queue does not exist for this wsdl version."
	return e
}

// ErrQueueNameExists reports a CreateQueue for an existing name whose
// requested attributes differ; attribute names one that differs.
func ErrQueueNameExists(attribute string) *Error {
	return NewError(CodeQueueNameExists, "A queue already exists with the same name and a different value for attribute %s", attribute)
}

// ErrInvalidAttributeName reports an unknown or misplaced attribute name.
func ErrInvalidAttributeName(name string) *Error {
	return NewError(CodeInvalidAttributeName, "Unknown Attribute %s.", name)
}

// ErrInvalidAttributeValue reports a bad value for attribute name.
func ErrInvalidAttributeValue(name, reason string) *Error {
	if reason == "" {
		return NewError(CodeInvalidAttributeValue, "Invalid value for the parameter %s.", name)
	}
	return NewError(CodeInvalidAttributeValue, "Invalid value for the parameter %s. Reason: %s", name, reason)
}

// ErrInvalidParameterValue reports a bad request parameter.
func ErrInvalidParameterValue(format string, args ...any) *Error {
	return NewError(CodeInvalidParameterValue, format, args...)
}

// ErrMissingParameter reports a required parameter that is absent.
func ErrMissingParameter(name string) *Error {
	return NewError(CodeMissingParameter, "The request must contain the parameter %s.", name)
}

// ErrInvalidAction reports an unknown Query action.
func ErrInvalidAction(action string) *Error {
	return NewError(CodeInvalidAction, "The action or operation requested is invalid: %s", action)
}

// ErrUnknownOperation reports a JSON request whose X-Amz-Target names no
// SQS action.
func ErrUnknownOperation(target string) *Error {
	return NewError(CodeUnknownOperation, "The action or operation requested is invalid: %s", target)
}

// ErrReceiptHandleIsInvalid reports a receipt handle Herald did not issue.
func ErrReceiptHandleIsInvalid(handle string) *Error {
	return NewError(CodeReceiptHandleIsInvalid, "The input receipt handle %q is not a valid receipt handle.", herald.Clip(handle))
}

// ErrPurgeQueueInProgress reports a second PurgeQueue of the named queue
// within 60 seconds (AWS's message names the queue, not its URL).
func ErrPurgeQueueInProgress(queueName string) *Error {
	return NewError(CodePurgeQueueInProgress, "Only one PurgeQueue operation on %s is allowed every 60 seconds.", queueName)
}

// ErrQueueDeletedRecently reports a CreateQueue within 60s of a DeleteQueue.
func ErrQueueDeletedRecently() *Error {
	return NewError(CodeQueueDeletedRecently, "You must wait 60 seconds after deleting a queue before you can create another queue with the same name.")
}

// ErrUnsupportedOperation reports an action Herald does not implement.
func ErrUnsupportedOperation(action string) *Error {
	return NewError(CodeUnsupportedOperation, "%s is not supported.", action)
}

// ErrInternal reports a bug or unexpected failure; cause is never shown.
func ErrInternal(cause error) *Error {
	e := NewError(CodeInternalFailure, "The request processing has failed because of an unknown error, exception or failure.")
	e.Err = cause
	return e
}

// ErrServiceUnavailable reports that a backing store cannot be reached.
func ErrServiceUnavailable(cause error) *Error {
	e := NewError(CodeServiceUnavailable, "The request has failed due to a temporary failure of the server.")
	e.Err = cause
	return e
}

// AsError converts any error into an *Error: an *Error in err's chain is
// returned as is; a *herald.Error is mapped by its domain code (not_found
// becomes QueueDoesNotExist); anything else becomes InternalFailure. It
// returns nil for nil.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	var he *herald.Error
	if errors.As(err, &he) {
		var e *Error
		switch he.Code {
		case herald.EInvalid, herald.ETooLarge:
			e = NewError(CodeInvalidParameterValue, "%s", he.Message)
		case herald.ENotFound:
			e = ErrQueueDoesNotExist()
		case herald.EConflict:
			e = NewError(CodeInvalidParameterValue, "%s", he.Message)
		case herald.EUnavailable:
			return ErrServiceUnavailable(err)
		default:
			return ErrInternal(err)
		}
		e.Err = err
		return e
	}
	// A request abandoned by its client or cut off by a deadline is no
	// bug: report it as a temporary failure, never InternalFailure.
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ErrServiceUnavailable(err)
	}
	return ErrInternal(err)
}
