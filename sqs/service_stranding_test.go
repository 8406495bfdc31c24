package sqs_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

// drainAll receives and deletes every message of url, returning how many
// distinct messages came, with the Index failing or recovering as the test
// arranged.
func drainAll(t *testing.T, e *env, url string) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	for empty := 0; empty < 3; {
		out, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, MaxNumberOfMessages: ptr(10), WaitTimeSeconds: ptr(0)})
		if err != nil {
			t.Fatalf("receive: %v", err)
		}
		if len(out.Messages) == 0 {
			empty++
			continue
		}
		empty = 0
		for _, m := range out.Messages {
			got[m.Body] = true
			wantCode(t, e.svc.DeleteMessage(e.ctx, caller, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: m.ReceiptHandle}), "")
		}
	}
	return got
}

// backlogToRebuild creates the queue name holding n messages whose Index
// state is then lost (Redis restarted empty): the next receive rebuilds it
// from the Store. It returns the queue's URL and its Index name.
func backlogToRebuild(t *testing.T, e *env, name string, n int) (string, sqs.IndexQueue) {
	t.Helper()
	url := e.createQueue(t, name, nil)
	for i := range n {
		e.send(t, url, fmt.Sprint(i))
	}
	q := sqs.IndexQueue{ID: queueID(t, e, name)}
	if err := e.index.Index.Drop(e.ctx, q); err != nil {
		t.Fatal(err)
	}
	return url, q
}

// TestRebuildSurvivesIndexLossAtEveryStep reproduces the stranding seen
// on Cassandra + Redis: a queue's Index is rebuilt from the Store in
// batches, and Redis loses its data (restarted empty, or the queue is
// dropped by an invalidation) between two batches. Before the fix, the
// rebuild went on into the empty Index and marked the queue built with
// only its later batches: the earlier messages, durable in the Store,
// were never delivered again. Now the loss ends the rebuild's lease, its
// Commit fails, and the next rebuild restores everything. The fault is
// placed after each Add of the rebuild in turn, deterministically.
func TestRebuildSurvivesIndexLossAtEveryStep(t *testing.T) {
	const n = 1234 // three rebuild batches of 500
	for _, lossAfter := range []int64{1, 2, 3} {
		t.Run(fmt.Sprintf("loss after add %d", lossAfter), func(t *testing.T) {
			e := newEnv(t)
			url, q := backlogToRebuild(t, e, "strand", n)
			var adds atomic.Int64
			lose := func(ctx context.Context, iq sqs.IndexQueue) {
				if iq.ID == q.ID && adds.Add(1) == lossAfter {
					_ = e.index.Index.Drop(ctx, iq) // Redis restarted empty
				}
			}
			e.index.onAdd.Store(&lose)
			got := drainAll(t, e, url)
			if len(got) != n {
				t.Fatalf("%d of %d durable messages delivered; the rest are stranded", len(got), n)
			}
			if adds.Load() < lossAfter {
				t.Fatalf("the rebuild made %d adds; the fault after add %d never happened", adds.Load(), lossAfter)
			}
		})
	}
}

// TestRebuildFailingIndexIsNotMarkedBuilt: the Index fails (Redis
// unreachable) at the end of a rebuild; the queue is not marked built,
// and once the Index is back every message is delivered.
func TestRebuildFailingIndexIsNotMarkedBuilt(t *testing.T) {
	e := newEnv(t)
	url, q := backlogToRebuild(t, e, "fail", 700)
	var adds atomic.Int64
	down := func(ctx context.Context, iq sqs.IndexQueue) {
		if iq.ID == q.ID && adds.Add(1) == 1 {
			e.index.down.Store(true) // the second batch and the Commit fail
		}
	}
	e.index.onAdd.Store(&down)
	// While the Index is down, receives are served from the Store
	// (degraded mode): take a few, then bring the Index back.
	out, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, MaxNumberOfMessages: ptr(10), WaitTimeSeconds: ptr(0)})
	if err != nil {
		t.Fatalf("receive while the Index is down: %v", err)
	}
	e.index.onAdd.Store(nil)
	e.index.down.Store(false)
	got := map[string]bool{}
	for _, m := range out.Messages {
		got[m.Body] = true
		wantCode(t, e.svc.DeleteMessage(e.ctx, caller, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: m.ReceiptHandle}), "")
	}
	for b := range drainAll(t, e, url) {
		got[b] = true
	}
	if len(got) != 700 {
		t.Fatalf("%d of 700 durable messages delivered", len(got))
	}
}

// TestFIFOOrderAfterIndexWriteFailure reproduces the reordering seen on
// Cassandra + Redis after a Redis outage: sends during the outage reach
// the Store but not the Index (their Add fails); once Redis is back its
// state of the queue is still marked built, and a receive from it handed
// out a later send of the group before them, until the next drain dropped
// the queue. Now the node that saw the failure drops the queue's Index
// state before it next receives from it, so the group comes in send
// order. The drain loop (Run) is not running here: only that drop can
// restore the order.
func TestFIFOOrderAfterIndexWriteFailure(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "order.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"})
	e.sendFIFO(t, url, "m1", "g", "")
	e.index.down.Store(true) // Redis unreachable
	e.sendFIFO(t, url, "m2", "g", "")
	e.sendFIFO(t, url, "m3", "g", "")
	e.index.down.Store(false) // Redis back, its state of the queue built but without m2 and m3
	e.sendFIFO(t, url, "m4", "g", "")
	var got []string
	for range 10 {
		msgs := e.receive(t, url, 10, nil)
		for _, m := range msgs {
			got = append(got, m.Body)
			e.deleteMessage(t, url, m.ReceiptHandle)
		}
		if len(got) >= 4 {
			break
		}
	}
	if want := []string{"m1", "m2", "m3", "m4"}; !slices.Equal(got, want) {
		t.Fatalf("received %q, want %q (the group in send order)", got, want)
	}
}

// TestRebuildResumesAfterAStoreFailure: a rebuild of a large queue fails
// half-way (the Store stops answering); the next one goes on from the
// position the first saved with its adds instead of scanning the whole
// queue again, and every message is delivered. Before, a backlog whose
// rebuild took longer than the gap between Cassandra restarts was never
// rebuilt: the drill saw deliveries stop for minutes.
func TestRebuildResumesAfterAStoreFailure(t *testing.T) {
	const n = 3000 // six rebuild batches of 500
	e := newEnv(t)
	url, _ := backlogToRebuild(t, e, "resume", n)
	// The Store fails once the first rebuild has read half the queue.
	fail := func() {
		if e.store.scanned.Load() >= n/2 {
			e.store.failScans.Store(true)
		}
	}
	e.store.onScan.Store(&fail)
	e.store.scanned.Store(0)
	if _, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, WaitTimeSeconds: ptr(0)}); err == nil {
		t.Fatal("receive while the Store fails mid-rebuild succeeded")
	}
	if e.svc.Stats().RebuildsFailed.Load() == 0 {
		t.Fatal("no rebuild failed")
	}
	e.store.onScan.Store(nil)
	e.store.failScans.Store(false)
	first := e.store.scanned.Swap(0)
	got := drainAll(t, e, url)
	if len(got) != n {
		t.Fatalf("%d of %d messages delivered", len(got), n)
	}
	if e.svc.Stats().RebuildsResumed.Load() == 0 || e.svc.Stats().RebuildsCommitted.Load() != 1 {
		t.Fatalf("resumed %d, committed %d; want some resumed, 1 committed", e.svc.Stats().RebuildsResumed.Load(), e.svc.Stats().RebuildsCommitted.Load())
	}
	// The second rebuild read about what the first had not added.
	if second := e.store.scanned.Load(); second > n-first+2*256 {
		t.Fatalf("the first rebuild read %d messages, the second %d: it did not resume", first, second)
	}
}

// TestRebuildSurvivesAnEpochBumpAtEveryStep: node 1 rebuilds a queue's
// Index state in batches under index epoch 0; after one of its Adds, the
// data center's epoch is bumped (sqs-reindex) and node 2, which reads the
// new epoch, receives from the queue: it forgets node 1's partial state
// (an older epoch), rebuilds the queue under the new one and takes a
// message. Node 1's rebuild then meets a state of a newer epoch, reads the
// epoch again and goes on under it. Every durable message is delivered
// once, whatever the step the bump falls on.
func TestRebuildSurvivesAnEpochBumpAtEveryStep(t *testing.T) {
	const n = 1234 // three rebuild batches of 500
	for _, bumpAfter := range []int64{1, 2, 3} {
		t.Run(fmt.Sprintf("bump after add %d", bumpAfter), func(t *testing.T) {
			epochs := &fakeEpochs{}
			withEpochs := func(c *sqs.Config) { c.IndexEpochs, c.IndexEpochRefresh, c.ReconcileInterval = epochs, time.Minute, -1 }
			e := newEnv(t, withEpochs)
			cfg := sqs.Config{Clock: e.clock.Now}
			withEpochs(&cfg)
			node2 := sqs.NewService(e.store, e.index, sqsmem.NewNotifier(), cfg)
			t.Cleanup(func() { node2.Close() })
			url, q := backlogToRebuild(t, e, "strand", n)
			got := map[string]bool{}
			var adds atomic.Int64
			bump := func(ctx context.Context, iq sqs.IndexQueue) {
				if iq.ID != q.ID || adds.Add(1) != bumpAfter {
					return
				}
				if _, err := epochs.BumpIndexEpoch(ctx); err != nil {
					t.Error(err)
					return
				}
				out, err := node2.ReceiveMessage(ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, MaxNumberOfMessages: ptr(10), WaitTimeSeconds: ptr(0)})
				if err != nil {
					t.Errorf("node 2's receive after the bump: %v", err)
					return
				}
				for _, m := range out.Messages {
					got[m.Body] = true
					if err := node2.DeleteMessage(ctx, caller, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: m.ReceiptHandle}); err != nil {
						t.Errorf("node 2's delete: %v", err)
					}
				}
			}
			e.index.onAdd.Store(&bump)
			drained := drainAll(t, e, url)
			// The interleaving the test is named for: node 2 rebuilt the
			// queue under the new epoch and took messages; node 1's rebuild
			// under the old one lost its lease and committed nothing.
			s1, s2 := e.svc.Stats(), node2.Stats()
			if len(got) == 0 || s2.RebuildsCommitted.Load() != 1 || s1.RebuildsLost.Load() != 1 || s1.RebuildsCommitted.Load() != 0 {
				t.Fatalf("node 2 took %d messages and committed %d rebuilds; node 1 lost %d and committed %d: want >0, 1, 1, 0",
					len(got), s2.RebuildsCommitted.Load(), s1.RebuildsLost.Load(), s1.RebuildsCommitted.Load())
			}
			for body := range drained {
				if got[body] {
					t.Errorf("message %s delivered by both nodes", body)
				}
				got[body] = true
			}
			if len(got) != n {
				t.Fatalf("%d of %d durable messages delivered; the rest are stranded", len(got), n)
			}
			if adds.Load() < bumpAfter {
				t.Fatalf("the rebuild made %d adds; the bump after add %d never happened", adds.Load(), bumpAfter)
			}
			if e.svc.IndexEpoch() != 1 || node2.IndexEpoch() != 1 {
				t.Errorf("epochs held after the drain: node 1 %d, node 2 %d; want both 1", e.svc.IndexEpoch(), node2.IndexEpoch())
			}
		})
	}
}
