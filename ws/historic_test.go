package ws

import (
	"context"
	"testing"
	"time"

	"github.com/heraldmq/herald/cache"
)

// gatedJournal holds every journal read until its gate opens.
type gatedJournal struct {
	cache.Store
	gate chan struct{}
}

func (g gatedJournal) Journal(ctx context.Context, from, to time.Time, after cache.Position, limit int) ([]cache.Ref, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Store.Journal(ctx, from, to, after, limit)
}

// A recover subscription reads the cache off the reader: while its journal
// read is held, the connection still answers other frames; once it is
// released, the recovered messages and then live ones follow.
func TestRecoverDoesNotHoldTheReader(t *testing.T) {
	gate := make(chan struct{})
	e := newEnvOver(t, func(s cache.Store) cache.Store { return gatedJournal{s, gate} }, nil)
	since := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339Nano)
	missed := e.put(t, "feeds.a", "missed")
	c := e.dial(t)
	c.subscribe("r", "feeds.*", map[string]any{"mode": "recover", "since": since})
	c.send(map[string]any{"type": "ping", "id": "p"})
	if r := c.expect("pong"); r.str("id") != "p" {
		t.Fatalf("pong %v", r)
	}
	// Published while the recovery is held: it comes once, either in the
	// recovery (if the recovery's window began after it) or live after it.
	live := e.put(t, "feeds.b", "live")
	close(gate)
	if m := c.expect("message"); m.msgID() != missed || m.str("source") != sourceRecover {
		t.Fatalf("first message %v, want the missed %s from recover", m, missed)
	}
	f := c.next()
	count := float64(1)
	if f.str("type") == "message" {
		if f.msgID() != live || f.str("source") != sourceRecover {
			t.Fatalf("second frame %v, want the recovered %s or the recovered frame", f, live)
		}
		count, f = 2, c.next()
	}
	if f.str("type") != "recovered" || f["count"] != count {
		t.Fatalf("frame %v, want recovered with count %v", f, count)
	}
	if count == 1 {
		if m := c.expect("message"); m.msgID() != live || m.str("source") != sourceLive {
			t.Fatalf("then %v, want the live %s", m, live)
		}
	}
	c.quiet(200 * time.Millisecond) // and no duplicate
}

// Unsubscribing during the recovery ends it: nothing of it follows the
// unsubscribed reply.
func TestUnsubscribeEndsRecovery(t *testing.T) {
	gate := make(chan struct{})
	e := newEnvOver(t, func(s cache.Store) cache.Store { return gatedJournal{s, gate} }, nil)
	since := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339Nano)
	e.put(t, "feeds.a", "missed")
	c := e.dial(t)
	c.subscribe("r", "feeds.*", map[string]any{"mode": "recover", "since": since})
	c.send(map[string]any{"type": "unsubscribe", "id": "u", "pattern": "feeds.*"})
	c.expect("unsubscribed")
	close(gate)
	c.quiet(300 * time.Millisecond)
}
