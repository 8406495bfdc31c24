package redisindex

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald"
	"github.com/redis/go-redis/v9"
)

type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestBreakerOpensFailsFastProbesAndCloses(t *testing.T) {
	clock := &manualClock{t: time.Unix(1_000_000, 0)}
	b := NewBreaker(BreakerOptions{Threshold: 3, MinBackoff: time.Second, MaxBackoff: 4 * time.Second,
		Clock: clock.now, Logger: slog.New(slog.DiscardHandler)})
	down := herald.Unavailable("op", errors.New("connection refused"))
	calls := 0
	call := func(result error) error {
		return b.do("op", func() error { calls++; return result })
	}
	// Two failures: still closed. A success resets the count.
	call(down)
	call(down)
	call(nil)
	call(down)
	call(down)
	if b.Degraded.Load() {
		t.Fatal("opened before 3 consecutive failures")
	}
	call(down) // the third in a row
	if !b.Degraded.Load() || b.Opens.Load() != 1 {
		t.Fatalf("degraded %v, opens %d after 3 failures", b.Degraded.Load(), b.Opens.Load())
	}
	// While open: refused at once, without calling Redis.
	before := calls
	for range 5 {
		if err := call(nil); herald.ErrorCode(err) != herald.EUnavailable {
			t.Fatalf("call while open: %v, want unavailable", err)
		}
	}
	if calls != before || b.FastFails.Load() != 5 {
		t.Fatalf("calls %d (was %d), fast fails %d", calls, before, b.FastFails.Load())
	}
	// After the back-off one probe goes through; it fails: open for twice
	// as long.
	clock.advance(time.Second)
	call(down)
	if calls != before+1 || !b.Degraded.Load() {
		t.Fatalf("the probe: calls %d, degraded %v", calls, b.Degraded.Load())
	}
	clock.advance(time.Second)
	if err := call(nil); calls != before+1 || herald.ErrorCode(err) != herald.EUnavailable {
		t.Fatal("a call went through before the doubled back-off ended")
	}
	clock.advance(time.Second)
	if err := call(nil); err != nil || b.Degraded.Load() {
		t.Fatalf("a successful probe: %v, degraded %v", err, b.Degraded.Load())
	}
	// Closed again: calls go through.
	if err := call(nil); err != nil {
		t.Fatal(err)
	}
	// A caller that leaves is no failure.
	for range 5 {
		call(herald.Unavailable("op", context.Canceled))
	}
	if b.Degraded.Load() {
		t.Fatal("cancelled calls opened the breaker")
	}
}

// With a real Index whose Redis is gone, the breaker turns 500 ms timeouts
// into immediate refusals.
func TestBreakerSparesTheTimeout(t *testing.T) {
	b := NewBreaker(BreakerOptions{Logger: slog.New(slog.DiscardHandler), MinBackoff: time.Minute})
	ix := New(newDeadClient(t), Options{Breaker: b, Timeout: 300 * time.Millisecond})
	ctx := context.Background()
	for range 3 {
		if _, err := ix.Counts(ctx, standardQueue(), time.Now()); herald.ErrorCode(err) != herald.EUnavailable {
			t.Fatalf("Counts on a dead Redis: %v", err)
		}
	}
	if !b.Degraded.Load() {
		t.Fatal("not degraded after 3 failures")
	}
	start := time.Now()
	for range 20 {
		if _, err := ix.Counts(ctx, standardQueue(), time.Now()); herald.ErrorCode(err) != herald.EUnavailable {
			t.Fatalf("Counts while open: %v", err)
		}
	}
	if took := time.Since(start); took > 200*time.Millisecond {
		t.Fatalf("20 calls while open took %s; each should fail at once", took)
	}
}

// newDeadClient is a client of a "Redis" that accepts connections and
// never answers, as a hung or partitioned one does: each call waits for
// its timeout.
func newDeadClient(t *testing.T) redis.UniversalClient {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	c := redis.NewUniversalClient(ClientOptions(l.Addr().String()))
	t.Cleanup(func() {
		c.Close()
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return c
}

// Failures of calls already in flight when the breaker opened do not push
// the next probe back: only a failed probe doubles the back-off.
func TestBreakerStragglersDoNotExtendTheBackoff(t *testing.T) {
	clock := &manualClock{t: time.Unix(1_000_000, 0)}
	b := NewBreaker(BreakerOptions{Threshold: 3, MinBackoff: time.Second, MaxBackoff: 30 * time.Second,
		Clock: clock.now, Logger: slog.New(slog.DiscardHandler)})
	down := herald.Unavailable("op", errors.New("connection refused"))
	// Eight concurrent callers: all pass the closed breaker, then fail.
	var probes [8]bool
	for i := range probes {
		ok, probe := b.allow()
		if !ok {
			t.Fatal("a closed breaker refused a call")
		}
		probes[i] = probe
	}
	for i := range probes {
		b.record(down, probes[i])
	}
	if !b.Degraded.Load() {
		t.Fatal("not open after 8 failures")
	}
	clock.advance(time.Second)
	if ok, probe := b.allow(); !ok || !probe {
		t.Fatal("no probe one back-off (1 s) after opening: the stragglers pushed it back")
	}
}
