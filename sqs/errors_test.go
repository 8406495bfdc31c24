package sqs

import (
	"errors"
	"fmt"
	"testing"

	"github.com/heraldmq/herald"
)

// wantCode fails unless err is an *Error with code want ("" means nil).
func wantCode(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want *sqs.Error with code %s", err, want)
	}
	if e.Code != want {
		t.Fatalf("code = %s (%s), want %s", e.Code, e.Message, want)
	}
}

func TestErrorSpecs(t *testing.T) {
	tests := []struct {
		code, query string
		status      int
		sender      bool
	}{
		{CodeQueueDoesNotExist, "AWS.SimpleQueueService.NonExistentQueue", 400, true},
		{CodeQueueNameExists, "QueueAlreadyExists", 400, true},
		{CodeQueueDeletedRecently, "AWS.SimpleQueueService.QueueDeletedRecently", 400, true},
		{CodeInvalidAttributeName, "InvalidAttributeName", 400, true},
		{CodeInvalidAttributeValue, "InvalidAttributeValue", 400, true},
		{CodeInvalidParameterValue, "InvalidParameterValue", 400, true},
		{CodeMissingParameter, "MissingParameter", 400, true},
		{CodeInvalidAction, "InvalidAction", 400, true},
		{CodeInvalidMessageContents, "InvalidMessageContents", 400, true},
		{CodeReceiptHandleIsInvalid, "ReceiptHandleIsInvalid", 404, true},
		{CodeMessageNotInflight, "AWS.SimpleQueueService.MessageNotInflight", 400, true},
		{CodePurgeQueueInProgress, "AWS.SimpleQueueService.PurgeQueueInProgress", 403, true},
		{CodeTooManyEntriesInBatchRequest, "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400, true},
		{CodeEmptyBatchRequest, "AWS.SimpleQueueService.EmptyBatchRequest", 400, true},
		{CodeBatchEntryIdsNotDistinct, "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400, true},
		{CodeInvalidBatchEntryID, "AWS.SimpleQueueService.InvalidBatchEntryId", 400, true},
		{CodeBatchRequestTooLong, "AWS.SimpleQueueService.BatchRequestTooLong", 400, true},
		{CodeOverLimit, "OverLimit", 403, true},
		{CodeRequestThrottled, "RequestThrottled", 403, true},
		{CodeUnsupportedOperation, "AWS.SimpleQueueService.UnsupportedOperation", 400, true},
		{CodeInvalidAddress, "InvalidAddress", 404, true},
		{CodeInvalidSecurity, "InvalidSecurity", 403, true},
		{CodeResourceNotFound, "ResourceNotFoundException", 404, true},
		{CodeInvalidClientTokenID, "InvalidClientTokenId", 403, true},
		{CodeSignatureDoesNotMatch, "SignatureDoesNotMatch", 403, true},
		{CodeIncompleteSignature, "IncompleteSignature", 400, true},
		{CodeRequestExpired, "RequestExpired", 400, true},
		{CodeMissingAuthenticationToken, "MissingAuthenticationToken", 403, true},
		{CodeAccessDenied, "AccessDenied", 403, true},
		{CodeInternalFailure, "InternalFailure", 500, false},
		{CodeServiceUnavailable, "ServiceUnavailable", 503, false},
		{"SomethingNew", "SomethingNew", 400, true},
	}
	for _, tt := range tests {
		e := NewError(tt.code, "m %d", 1)
		if e.Code != tt.code || e.QueryCode != tt.query || e.Status != tt.status || e.Sender != tt.sender || e.Message != "m 1" {
			t.Errorf("NewError(%s) = %+v, want query %s status %d sender %v", tt.code, e, tt.query, tt.status, tt.sender)
		}
	}
}

func TestErrorRendering(t *testing.T) {
	e := ErrQueueDoesNotExist()
	if got := e.JSONType(); got != "com.amazonaws.sqs#QueueDoesNotExist" {
		t.Errorf("JSONType = %s", got)
	}
	if got := e.QueryErrorHeader(); got != "AWS.SimpleQueueService.NonExistentQueue;Sender" {
		t.Errorf("QueryErrorHeader = %s", got)
	}
	if got := ErrInternal(nil).QueryErrorHeader(); got != "InternalFailure;Receiver" {
		t.Errorf("QueryErrorHeader = %s", got)
	}
	if e.Message != "The specified queue does not exist." || e.QueryText() != "The specified queue does not exist for this wsdl version." {
		t.Errorf("messages = %q (JSON), %q (Query)", e.Message, e.QueryText())
	}
	if got := ErrInternal(nil).QueryText(); got != ErrInternal(nil).Message {
		t.Errorf("QueryText without a Query wording = %q", got)
	}
}

// TestJSONTypes: "__type" is AWS's JSON shape name, which differs from the
// code for the errors SQS's model does not declare.
func TestJSONTypes(t *testing.T) {
	tests := []struct{ code, want string }{
		{CodeQueueDoesNotExist, "com.amazonaws.sqs#QueueDoesNotExist"},
		{CodeInvalidAttributeValue, "com.amazonaws.sqs#InvalidAttributeValue"},
		{CodeInvalidParameterValue, "com.amazonaws.sqs#InvalidParameterValueException"},
		{CodeMissingParameter, "com.amazonaws.sqs#MissingRequiredParameterException"},
		{CodeUnknownOperation, "com.amazon.coral.service#UnknownOperationException"},
		{CodeAccessDenied, "com.amazon.coral.service#AccessDeniedException"},
		{CodeInvalidClientTokenID, "com.amazon.coral.service#UnrecognizedClientException"},
		{CodeSignatureDoesNotMatch, "com.amazon.coral.service#InvalidSignatureException"},
		{CodeIncompleteSignature, "com.amazon.coral.service#IncompleteSignatureException"},
		{CodeMissingAuthenticationToken, "com.amazon.coral.service#MissingAuthenticationTokenException"},
		{CodeInternalFailure, "com.amazon.coral.service#InternalFailure"},
		{CodeServiceUnavailable, "com.amazon.coral.service#ServiceUnavailableException"},
		{"SomethingNew", "com.amazonaws.sqs#SomethingNew"},
	}
	for _, tt := range tests {
		if got := NewError(tt.code, "m").JSONType(); got != tt.want {
			t.Errorf("JSONType(%s) = %s, want %s", tt.code, got, tt.want)
		}
	}
	if got := ErrUnknownOperation("X").QueryCode; got != CodeInvalidAction {
		t.Errorf("UnknownOperation's Query code = %s, want InvalidAction", got)
	}
}

func TestAsError(t *testing.T) {
	cause := errors.New("disk gone")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"sqs error", fmt.Errorf("wrapped: %w", ErrReceiptHandleIsInvalid("x")), CodeReceiptHandleIsInvalid},
		{"invalid", herald.Errorf(herald.EInvalid, "bad"), CodeInvalidParameterValue},
		{"too large", herald.Errorf(herald.ETooLarge, "big"), CodeInvalidParameterValue},
		{"not found", herald.Errorf(herald.ENotFound, "gone"), CodeQueueDoesNotExist},
		{"unavailable", herald.Unavailable("put", cause), CodeServiceUnavailable},
		{"internal", herald.Errorf(herald.EInternal, "bug"), CodeInternalFailure},
		{"plain", cause, CodeInternalFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AsError(tt.err)
			if tt.want == "" {
				if got != nil {
					t.Fatalf("AsError(nil) = %v", got)
				}
				return
			}
			wantCode(t, got, tt.want)
		})
	}
	if e := AsError(cause); e.Message == cause.Error() || !errors.Is(e, cause) {
		t.Errorf("internal error must hide and wrap its cause: %+v", e)
	}
}
