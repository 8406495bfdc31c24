package redisindex

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// deadAddr returns an address where nothing listens (a port just freed).
func deadAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestUnreachableRedisIsUnavailableQuickly(t *testing.T) {
	c := redis.NewUniversalClient(ClientOptions(deadAddr(t)))
	t.Cleanup(func() { c.Close() })
	ix := New(c, Options{Timeout: 200 * time.Millisecond})
	ctx := context.Background()
	q := standardQueue()
	ops := []struct {
		name string
		run  func() error
	}{
		{"Add", func() error { return ix.Add(ctx, q, []sqs.Entry{{ID: uuid.New()}}) }},
		{"Receive", func() error {
			_, err := ix.Receive(ctx, q, sqs.ReceiveRequest{Now: at(0), Max: 1, Until: at(1)})
			return err
		}},
		{"Remove", func() error { return ix.Remove(ctx, q, newIDs(1)) }},
		{"SetVisibleAt", func() error { return ix.SetVisibleAt(ctx, q, uuid.New(), 0, at(0), at(1)) }},
		{"Counts", func() error { _, err := ix.Counts(ctx, q, at(0)); return err }},
		{"Drop", func() error { return ix.Drop(ctx, q) }},
		{"MarkBuilt", func() error { return ix.MarkBuilt(ctx, q) }},
		{"LockRebuild", func() error { _, _, err := ix.LockRebuild(ctx, q, time.Second); return err }},
		{"Deduplicate", func() error { _, _, err := ix.Deduplicate(ctx, q, "k", uuid.New(), time.Second); return err }},
	}
	for _, op := range ops {
		start := time.Now()
		err := op.run()
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s took %v against a dead Redis", op.name, took)
		}
		if code := herald.ErrorCode(err); code != herald.EUnavailable {
			t.Errorf("%s: err = %v (code %q), want %q", op.name, err, code, herald.EUnavailable)
		}
	}
}

func TestNotifierWithoutRedis(t *testing.T) {
	c := redis.NewUniversalClient(ClientOptions(deadAddr(t)))
	t.Cleanup(func() { c.Close() })
	n := NewNotifier(c, Options{Timeout: 100 * time.Millisecond})
	t.Cleanup(func() { n.Close() })
	id := uuid.New()

	start := time.Now()
	ch, cancel := n.Wait(id)
	defer cancel()
	if took := time.Since(start); took > 50*time.Millisecond {
		t.Fatalf("Wait took %v with Redis down", took)
	}
	n.Notify(context.Background(), id) // publishes in vain, wakes locally
	select {
	case <-ch:
	case <-time.After(time.Second):
		t.Fatal("a local Notify did not wake the waiter while Redis is down")
	}
}
