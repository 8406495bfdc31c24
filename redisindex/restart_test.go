package redisindex

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald/sqs"
)

// privateRedis is a redis-server of the test's own, so that it can be
// stopped and started without disturbing the shared one.
type privateRedis struct {
	t    testing.TB
	addr string
	cmd  *exec.Cmd
}

func startPrivateRedis(t testing.TB) *privateRedis {
	t.Helper()
	requireRedisCommands(t, "redis-server")
	r := &privateRedis{t: t, addr: deadAddr(t)}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *privateRedis) start() {
	r.t.Helper()
	port := r.addr[strings.LastIndexByte(r.addr, ':')+1:]
	r.cmd = exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", r.t.TempDir())
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	waitFor(r.t, "the private redis-server on "+r.addr, pings(r.addr))
}

// requireRedisCommands skips the test (fails it under CI) unless the
// shared Redis answers and cmds are installed.
func requireRedisCommands(t testing.TB, cmds ...string) {
	t.Helper()
	redisAddr(t) // same skip / fail rules as the shared Redis
	for _, cmd := range cmds {
		if _, err := exec.LookPath(cmd); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (scripts/services installs it)", cmd)
			}
			t.Skipf("%s not installed", cmd)
		}
	}
}

// pings reports whether a Redis answers PING at addr.
func pings(addr string) func() bool {
	return func() bool {
		c := redis.NewClient(&redis.Options{Addr: addr})
		defer c.Close()
		return c.Ping(context.Background()).Err() == nil
	}
}

// waitFor polls ok for up to 15 s.
func waitFor(t testing.TB, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (r *privateRedis) stop() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.cmd = nil
}

func TestRestartedRedis(t *testing.T) {
	r := startPrivateRedis(t)
	client := func() redis.UniversalClient {
		c := redis.NewUniversalClient(ClientOptions(r.addr))
		t.Cleanup(func() { c.Close() })
		return c
	}
	ix := New(client(), Options{})
	waiting := NewNotifier(client(), Options{})
	t.Cleanup(func() { waiting.Close() })
	sending := NewNotifier(client(), Options{})
	t.Cleanup(func() { sending.Close() })
	ctx := context.Background()
	q := sqs.IndexQueue{ID: uuid.New()}
	if err := ix.MarkBuilt(ctx, q); err != nil {
		t.Fatal(err)
	}
	ch, cancel := waiting.Wait(q.ID)
	defer cancel()
	waitSubscribers(t, client(), channelOf(defaultPrefix, q.ID), 1)

	r.stop()
	r.start()

	// The queue state is gone: the Index says so rather than "empty".
	if _, err := ix.Counts(ctx, q, at(0)); !errors.Is(err, sqs.ErrNotBuilt) {
		t.Fatalf("Counts after a restart: err = %v, want ErrNotBuilt", err)
	}
	// The scripts are gone too: EVALSHA falls back to EVAL.
	if err := ix.MarkBuilt(ctx, q); err != nil {
		t.Fatalf("MarkBuilt after a restart: %v", err)
	}
	// The waiting node subscribes again on its own.
	waitSubscribers(t, client(), channelOf(defaultPrefix, q.ID), 1)
	sending.Notify(ctx, q.ID)
	if !isClosed(ch, 2*time.Second) {
		t.Fatal("no wakeup across nodes after a Redis restart")
	}
}

// TestRestartMidRebuildEndsTheLease: Redis restarts empty while a rebuild
// is adding a queue's messages; the rebuild's later adds land in the empty
// Redis, and its Commit must fail, or the queue would be marked built with
// only those (the stranding seen under Redis kills).
func TestRestartMidRebuildEndsTheLease(t *testing.T) {
	r := startPrivateRedis(t)
	c := redis.NewUniversalClient(ClientOptions(r.addr))
	t.Cleanup(func() { c.Close() })
	ix := New(c, Options{})
	ctx := context.Background()
	q := sqs.IndexQueue{ID: uuid.New()}
	lease, ok, err := ix.LockRebuild(ctx, q, time.Minute)
	if err != nil || !ok {
		t.Fatalf("LockRebuild: ok %v, err %v", ok, err)
	}
	defer lease.Release()
	entry := func() []sqs.Entry { return []sqs.Entry{{ID: uuid.New(), VisibleAt: at(0)}} }
	if err := ix.Add(ctx, q, entry()); err != nil {
		t.Fatal(err)
	}
	r.stop()
	r.start()
	if err := ix.Add(ctx, q, entry()); err != nil {
		t.Fatalf("Add after the restart: %v", err)
	}
	if err := lease.Commit(ctx); !errors.Is(err, sqs.ErrLeaseLost) {
		t.Fatalf("Commit after a restart mid-rebuild: %v, want ErrLeaseLost", err)
	}
	if _, err := ix.Counts(ctx, q, at(0)); !errors.Is(err, sqs.ErrNotBuilt) {
		t.Fatalf("Counts: %v, want ErrNotBuilt (a partial rebuild is not built)", err)
	}
}
