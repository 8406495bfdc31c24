package redisindex

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heraldmq/herald"
)

// Breaker is a circuit breaker around one Redis, shared by a node's Index
// and Notifier. After Threshold consecutive calls fail as unavailable, it
// opens: calls fail at once (herald.EUnavailable, so the SQS service serves
// from the Store) instead of each waiting out the timeout. After a back-off
// (1 s, doubling up to 30 s) one call probes Redis; its success closes the
// breaker, its failure opens it again. Entering and leaving this degraded
// mode is logged at WARN.
type Breaker struct {
	threshold  int
	minBackoff time.Duration
	maxBackoff time.Duration
	now        func() time.Time
	log        *slog.Logger

	mu        sync.Mutex
	failures  int
	open      bool
	probing   bool
	openUntil time.Time
	backoff   time.Duration
	since     time.Time

	// Counters for metrics.
	Degraded  atomic.Bool  // the breaker is open
	Opens     atomic.Int64 // times it opened (entered degraded mode)
	FastFails atomic.Int64 // calls refused at once while open
}

// BreakerOptions tune a Breaker; zero values take the defaults.
type BreakerOptions struct {
	Threshold  int           // consecutive failures that open it (3)
	MinBackoff time.Duration // first back-off (1 s)
	MaxBackoff time.Duration // longest back-off (30 s)
	Logger     *slog.Logger  // nil: slog.Default()
	Clock      func() time.Time
}

// NewBreaker returns a closed Breaker.
func NewBreaker(o BreakerOptions) *Breaker {
	b := &Breaker{threshold: o.Threshold, minBackoff: o.MinBackoff, maxBackoff: o.MaxBackoff, now: o.Clock, log: o.Logger}
	if b.threshold <= 0 {
		b.threshold = 3
	}
	if b.minBackoff <= 0 {
		b.minBackoff = time.Second
	}
	if b.maxBackoff < b.minBackoff {
		b.maxBackoff = max(30*time.Second, b.minBackoff)
	}
	if b.now == nil {
		b.now = time.Now
	}
	if b.log == nil {
		b.log = slog.Default()
	}
	return b
}

// errCircuitOpen is the cause of calls refused while the breaker is open.
var errCircuitOpen = errors.New("redis circuit breaker open: Redis failed repeatedly; retrying after a back-off")

// allow reports whether a call may go to Redis now; probe is true for the
// one call let through to test a Redis that failed.
func (b *Breaker) allow() (ok, probe bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return true, false
	}
	if b.probing || b.now().Before(b.openUntil) {
		b.FastFails.Add(1)
		return false, false
	}
	b.probing = true
	return true, true
}

// record notes the outcome of a call that went to Redis.
func (b *Breaker) record(err error, probe bool) {
	if errors.Is(err, context.Canceled) {
		// The caller left; Redis said nothing either way.
		if probe {
			b.mu.Lock()
			b.probing = false
			b.mu.Unlock()
		}
		return
	}
	failed := herald.ErrorCode(err) == herald.EUnavailable
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
	}
	if !failed {
		b.failures = 0
		if b.open {
			b.open = false
			b.Degraded.Store(false)
			b.log.Warn("redis is back: leaving degraded mode", "degraded_for", b.now().Sub(b.since).Round(time.Millisecond))
		}
		return
	}
	b.failures++
	switch {
	case b.open && probe:
		// The probe failed: wait twice as long before the next one.
		b.backoff = min(2*b.backoff, b.maxBackoff)
		b.openUntil = b.now().Add(b.backoff)
	case b.open:
		// A call that was already in flight when the breaker opened: it
		// tells nothing new, and must not push the next probe back.
	case b.failures >= b.threshold:
		b.open, b.since, b.backoff = true, b.now(), b.minBackoff
		b.openUntil = b.since.Add(b.backoff)
		b.Degraded.Store(true)
		b.Opens.Add(1)
		b.log.Warn("redis unavailable: entering degraded mode (queues served from the store; calls to redis fail fast until it answers again)",
			"failures", b.failures, "err", err)
	}
}

// do runs one call through the breaker (nil: straight through).
func (b *Breaker) do(op string, f func() error) error {
	if b == nil {
		return f()
	}
	ok, probe := b.allow()
	if !ok {
		return herald.Unavailable(op, errCircuitOpen)
	}
	err := f()
	b.record(err, probe)
	return err
}
