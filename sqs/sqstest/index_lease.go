package sqstest

import (
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// The rebuild lease's Commit is what makes a rebuild count: it marks the
// queue built only while the lease that started the rebuild still holds.

func testCommitBuilds(e *indexEnv) {
	q := sqs.IndexQueue{ID: uuid.New()}
	l, ok, err := e.x.LockRebuild(e.ctx, q, time.Minute)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild: ok %v, err %v", ok, err)
	}
	defer l.Release()
	e.add(q, "", 0, "a")
	if _, err := e.x.Counts(e.ctx, q, e.at(0)); !errors.Is(err, sqs.ErrNotBuilt) {
		e.t.Fatalf("Counts before Commit: %v, want ErrNotBuilt", err)
	}
	if err := l.Commit(e.ctx); err != nil {
		e.t.Fatalf("Commit under a held lease: %v", err)
	}
	if n, err := e.x.Counts(e.ctx, q, e.at(0)); err != nil || n.Visible != 1 {
		e.t.Fatalf("Counts after Commit: %+v, %v", n, err)
	}
}

// A Drop (an invalidation, or the Index losing its data) while a rebuild
// runs ends its lease: what it added before is gone, so it must not mark
// the queue built with only what it added after.
func testCommitAfterDrop(e *indexEnv) {
	q := sqs.IndexQueue{ID: uuid.New()}
	l, ok, err := e.x.LockRebuild(e.ctx, q, time.Minute)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild: ok %v, err %v", ok, err)
	}
	defer l.Release()
	e.add(q, "", 0, "first")
	if err := e.x.Drop(e.ctx, q); err != nil {
		e.t.Fatal(err)
	}
	e.add(q, "", 0, "second")
	if err := l.Commit(e.ctx); !errors.Is(err, sqs.ErrLeaseLost) {
		e.t.Fatalf("Commit after a Drop: %v, want ErrLeaseLost", err)
	}
	if _, err := e.x.Counts(e.ctx, q, e.at(0)); !errors.Is(err, sqs.ErrNotBuilt) {
		e.t.Fatalf("Counts after a failed Commit: %v, want ErrNotBuilt", err)
	}
	// The queue can be rebuilt anew.
	l2, ok, err := e.x.LockRebuild(e.ctx, q, time.Minute)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild after the Drop: ok %v, err %v", ok, err)
	}
	defer l2.Release()
	if err := l2.Commit(e.ctx); err != nil {
		e.t.Fatalf("Commit of the new rebuild: %v", err)
	}
}

// A lease that ran out, with another holder since, cannot Commit.
func testCommitAfterExpiry(e *indexEnv) {
	q := sqs.IndexQueue{ID: uuid.New()}
	l, ok, err := e.x.LockRebuild(e.ctx, q, leaseWait)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild: ok %v, err %v", ok, err)
	}
	time.Sleep(leaseWait + 300*time.Millisecond)
	if err := l.Commit(e.ctx); !errors.Is(err, sqs.ErrLeaseLost) {
		e.t.Fatalf("Commit of an expired lease: %v, want ErrLeaseLost", err)
	}
	l2, ok, err := e.x.LockRebuild(e.ctx, q, time.Minute)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild after expiry: ok %v, err %v", ok, err)
	}
	defer l2.Release()
	if err := l.Commit(e.ctx); !errors.Is(err, sqs.ErrLeaseLost) {
		e.t.Fatalf("the old holder's Commit under the new lease: %v, want ErrLeaseLost", err)
	}
	if err := l2.Commit(e.ctx); err != nil {
		e.t.Fatalf("the new holder's Commit: %v", err)
	}
}

// Missing tells the reconciler which stored messages the Index lacks.
func testMissing(e *indexEnv) {
	q := e.queue(false)
	e.add(q, "", 0, "a", "b")
	stray := uuid.New()
	got, err := e.x.Missing(e.ctx, q, append(e.idsOf("a", "b"), stray))
	if err != nil || len(got) != 1 || got[0] != stray {
		e.t.Fatalf("Missing = %v, %v; want only the untracked id", got, err)
	}
	if err := e.x.Remove(e.ctx, q, e.idsOf("a")); err != nil {
		e.t.Fatal(err)
	}
	got, err = e.x.Missing(e.ctx, q, e.idsOf("a", "b"))
	if err != nil || len(got) != 1 || got[0] != e.id("a") {
		e.t.Fatalf("Missing after a Remove = %v, %v", got, err)
	}
	unbuilt := sqs.IndexQueue{ID: uuid.New()}
	if _, err := e.x.Missing(e.ctx, unbuilt, e.idsOf("a")); !errors.Is(err, sqs.ErrNotBuilt) {
		e.t.Fatalf("Missing on a queue not built: %v, want ErrNotBuilt", err)
	}
}

// A rebuild longer than one lease renews it; a lease ended by Drop cannot
// be renewed.
func testRenew(e *indexEnv) {
	q := sqs.IndexQueue{ID: uuid.New()}
	l, ok, err := e.x.LockRebuild(e.ctx, q, leaseWait)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild: ok %v, err %v", ok, err)
	}
	defer l.Release()
	for range 3 {
		time.Sleep(leaseWait / 2)
		if err := l.Renew(e.ctx); err != nil {
			e.t.Fatalf("Renew of a held lease: %v", err)
		}
	}
	// 1.5 leases later it is still held.
	if _, ok, _ := e.x.LockRebuild(e.ctx, q, time.Minute); ok {
		e.t.Fatal("another LockRebuild took a renewed lease")
	}
	if err := l.Commit(e.ctx); err != nil {
		e.t.Fatalf("Commit of a renewed lease: %v", err)
	}
	q2 := sqs.IndexQueue{ID: uuid.New()}
	l2, ok, err := e.x.LockRebuild(e.ctx, q2, time.Minute)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild: ok %v, err %v", ok, err)
	}
	defer l2.Release()
	if err := e.x.Drop(e.ctx, q2); err != nil {
		e.t.Fatal(err)
	}
	if err := l2.Renew(e.ctx); !errors.Is(err, sqs.ErrLeaseLost) {
		e.t.Fatalf("Renew after a Drop: %v, want ErrLeaseLost", err)
	}
}
