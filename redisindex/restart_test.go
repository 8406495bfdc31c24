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
	redisAddr(t) // same skip / fail rules as the shared Redis
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed (scripts/services installs it)")
		}
		t.Skip("redis-server not installed")
	}
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
	c := redis.NewClient(&redis.Options{Addr: r.addr})
	defer c.Close()
	for deadline := time.Now().Add(5 * time.Second); ; {
		if c.Ping(context.Background()).Err() == nil {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("private redis-server on %s does not answer", r.addr)
		}
		time.Sleep(20 * time.Millisecond)
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
