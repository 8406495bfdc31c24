package sqs_test

import (
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
)

// A receipt handle of an earlier receive cannot change the visibility of
// the message's current receive, as on AWS, and does not lower the stored
// receive count (which a rebuild of the Index would then read back).
func TestChangeVisibilityStaleHandle(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "stale", map[string]string{"VisibilityTimeout": "30"})
	e.send(t, url, "m")
	first := e.receive(t, url, 1, nil)
	if len(first) != 1 {
		t.Fatalf("first receive: %d messages, want 1", len(first))
	}
	e.advance(31 * time.Second)
	second := e.receive(t, url, 1, nil)
	if len(second) != 1 || second[0].Attributes["ApproximateReceiveCount"] != "2" {
		t.Fatalf("second receive: %+v, want the message with ApproximateReceiveCount 2", second)
	}
	stale, current := first[0].ReceiptHandle, second[0].ReceiptHandle

	for _, timeout := range []int{0, 600} {
		err := e.svc.ChangeMessageVisibility(e.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: stale, VisibilityTimeout: ptr(timeout)})
		wantCode(t, err, sqs.CodeInvalidParameterValue)
	}
	out, err := e.svc.ChangeMessageVisibilityBatch(e.ctx, caller, sqs.ChangeMessageVisibilityBatchInput{
		QueueURL: url, Entries: []sqs.BatchHandleEntry{{ID: "s", ReceiptHandle: stale, VisibilityTimeout: ptr(0)}},
	})
	wantCode(t, err, "")
	if len(out.Successful) != 0 || len(out.Failed) != 1 || out.Failed[0].Code != sqs.CodeInvalidParameterValue || !out.Failed[0].SenderFault {
		t.Fatalf("batch with a stale handle: %+v, want one sender-fault InvalidParameterValue", out)
	}

	// The current receive keeps its 30 s timeout: not released by the
	// stale timeout 0, not extended by the stale 600.
	if got := e.receive(t, url, 1, nil); len(got) != 0 {
		t.Fatalf("received %d messages right after stale changes, want 0", len(got))
	}
	e.advance(29 * time.Second)
	if got := e.receive(t, url, 1, nil); len(got) != 0 {
		t.Fatalf("received %d messages before the timeout ended, want 0", len(got))
	}
	e.advance(time.Second)

	// Rebuild the Index from the Store: the stored receive count is still
	// the second receive's.
	if err := e.index.Drop(e.ctx, sqs.IndexQueue{ID: queueID(t, e, "stale")}); err != nil {
		t.Fatal(err)
	}
	third := e.receive(t, url, 1, nil)
	if len(third) != 1 || third[0].Attributes["ApproximateReceiveCount"] != "3" {
		t.Fatalf("third receive: %+v, want the message with ApproximateReceiveCount 3", third)
	}

	// Now the second receive's handle is stale too; the third's works.
	err = e.svc.ChangeMessageVisibility(e.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: current, VisibilityTimeout: ptr(0)})
	wantCode(t, err, sqs.CodeInvalidParameterValue)
	err = e.svc.ChangeMessageVisibility(e.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: third[0].ReceiptHandle, VisibilityTimeout: ptr(0)})
	wantCode(t, err, "")
	fourth := e.receive(t, url, 1, nil)
	if len(fourth) != 1 || fourth[0].Attributes["ApproximateReceiveCount"] != "4" {
		t.Fatalf("receive after release by the current handle: %+v, want the message with ApproximateReceiveCount 4", fourth)
	}
}

// The handle of the current receive still changes its visibility.
func TestChangeVisibilityCurrentHandleAfterStale(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "current", map[string]string{"VisibilityTimeout": "30"})
	e.send(t, url, "m")
	first := e.receive(t, url, 1, nil)
	e.advance(31 * time.Second)
	second := e.receive(t, url, 1, nil)
	if len(first) != 1 || len(second) != 1 {
		t.Fatalf("received %d then %d messages, want 1 and 1", len(first), len(second))
	}
	err := e.svc.ChangeMessageVisibility(e.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: first[0].ReceiptHandle, VisibilityTimeout: ptr(0)})
	wantCode(t, err, sqs.CodeInvalidParameterValue)
	err = e.svc.ChangeMessageVisibility(e.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: second[0].ReceiptHandle, VisibilityTimeout: ptr(120)})
	wantCode(t, err, "")
	e.advance(119 * time.Second)
	if got := e.receive(t, url, 1, nil); len(got) != 0 {
		t.Fatalf("received %d messages before the extended timeout ended, want 0", len(got))
	}
	e.advance(time.Second)
	got := e.receive(t, url, 1, nil)
	if len(got) != 1 || got[0].Attributes["ApproximateReceiveCount"] != "3" {
		t.Fatalf("receive after the extended timeout: %+v, want the message with ApproximateReceiveCount 3", got)
	}
}
