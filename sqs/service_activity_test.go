package sqs_test

import (
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
)

// TestQueueActivity: the oldest message's age and this node's counts of
// sends, receives and deletes, for the queue's owner only.
func TestQueueActivity(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "busy", nil)
	e.send(t, url, "a")
	e.advance(10 * time.Second)
	e.send(t, url, "b")
	got := e.receive(t, url, 1, nil)
	e.deleteMessage(t, url, got[0].ReceiptHandle) // "a": "b" is the oldest left
	e.advance(5 * time.Second)
	a, err := e.svc.QueueActivity(e.ctx, caller, url)
	wantCode(t, err, "")
	if a.Sent != 2 || a.Received != 1 || a.Deleted != 1 || a.OldestAge != 5*time.Second {
		t.Fatalf("activity %+v, want 2 sent, 1 received, 1 deleted, oldest 5s", a)
	}
	_, err = e.svc.QueueActivity(e.ctx, other, url)
	wantCode(t, err, sqs.CodeAccessDenied)
}
