package sqs_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
)

// These tests pin behaviour an SDK user sees on AWS where Herald once
// differed: codes and messages of common mistakes, and what is accepted.

// wantError checks err's code and that its message contains text.
func wantError(t *testing.T, err error, code, text string) {
	t.Helper()
	wantCode(t, err, code)
	if code == "" {
		return
	}
	var se *sqs.Error
	errors.As(err, &se)
	if !strings.Contains(se.Message, text) {
		t.Fatalf("message %q does not contain %q", se.Message, text)
	}
}

// Standard queues take a MessageGroupId ("fair queues"): it is accepted,
// validated like a FIFO one, returned as a system attribute, and does not
// make the queue hold back other messages of the group.
func TestStandardQueueTakesMessageGroupID(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "fair", nil)
	tests := []struct {
		name  string
		group string
		code  string
		text  string
	}{
		{"tenant group", "tenant-1", "", ""},
		{"same group again", "tenant-1", "", ""},
		{"bad characters", "tenant 1", sqs.CodeInvalidParameterValue, "MessageGroupId"},
		{"too long", strings.Repeat("g", 129), sqs.CodeInvalidParameterValue, "MessageGroupId"},
		// As on AWS, an empty MessageGroupId is invalid, not absent.
		{"empty", "", sqs.CodeInvalidParameterValue, "MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: tt.name, MessageGroupID: &tt.group})
			wantError(t, err, tt.code, tt.text)
			if tt.code == "" && out.SequenceNumber != "" {
				t.Fatalf("standard queue returned SequenceNumber %s", out.SequenceNumber)
			}
		})
	}
	// Both messages of the group are received at once: no FIFO blocking.
	msgs := e.receive(t, url, 10, nil)
	if len(msgs) != 2 {
		t.Fatalf("received %v, want both messages of the group", bodies(msgs))
	}
	for _, m := range msgs {
		if m.Attributes["MessageGroupId"] != "tenant-1" {
			t.Errorf("MessageGroupId attribute %q, want tenant-1", m.Attributes["MessageGroupId"])
		}
		if _, ok := m.Attributes["SequenceNumber"]; ok {
			t.Error("standard message has a SequenceNumber")
		}
	}
	// A deduplication ID still belongs to FIFO queues only.
	_, err := e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: "x", MessageDeduplicationID: ptr("d")})
	wantError(t, err, sqs.CodeInvalidParameterValue, "for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type.")
}

// ChangeMessageVisibility tells a message that is gone (deleted) from one
// that exists but is not in flight, with AWS's codes for each. As on AWS,
// a standard queue accepts the change after the timeout ended (the message
// is hidden again); a FIFO queue's handle has expired by then.
func TestChangeVisibilityOfMessageNotInFlight(t *testing.T) {
	tests := []struct {
		name    string
		fifo    bool
		prepare func(e *env, url, handle string)
		code    string
		text    string
	}{
		{"in flight", false, func(*env, string, string) {}, "", ""},
		{
			"deleted", false, func(e *env, url, handle string) { e.deleteMessage(t, url, handle) },
			sqs.CodeInvalidParameterValue, "Reason: Message does not exist or is not available for visibility timeout change.",
		},
		{"visibility timeout over", false, func(e *env, _, _ string) { e.advance(31 * time.Second) }, "", ""},
		{
			"FIFO visibility timeout over", true, func(e *env, _, _ string) { e.advance(31 * time.Second) },
			sqs.CodeMessageNotInflight, "The specified message isn't in flight.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			url := e.createQueue(t, "cv", nil)
			if tt.fifo {
				url = e.createQueue(t, "cv.fifo", fifoAttrs())
				e.sendFIFO(t, url, "m", "g", "d")
			} else {
				e.send(t, url, "m")
			}
			msgs := e.receive(t, url, 1, nil)
			if len(msgs) != 1 {
				t.Fatal("nothing received")
			}
			h := msgs[0].ReceiptHandle
			tt.prepare(e, url, h)
			err := e.svc.ChangeMessageVisibility(e.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: h, VisibilityTimeout: ptr(60)})
			wantError(t, err, tt.code, tt.text)
			// The batch form reports the same per entry.
			out, err := e.svc.ChangeMessageVisibilityBatch(e.ctx, caller, sqs.ChangeMessageVisibilityBatchInput{QueueURL: url, Entries: []sqs.BatchHandleEntry{{ID: "a", ReceiptHandle: h, VisibilityTimeout: ptr(60)}}})
			wantCode(t, err, "")
			if tt.code == "" {
				if len(out.Successful) != 1 {
					t.Fatalf("batch %+v, want success", out)
				}
				return
			}
			if len(out.Failed) != 1 || out.Failed[0].Code != tt.code || !out.Failed[0].SenderFault {
				t.Fatalf("batch failed entries %+v, want one %s", out.Failed, tt.code)
			}
		})
	}
}

// AWS caps the visibility timeout of one receive at 12 hours from that
// receive: extending past it fails rather than being clipped.
func TestChangeVisibilityCappedAtTwelveHoursFromReceive(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "cap", nil)
	e.send(t, url, "m")
	h := e.receive(t, url, 1, ptr(43200))[0].ReceiptHandle
	e.advance(time.Hour)
	change := func(timeout int) error {
		return e.svc.ChangeMessageVisibility(e.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: h, VisibilityTimeout: ptr(timeout)})
	}
	tests := []struct {
		name    string
		timeout int
		code    string
	}{
		{"up to the cap", 11 * 3600, ""},
		{"past the cap", 11*3600 + 1, sqs.CodeInvalidParameterValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := change(tt.timeout)
			wantError(t, err, tt.code, "Total VisibilityTimeout for the message is beyond the limit [43200 seconds]")
		})
	}
}

// On a FIFO queue, a SendMessageBatch entry without MessageGroupId, or
// without a deduplication ID on a queue without content-based
// deduplication, fails the whole request as on AWS.
func TestFIFOBatchMissingParametersFailTheRequest(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "b.fifo", fifoAttrs())
	good := sqs.SendMessageBatchEntry{ID: "good", MessageBody: "x", MessageGroupID: ptr("g"), MessageDeduplicationID: ptr("d")}
	tests := []struct {
		name string
		bad  sqs.SendMessageBatchEntry
		text string
	}{
		{"missing group", sqs.SendMessageBatchEntry{ID: "bad", MessageBody: "y", MessageDeduplicationID: ptr("e")}, "The request must contain the parameter MessageGroupId."},
		{"missing dedup id", sqs.SendMessageBatchEntry{ID: "bad", MessageBody: "y", MessageGroupID: ptr("g")}, "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.SendMessageBatch(e.ctx, caller, sqs.SendMessageBatchInput{QueueURL: url, Entries: []sqs.SendMessageBatchEntry{good, tt.bad}})
			wantError(t, err, sqs.CodeInvalidParameterValue, tt.text)
		})
	}
	if msgs := e.receive(t, url, 10, nil); len(msgs) != 0 {
		t.Fatalf("a failed request sent %v", bodies(msgs))
	}
}

// AWS's texts for common queue mistakes.
func TestQueueErrorMessages(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "texts", map[string]string{"VisibilityTimeout": "60"})
	wantCode(t, e.svc.PurgeQueue(e.ctx, caller, url), "")
	tests := []struct {
		name string
		err  error
		code string
		text string
	}{
		{
			"purge twice", e.svc.PurgeQueue(e.ctx, caller, url),
			sqs.CodePurgeQueueInProgress, "Only one PurgeQueue operation on texts is allowed every 60 seconds.",
		},
		{
			"create with a different value", func() error {
				_, err := e.svc.CreateQueue(e.ctx, caller, sqs.CreateQueueInput{QueueName: "texts", Attributes: map[string]string{"VisibilityTimeout": "30"}})
				return err
			}(),
			sqs.CodeQueueNameExists, "A queue already exists with the same name and a different value for attribute VisibilityTimeout",
		},
		{
			"FIFO throughput on standard", e.svc.SetQueueAttributes(e.ctx, caller, sqs.SetQueueAttributesInput{QueueURL: url, Attributes: map[string]string{"FifoThroughputLimit": "perQueue"}}),
			sqs.CodeInvalidAttributeName, "You can specify the FifoThroughputLimit only when FifoQueue is set to true.",
		},
		{
			"deduplication scope on standard", func() error {
				_, err := e.svc.CreateQueue(e.ctx, caller, sqs.CreateQueueInput{QueueName: "std", Attributes: map[string]string{"DeduplicationScope": "queue"}})
				return err
			}(),
			sqs.CodeInvalidAttributeName, "You can specify the DeduplicationScope only when FifoQueue is set to true.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, tt.err, tt.code, tt.text)
		})
	}
}

// Herald lets a deleted queue's name be reused at once, where AWS asks for
// 60 seconds: the new queue is a different queue and holds nothing of the
// old one.
func TestRecreateDeletedQueueAtOnce(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "again", nil)
	e.send(t, url, "old")
	wantCode(t, e.svc.DeleteQueue(e.ctx, caller, url), "")
	if got := e.createQueue(t, "again", nil); got != url {
		t.Fatalf("url %q, want %q", got, url)
	}
	if msgs := e.receive(t, url, 10, nil); len(msgs) != 0 {
		t.Fatalf("recreated queue delivers %v", bodies(msgs))
	}
}
