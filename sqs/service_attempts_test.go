package sqs_test

import (
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
)

func (e *env) receiveAttempt(t *testing.T, url, attempt string, vis int) []sqs.ReceivedMessage {
	t.Helper()
	one, zero := 1, 0
	out, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{
		QueueURL: url, MaxNumberOfMessages: &one, WaitTimeSeconds: &zero, VisibilityTimeout: &vis,
		ReceiveRequestAttemptID: attempt, MessageSystemAttributeNames: []string{"All"},
	})
	wantCode(t, err, "")
	return out.Messages
}

// A FIFO receive retried with its ReceiveRequestAttemptId gets the same
// message and receipt handle, its visibility timeout started again; once
// the message has moved on (deleted here), the same id receives anew.
func TestReceiveRequestAttemptIdReplays(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "attempts.fifo", map[string]string{"FifoQueue": "true"})
	e.sendFIFO(t, url, "first", "g", "d1")
	e.sendFIFO(t, url, "second", "g", "d2")
	got := e.receiveAttempt(t, url, "try-1", 30)
	if len(got) != 1 || got[0].Body != "first" {
		t.Fatalf("received %v, want first", bodies(got))
	}
	e.advance(20 * time.Second)
	again := e.receiveAttempt(t, url, "try-1", 30)
	if len(again) != 1 || again[0].ReceiptHandle != got[0].ReceiptHandle || again[0].Body != "first" {
		t.Fatalf("retried attempt got %v, want the same message and handle", again)
	}
	// The retry restarted the 30 s timeout: 20 s later (40 s after the
	// first receive) the message is still in flight and the group blocked.
	e.advance(20 * time.Second)
	if other := e.receiveAttempt(t, url, "try-2", 30); len(other) != 0 {
		t.Fatalf("another attempt got %v while the group's message is in flight", bodies(other))
	}
	e.deleteMessage(t, url, again[0].ReceiptHandle)
	next := e.receiveAttempt(t, url, "try-1", 30)
	if len(next) != 1 || next[0].Body != "second" {
		t.Fatalf("the attempt after a delete got %v, want a new receive of second", bodies(next))
	}
}

// The attempt is forgotten after 5 minutes, and standard queues ignore it.
func TestReceiveRequestAttemptIdScope(t *testing.T) {
	e := newEnv(t)
	fifo := e.createQueue(t, "scope.fifo", map[string]string{"FifoQueue": "true"})
	e.sendFIFO(t, fifo, "only", "g", "d1")
	first := e.receiveAttempt(t, fifo, "a", 600)
	e.advance(sqs.AttemptWindow + time.Second)
	if late := e.receiveAttempt(t, fifo, "a", 600); len(late) != 0 {
		t.Fatalf("an attempt retried after its window got %v, want a new receive (the message is still in flight)", bodies(late))
	}
	if len(first) != 1 {
		t.Fatal("nothing received")
	}

	std := e.createQueue(t, "scope-standard", nil)
	e.send(t, std, "one")
	e.send(t, std, "two")
	a := e.receiveAttempt(t, std, "same", 30)
	b := e.receiveAttempt(t, std, "same", 30)
	if len(a) != 1 || len(b) != 1 || a[0].MessageID == b[0].MessageID {
		t.Fatalf("standard queue: %v then %v, want two different messages", bodies(a), bodies(b))
	}
}

func TestReceiveRequestAttemptIdValidated(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "bad.fifo", map[string]string{"FifoQueue": "true"})
	one := 1
	_, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, MaxNumberOfMessages: &one, ReceiveRequestAttemptID: "no spaces allowed"})
	wantCode(t, err, sqs.CodeInvalidParameterValue)
}
