package ws

import (
	"context"
	"sync"
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

// An unsubscribe that comes while a recovered frame is being queued is
// followed by no frame of the subscription: not that frame, not the rest
// of the recovery, not the recovered frame, not the live events buffered
// meanwhile (docs/websocket.md, "Recovery without gap or duplicate"). The
// hooks pin the interleaving: the recovery holds its first frame until the
// unsubscribe has cancelled the subscription.
func TestUnsubscribeDuringRecoveredFrame(t *testing.T) {
	for _, mode := range []string{"recover", "latest"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, nil)
			since := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339Nano)
			for _, p := range []string{"feeds.a", "feeds.b", "feeds.c"} {
				e.put(t, p, "missed")
			}
			atFrame, stopping, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
			var once sync.Once
			e.h.hooks.phaseFrame = func() {
				once.Do(func() {
					close(atFrame)
					<-release
				})
			}
			e.h.hooks.stopping = func() { close(stopping) }
			c := e.dial(t)
			c.subscribe("r", "feeds.*", map[string]any{"mode": mode, "since": since})
			<-atFrame
			live := e.put(t, "feeds.d", "buffered while the recovery is held")
			c.send(map[string]any{"type": "unsubscribe", "id": "u", "pattern": "feeds.*"})
			<-stopping
			close(release)
			// At most the frame held when the unsubscribe came, then the
			// reply, then nothing of the subscription.
			f := c.next()
			if f.str("type") == "message" {
				if f.str("source") != mode || f.msgID() == live {
					t.Fatalf("before unsubscribed: %v, want at most one %s frame", f, mode)
				}
				f = c.next()
			}
			if f.str("type") != "unsubscribed" || f.str("id") != "u" {
				t.Fatalf("got %v, want unsubscribed", f)
			}
			c.send(map[string]any{"type": "ping", "id": "p"})
			if f := c.next(); f.str("type") != "pong" {
				t.Fatalf("after unsubscribed: %v, want only the pong", f)
			}
			e.put(t, "feeds.e", "after")
			c.quiet(100 * time.Millisecond)
		})
	}
}
