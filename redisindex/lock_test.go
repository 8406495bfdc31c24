package redisindex

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

func TestLockRebuildExclusive(t *testing.T) {
	ix := newIndex(t, Options{})
	other := New(newClient(t), Options{Prefix: ix.prefix}) // another node
	ctx := context.Background()
	q := standardQueue()

	unlock, ok, err := ix.LockRebuild(ctx, q, time.Minute)
	if err != nil || !ok {
		t.Fatalf("first lock: ok %v, err %v", ok, err)
	}
	if _, ok, err := other.LockRebuild(ctx, q, time.Minute); err != nil || ok {
		t.Fatalf("second lock while held: ok %v, err %v; want refused", ok, err)
	}
	if _, ok, _ := other.LockRebuild(ctx, standardQueue(), time.Minute); !ok {
		t.Fatal("lock of another queue refused")
	}
	unlock.Release()
	unlock2, ok, err := other.LockRebuild(ctx, q, time.Minute)
	if err != nil || !ok {
		t.Fatalf("lock after unlock: ok %v, err %v", ok, err)
	}
	// A stale unlock (the first holder's) must not free the new holder's lock.
	unlock.Release()
	if _, ok, _ := ix.LockRebuild(ctx, q, time.Minute); ok {
		t.Fatal("a stale unlock freed another holder's lock")
	}
	unlock2.Release()
}

func TestLockRebuildLeaseRunsOut(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := standardQueue()
	if _, ok, err := ix.LockRebuild(ctx, q, 100*time.Millisecond); err != nil || !ok {
		t.Fatalf("lock: ok %v, err %v", ok, err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, ok, err := ix.LockRebuild(ctx, q, time.Minute); err != nil || !ok {
		t.Fatalf("lock after the lease ran out: ok %v, err %v", ok, err)
	}
}

func TestDeduplicate(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q, other := fifoQueue(), fifoQueue()
	first, second := uuid.New(), uuid.New()

	check := func(name string, q2 sqs.IndexQueue, key string, id uuid.UUID, wantDup bool, wantExisting uuid.UUID) {
		t.Helper()
		existing, dup, err := ix.Deduplicate(ctx, q2, key, id, 200*time.Millisecond)
		if err != nil || dup != wantDup || existing != wantExisting {
			t.Fatalf("%s: existing %v, dup %v, err %v; want %v, %v", name, existing, dup, err, wantExisting, wantDup)
		}
	}
	check("first send", q, "k", first, false, uuid.Nil)
	check("repeat", q, "k", second, true, first)
	check("other key", q, "k2", second, false, uuid.Nil)
	check("other queue", other, "k", second, false, uuid.Nil)
	time.Sleep(300 * time.Millisecond)
	check("after the window", q, "k", second, false, uuid.Nil)
	check("repeat in the new window", q, "k", first, true, second)
}
