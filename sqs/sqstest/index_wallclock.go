package sqstest

import (
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

func testLockRebuild(e *indexEnv) {
	q := sqs.IndexQueue{ID: uuid.New()}
	unlock, ok, err := e.x.LockRebuild(e.ctx, q, time.Minute)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild of a free queue: ok %v, err %v", ok, err)
	}
	if _, ok, err := e.x.LockRebuild(e.ctx, q, time.Minute); err != nil || ok {
		e.t.Errorf("LockRebuild while held: ok %v, err %v; want not ok", ok, err)
	}
	other := sqs.IndexQueue{ID: uuid.New()}
	unlockOther, ok, err := e.x.LockRebuild(e.ctx, other, time.Minute)
	if err != nil || !ok {
		e.t.Errorf("LockRebuild of another queue: ok %v, err %v", ok, err)
	} else {
		defer unlockOther.Release()
	}
	unlock.Release()
	unlock2, ok, err := e.x.LockRebuild(e.ctx, q, time.Minute)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild after unlock: ok %v, err %v", ok, err)
	}
	unlock.Release() // a second unlock by the old holder must not release the new lease
	if _, ok, _ := e.x.LockRebuild(e.ctx, q, time.Minute); ok {
		e.t.Error("a stale unlock released another holder's lease")
	}
	unlock2.Release()
}

// leaseWait is the rebuild lease and deduplication window of the
// wall-clock subtests; they wait a little longer than that.
const leaseWait = 700 * time.Millisecond

func testLockRebuildExpiry(e *indexEnv) {
	q := sqs.IndexQueue{ID: uuid.New()}
	unlock, ok, err := e.x.LockRebuild(e.ctx, q, leaseWait)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild: ok %v, err %v", ok, err)
	}
	time.Sleep(leaseWait + 300*time.Millisecond)
	unlock2, ok, err := e.x.LockRebuild(e.ctx, q, time.Minute)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild after the lease expired: ok %v, err %v", ok, err)
	}
	unlock.Release() // expired: must not release the new holder's lease
	if _, ok, _ := e.x.LockRebuild(e.ctx, q, time.Minute); ok {
		e.t.Error("the expired holder's unlock released the new lease")
	}
	unlock2.Release()
}

func testDeduplicate(e *indexEnv) {
	q, other := sqs.IndexQueue{ID: uuid.New(), FIFO: true}, sqs.IndexQueue{ID: uuid.New(), FIFO: true}
	first, second, third := uuid.New(), uuid.New(), uuid.New()
	dedup := func(q sqs.IndexQueue, key string, id uuid.UUID, window time.Duration, want uuid.UUID, what string) {
		e.t.Helper()
		got, dup, err := e.x.Deduplicate(e.ctx, q, key, id, window)
		if err != nil {
			e.t.Fatalf("Deduplicate: %v", err)
		}
		switch {
		case want == uuid.Nil && dup:
			e.t.Errorf("%s: duplicate of %v, want none", what, got)
		case want != uuid.Nil && (!dup || got != want):
			e.t.Errorf("%s: %v, duplicate %v; want a duplicate of %v", what, got, dup, want)
		}
	}
	dedup(q, "k", first, leaseWait, uuid.Nil, "first record")
	dedup(q, "k", second, leaseWait, first, "same key within the window")
	dedup(q, "k2", second, leaseWait, uuid.Nil, "another key")
	dedup(other, "k", second, leaseWait, uuid.Nil, "same key in another queue")
	dedup(q, "k", third, leaseWait, first, "same key again")
	time.Sleep(leaseWait + 300*time.Millisecond)
	dedup(q, "k", third, time.Minute, uuid.Nil, "same key after the window")
	dedup(q, "k", first, time.Minute, third, "same key in the new window")
	// Keys are opaque strings.
	long := string(make([]byte, 128)) + "é:{}"
	dedup(q, long, first, time.Minute, uuid.Nil, "an odd key")
	dedup(q, long, second, time.Minute, first, "an odd key again")
}
