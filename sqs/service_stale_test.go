package sqs_test

import (
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
)

// twoReceives sends one message to a queue with a 30 s visibility timeout
// and receives it twice (the first timeout ended in between); it returns
// the handles of both receives.
func twoReceives(t *testing.T, e *env, name string, fifo bool) (url, first, second string) {
	t.Helper()
	if fifo {
		url = e.createQueue(t, name+".fifo", fifoAttrs("VisibilityTimeout", "30"))
		e.sendFIFO(t, url, "m", "g", "d")
	} else {
		url = e.createQueue(t, name, map[string]string{"VisibilityTimeout": "30"})
		e.send(t, url, "m")
	}
	one := e.receive(t, url, 1, nil)
	if len(one) != 1 {
		t.Fatalf("first receive: %d messages, want 1", len(one))
	}
	e.advance(31 * time.Second)
	two := e.receive(t, url, 1, nil)
	if len(two) != 1 || two[0].Attributes["ApproximateReceiveCount"] != "2" {
		t.Fatalf("second receive: %+v, want the message with ApproximateReceiveCount 2", two)
	}
	return url, one[0].ReceiptHandle, two[0].ReceiptHandle
}

func (e *env) changeVisibility(url, handle string, timeout int) error {
	return e.svc.ChangeMessageVisibility(e.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: handle, VisibilityTimeout: ptr(timeout)})
}

// On a standard queue, as on AWS, a receipt handle of an earlier receive
// changes the visibility of the message's current receive, and does not
// lower the stored receive count (which a rebuild of the Index reads back).
func TestChangeVisibilityStaleHandleOnAStandardQueue(t *testing.T) {
	e := newEnv(t)
	url, stale, _ := twoReceives(t, e, "stale", false)

	wantCode(t, e.changeVisibility(url, stale, 600), "")
	e.advance(599 * time.Second)
	if got := e.receive(t, url, 1, nil); len(got) != 0 {
		t.Fatalf("received %d messages before the 600 s set through the stale handle ended, want 0", len(got))
	}
	out, err := e.svc.ChangeMessageVisibilityBatch(e.ctx, caller, sqs.ChangeMessageVisibilityBatchInput{
		QueueURL: url, Entries: []sqs.BatchHandleEntry{{ID: "s", ReceiptHandle: stale, VisibilityTimeout: ptr(0)}},
	})
	wantCode(t, err, "")
	if len(out.Successful) != 1 || len(out.Failed) != 0 {
		t.Fatalf("batch with a stale handle: %+v, want success", out)
	}

	// Rebuild the Index from the Store: the stored receive count is still
	// the second receive's, so this receive is the third.
	if err := e.index.Drop(e.ctx, sqs.IndexQueue{ID: queueID(t, e, "stale")}); err != nil {
		t.Fatal(err)
	}
	third := e.receive(t, url, 1, nil)
	if len(third) != 1 || third[0].Attributes["ApproximateReceiveCount"] != "3" {
		t.Fatalf("receive after release through the stale handle: %+v, want the message with ApproximateReceiveCount 3", third)
	}
}

// On a FIFO queue a handle of an earlier receive has expired: it cannot
// change the visibility of the message's current receive, and does not
// lower the stored receive count.
func TestChangeVisibilityStaleHandleOnAFIFOQueue(t *testing.T) {
	e := newEnv(t)
	url, stale, current := twoReceives(t, e, "stale", true)

	for _, timeout := range []int{0, 600} {
		wantCode(t, e.changeVisibility(url, stale, timeout), sqs.CodeInvalidParameterValue)
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
	e.advance(30 * time.Second)
	if err := e.index.Drop(e.ctx, sqs.IndexQueue{ID: queueID(t, e, "stale.fifo"), FIFO: true}); err != nil {
		t.Fatal(err)
	}
	third := e.receive(t, url, 1, nil)
	if len(third) != 1 || third[0].Attributes["ApproximateReceiveCount"] != "3" {
		t.Fatalf("third receive: %+v, want the message with ApproximateReceiveCount 3", third)
	}
	// Now the second receive's handle has expired too; the third's works.
	wantCode(t, e.changeVisibility(url, current, 0), sqs.CodeInvalidParameterValue)
	wantCode(t, e.changeVisibility(url, third[0].ReceiptHandle, 120), "")
	e.advance(119 * time.Second)
	if got := e.receive(t, url, 1, nil); len(got) != 0 {
		t.Fatalf("received %d messages before the extended timeout ended, want 0", len(got))
	}
	e.advance(time.Second)
	if got := e.receive(t, url, 1, nil); len(got) != 1 || got[0].Attributes["ApproximateReceiveCount"] != "4" {
		t.Fatalf("receive after the extended timeout: %+v, want the message with ApproximateReceiveCount 4", got)
	}
}

// On a standard queue, as on AWS, a visibility change after the timeout
// ended (the message is back, not received since) hides it again.
func TestChangeVisibilityAfterTheTimeoutEnded(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "late", map[string]string{"VisibilityTimeout": "30"})
	e.send(t, url, "m")
	h := e.receive(t, url, 1, nil)[0].ReceiptHandle
	e.advance(31 * time.Second)
	wantCode(t, e.changeVisibility(url, h, 60), "")
	e.advance(59 * time.Second)
	if got := e.receive(t, url, 1, nil); len(got) != 0 {
		t.Fatalf("received %d messages while hidden again, want 0", len(got))
	}
	e.advance(time.Second)
	if got := e.receive(t, url, 1, nil); len(got) != 1 || got[0].Attributes["ApproximateReceiveCount"] != "2" {
		t.Fatalf("receive after the new timeout: %+v, want the message with ApproximateReceiveCount 2", got)
	}
}

// As on AWS, a FIFO message cannot be deleted through the handle of a
// receive that is over (timeout ended, or received again since): the
// answer says the handle has expired and the message stays. A standard
// queue deletes through such a handle.
func TestDeleteThroughAnExpiredHandle(t *testing.T) {
	const text = "Reason: The receipt handle has expired."
	e := newEnv(t)
	url, first, second := twoReceives(t, e, "expired", true)
	wantError(t, e.svc.DeleteMessage(e.ctx, caller, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: first}), sqs.CodeInvalidParameterValue, text)

	e.advance(31 * time.Second) // the second receive is over too
	out, err := e.svc.DeleteMessageBatch(e.ctx, caller, sqs.DeleteMessageBatchInput{QueueURL: url, Entries: []sqs.BatchHandleEntry{
		{ID: "first", ReceiptHandle: first}, {ID: "second", ReceiptHandle: second},
	}})
	wantCode(t, err, "")
	if len(out.Successful) != 0 || len(out.Failed) != 2 || out.Failed[0].Code != sqs.CodeInvalidParameterValue || !out.Failed[1].SenderFault {
		t.Fatalf("batch of expired handles: %+v, want two sender-fault InvalidParameterValue", out)
	}
	third := e.receive(t, url, 1, nil)
	if len(third) != 1 || third[0].Attributes["ApproximateReceiveCount"] != "3" {
		t.Fatalf("after refused deletes: %+v, want the message, received a third time", third)
	}
	wantCode(t, e.svc.DeleteMessage(e.ctx, caller, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: third[0].ReceiptHandle}), "")
	if got := e.receive(t, url, 1, nil); len(got) != 0 {
		t.Fatalf("received %v after the delete", bodies(got))
	}
	// Deleting a message already gone succeeds, expired handle or not.
	wantCode(t, e.svc.DeleteMessage(e.ctx, caller, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: first}), "")

	std, stale, _ := twoReceives(t, e, "expired-std", false)
	wantCode(t, e.svc.DeleteMessage(e.ctx, caller, sqs.DeleteMessageInput{QueueURL: std, ReceiptHandle: stale}), "")
	e.advance(31 * time.Second)
	if got := e.receive(t, std, 1, nil); len(got) != 0 {
		t.Fatalf("standard queue: received %v after a delete through an older handle", bodies(got))
	}
}
