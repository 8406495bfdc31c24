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

// lock takes q's rebuild lease, failing the test if it cannot.
func (e *indexEnv) lock(q sqs.IndexQueue, d time.Duration) sqs.RebuildLease {
	e.t.Helper()
	l, ok, err := e.x.LockRebuild(e.ctx, q, d)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild: ok %v, err %v", ok, err)
	}
	return l
}

func (e *indexEnv) progress(l sqs.RebuildLease, want string) {
	e.t.Helper()
	if got, err := l.Progress(e.ctx); err != nil || got != want {
		e.t.Fatalf("Progress = %q, %v; want %q", got, err, want)
	}
}

func (e *indexEnv) leaseAdd(l sqs.RebuildLease, position string, names ...string) error {
	entries := make([]sqs.Entry, len(names))
	for i, n := range names {
		entries[i] = sqs.Entry{ID: e.id(n), VisibleAt: e.at(0)}
	}
	return l.Add(e.ctx, entries, position)
}

// A rebuild's saved position outlives its lease (a node killed, a Store
// failure), so the next rebuild of the same state resumes there; Commit
// clears it.
func testProgressResumes(e *indexEnv) {
	q := sqs.IndexQueue{ID: uuid.New()}
	l := e.lock(q, time.Minute)
	e.progress(l, "")
	if err := e.leaseAdd(l, "p1", "a", "b"); err != nil {
		e.t.Fatal(err)
	}
	if err := e.leaseAdd(l, "", "c"); err != nil { // "" keeps the saved position
		e.t.Fatal(err)
	}
	l.Release()
	l2 := e.lock(q, time.Minute)
	e.progress(l2, "p1")
	if err := e.leaseAdd(l2, "p2", "d"); err != nil {
		e.t.Fatal(err)
	}
	if err := l2.Commit(e.ctx); err != nil {
		e.t.Fatal(err)
	}
	e.counts(q, 0, sqs.Counts{Visible: 4})
	l2.Release()
	l3 := e.lock(q, time.Minute)
	defer l3.Release()
	e.progress(l3, "")
}

// Whatever forgets a queue's state forgets the position with it.
func testProgressDropped(e *indexEnv) {
	q := sqs.IndexQueue{ID: uuid.New()}
	l := e.lock(q, time.Minute)
	if err := e.leaseAdd(l, "p1", "a"); err != nil {
		e.t.Fatal(err)
	}
	l.Release()
	if err := e.x.Drop(e.ctx, q); err != nil {
		e.t.Fatal(err)
	}
	l2 := e.lock(q, time.Minute)
	defer l2.Release()
	e.progress(l2, "")
}

// A lease that was lost adds nothing and saves no position.
func testLeaseAddAfterLoss(e *indexEnv) {
	q := sqs.IndexQueue{ID: uuid.New()}
	l := e.lock(q, time.Minute)
	defer l.Release()
	if err := e.x.Drop(e.ctx, q); err != nil { // ends the lease
		e.t.Fatal(err)
	}
	if err := e.leaseAdd(l, "p1", "a"); !errors.Is(err, sqs.ErrLeaseLost) {
		e.t.Fatalf("Add under a lost lease: %v, want ErrLeaseLost", err)
	}
	l2 := e.lock(q, time.Minute)
	defer l2.Release()
	e.progress(l2, "")
	if err := l2.Commit(e.ctx); err != nil {
		e.t.Fatal(err)
	}
	e.counts(q, 0, sqs.Counts{})
}
