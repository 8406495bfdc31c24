package sqs_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

func withReconcile(budget int) envOption {
	return func(c *sqs.Config) { c.ReconcileBudget = budget; c.ReconcileInterval = -1 }
}

// messageIDs sends n messages and returns their ids.
func (e *env) sendN(t *testing.T, url string, n int) []uuid.UUID {
	t.Helper()
	ids := make([]uuid.UUID, n)
	for i := range n {
		ids[i] = uuid.MustParse(e.send(t, url, fmt.Sprint(i)).MessageID)
	}
	return ids
}

// Stored messages the Index lost track of (while it stays "built") are
// found and made receivable again; fresh sends and deleted messages are
// left alone.
func TestReconcilerRepairsMessagesMissingFromTheIndex(t *testing.T) {
	e := newEnv(t, withReconcile(10_000))
	url := e.createQueue(t, "rec", nil)
	q := sqs.IndexQueue{ID: queueID(t, e, "rec")}
	ids := e.sendN(t, url, 50)
	e.advance(time.Minute) // past the grace
	// Divergence: the Index forgets 7 messages but stays built.
	if err := e.index.Index.Remove(e.ctx, q, ids[:7]); err != nil {
		t.Fatal(err)
	}
	// A message deleted for real must not come back.
	msgs := e.receive(t, url, 1, ptr(0))
	wantCode(t, e.svc.DeleteMessage(e.ctx, caller, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: msgs[0].ReceiptHandle}), "")
	// A fresh send is younger than the grace: not divergence yet.
	fresh := e.send(t, url, "fresh")
	if err := e.index.Index.Remove(e.ctx, q, []uuid.UUID{uuid.MustParse(fresh.MessageID)}); err != nil {
		t.Fatal(err)
	}

	read := e.svc.ReconcileOnce(e.ctx)
	if read != 50 {
		t.Errorf("the pass read %d stored messages, want 50 (49 of the first and the fresh one)", read)
	}
	if n := e.svc.Stats().ReconciledStoreOnly.Load(); n != 7 {
		t.Fatalf("repaired %d, want the 7 the Index lost", n)
	}
	got := drainAll(t, e, url)
	if len(got) != 49 || got["fresh"] {
		t.Fatalf("drained %d messages (fresh included: %v); want the 49 left of the first 50", len(got), got["fresh"])
	}
	// The fresh one was skipped, so the queue got another pass: once it
	// is old enough, it is repaired too.
	e.advance(time.Minute)
	e.svc.ReconcileOnce(e.ctx)
	if got := drainAll(t, e, url); !got["fresh"] || len(got) != 1 {
		t.Fatalf("after the grace: drained %v, want the fresh message", got)
	}
}

// The reconciler's work per tick is bounded, a pass resumes where the last
// tick stopped, and a queue with no traffic since its last pass costs
// nothing.
func TestReconcilerBoundedResumableIdleFree(t *testing.T) {
	e := newEnv(t, shards(2), withReconcile(300))
	url := e.createQueue(t, "big", nil)
	q := sqs.IndexQueue{ID: queueID(t, e, "big")}
	ids := e.sendN(t, url, 1000)
	e.advance(time.Minute)
	if err := e.index.Index.Remove(e.ctx, q, []uuid.UUID{ids[0], ids[500], ids[999]}); err != nil {
		t.Fatal(err)
	}
	total := 0
	for tick := 0; tick < 10; tick++ {
		n := e.svc.ReconcileOnce(e.ctx)
		if n > 300 {
			t.Fatalf("a tick read %d messages; the budget is 300", n)
		}
		total += n
		if n == 0 {
			break
		}
	}
	if total != 1000 {
		t.Fatalf("the pass read %d messages in all, want each of the 1000 once", total)
	}
	if n := e.svc.Stats().ReconciledStoreOnly.Load(); n != 3 {
		t.Fatalf("repaired %d, want 3", n)
	}
	if e.svc.ReconcilePending() != 0 {
		t.Fatalf("%d queues still pending after a complete pass", e.svc.ReconcilePending())
	}
	// Idle: nothing to read until the queue sees traffic again.
	if n := e.svc.ReconcileOnce(e.ctx); n != 0 {
		t.Fatalf("an idle queue cost %d reads", n)
	}
	e.send(t, url, "again")
	if n := e.svc.ReconcileOnce(e.ctx); n == 0 {
		t.Fatal("a queue with new traffic got no pass")
	}
}

// Index entries whose message is gone from the Store are removed by the
// receive that claims them, and counted.
func TestIndexOnlyEntriesAreCounted(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "ghost", nil)
	q := sqs.IndexQueue{ID: queueID(t, e, "ghost")}
	ghost := uuid.Must(uuid.NewUUID())
	if err := e.index.Index.Add(e.ctx, q, []sqs.Entry{{ID: ghost, VisibleAt: time.Now().Add(-time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	if msgs := e.receive(t, url, 10, ptr(0)); len(msgs) != 0 {
		t.Fatalf("received %d messages from a ghost entry", len(msgs))
	}
	if n := e.svc.Stats().ReconciledIndexOnly.Load(); n != 1 {
		t.Fatalf("index-only entries counted: %d, want 1", n)
	}
}
