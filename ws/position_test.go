package ws

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/cache"
)

// position is the (epoch, received_at, message_uuid) of a message frame,
// as a client sends it back in since.
func (f frame) position() map[string]any {
	m, _ := f["message"].(map[string]any)
	return map[string]any{"epoch": f["epoch"], "received_at": m["received_at"], "message_uuid": m["message_uuid"]}
}

func (f frame) offset() int { n, _ := f["offset"].(float64); return int(n) }

// TestMessageFramesCarryOffsetAndEpoch: every message frame of a
// subscription carries the next offset (1, 2, ...) across its recover
// phase and its live messages, and the store's epoch, which the
// subscribed reply and recovered frame also carry.
func TestMessageFramesCarryOffsetAndEpoch(t *testing.T) {
	e := newEnv(t, nil)
	epoch := e.svc.Epoch()
	if !cache.ValidEpoch(epoch) {
		t.Fatalf("store epoch %q", epoch)
	}
	since := time.Now().Add(-time.Second).UTC().Format(time.RFC3339Nano)
	for i := range 3 {
		e.put(t, "pos.a", fmt.Sprint(i))
	}
	c := e.dial(t)
	c.send(map[string]any{"type": "subscribe", "id": "s", "pattern": "pos.#", "mode": "recover", "since": since})
	if r := c.expect("subscribed"); r.str("epoch") != epoch {
		t.Fatalf("subscribed %v, want epoch %s", r, epoch)
	}
	want := map[string]int{"pos.#": 1, "pos.b": 1}
	check := func(f frame) {
		t.Helper()
		sub := f.str("subscription")
		if f.offset() != want[sub] || f.str("epoch") != epoch {
			t.Fatalf("frame %v: want offset %d and epoch %s", f, want[sub], epoch)
		}
		want[sub]++
	}
	for range 3 {
		check(c.expect("message"))
	}
	if r := c.expect("recovered"); r.str("epoch") != epoch || r["epoch_changed"] != nil {
		t.Fatalf("recovered %v", r)
	}
	// A second subscription numbers its own frames from 1.
	c.subscribe("l", "pos.b", nil)
	e.put(t, "pos.a", "live")
	e.put(t, "pos.b", "live to both")
	for range 3 {
		check(c.expect("message"))
	}
	if want["pos.#"] != 6 || want["pos.b"] != 2 {
		t.Fatalf("next offsets %v, want pos.# at 6 and pos.b at 2", want)
	}
}

// TestLiveOffsetsAreContiguousUnderConcurrentPuts: live frames shared by
// many subscriptions each get their own subscription's offsets, in order,
// with no gap or repeat, while puts race.
func TestLiveOffsetsAreContiguousUnderConcurrentPuts(t *testing.T) {
	e := newEnv(t, nil)
	const clients, writers, each = 4, 4, 50
	cs := make([]*client, clients)
	for i := range cs {
		cs[i] = e.dial(t)
		cs[i].subscribe("s", "race.#", nil)
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				e.put(t, fmt.Sprintf("race.w%d", w), fmt.Sprint(i))
			}
		})
	}
	wg.Wait()
	for i, c := range cs {
		seen := map[string]bool{}
		for n := 1; n <= writers*each; n++ {
			f := c.expect("message")
			if f.offset() != n || seen[f.msgID()] {
				t.Fatalf("client %d, frame %d: %v (offset %d, repeat %v)", i, n, f, f.offset(), seen[f.msgID()])
			}
			seen[f.msgID()] = true
		}
	}
}

// recoverIDs subscribes c to pattern with mode recover since since and
// returns the message_uuids recovered, checking their offsets, and the
// recovered frame.
func recoverIDs(t *testing.T, c *client, id, pattern string, since any) ([]string, frame) {
	t.Helper()
	c.subscribe(id, pattern, map[string]any{"mode": "recover", "since": since})
	var got []string
	for {
		f := c.next()
		if f.str("type") == "recovered" {
			return got, f
		}
		if f.offset() != len(got)+1 {
			t.Fatalf("frame %v: want offset %d", f, len(got)+1)
		}
		got = append(got, f.msgID())
	}
}

// TestRecoverSincePosition: since may be the position of the last message
// a client saw; Herald sends what follows it, and says when the position
// is of another epoch (the store was wiped or restored). Here without
// overlap (TestRecoverSincePositionOverlaps).
func TestRecoverSincePosition(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.RecoverOverlap = -1 })
	c := e.dial(t)
	c.subscribe("s", "p.#", nil)
	e.put(t, "p.1", "seen")
	seen := c.expect("message")
	missed := []string{e.put(t, "p.1", "a"), e.put(t, "p.2", "b")}

	tests := []struct {
		name        string
		since       func() map[string]any
		want        []string
		wantChanged bool
	}{
		{"strictly after the message", seen.position, missed, false},
		{"at received_at without message_uuid", func() map[string]any {
			p := seen.position()
			delete(p, "message_uuid")
			return p
		}, append([]string{seen.msgID()}, missed...), false},
		{"another epoch", func() map[string]any {
			p := seen.position()
			p["epoch"] = "00000000000000ff"
			return p
		}, missed, true},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rec := recoverIDs(t, e.dial(t), fmt.Sprint(i), "p.#", tc.since())
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("recovered %v, want %v", got, tc.want)
			}
			if rec["truncated"] != tc.wantChanged || (rec["epoch_changed"] == true) != tc.wantChanged {
				t.Fatalf("recovered %v, want truncated and epoch_changed %v", rec, tc.wantChanged)
			}
		})
	}
}

// TestRecoverSincePositionOverlaps: a recovery from a position starts
// RecoverOverlap before it, so that a message stored just before the
// client's last one, but delivered to it later (from another node), is not
// missed; the oldest message kept being within the overlap does not make
// the recovery truncated.
func TestRecoverSincePositionOverlaps(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.RecoverOverlap = time.Minute })
	before := e.put(t, "o.0", "stored before, delivered after")
	c := e.dial(t)
	c.subscribe("s", "o.#", nil)
	e.put(t, "o.1", "seen")
	seen := c.expect("message")
	after := e.put(t, "o.1", "missed")
	got, rec := recoverIDs(t, e.dial(t), "r", "o.#", seen.position())
	if want := []string{before, seen.msgID(), after}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("recovered %v, want %v", got, want)
	}
	if rec["truncated"] != false {
		t.Fatalf("recovered %v, want not truncated", rec)
	}
}

// TestRecoverSinceInvalidPosition: a malformed position is refused with
// invalid and the request's id, and no subscription is made.
func TestRecoverSinceInvalidPosition(t *testing.T) {
	e := newEnv(t, nil)
	c := e.dial(t)
	good := map[string]any{"epoch": e.svc.Epoch(), "received_at": time.Now().UTC().Format(time.RFC3339Nano)}
	with := func(k string, v any) map[string]any {
		p := map[string]any{}
		for k, v := range good {
			p[k] = v
		}
		p[k] = v
		return p
	}
	tests := map[string]any{
		"unknown member":   with("offset", 3),
		"epoch not hex":    with("epoch", "not-an-epoch!!!!"),
		"epoch missing":    with("epoch", ""),
		"time not RFC3339": with("received_at", "yesterday"),
		"uuid not v1":      with("message_uuid", "9b2f5e0a-5b2d-4c8e-9f1a-2b3c4d5e6f70"),
		"not an object":    []int{1},
	}
	for name, since := range tests {
		c.send(map[string]any{"type": "subscribe", "id": name, "pattern": "x.#", "mode": "recover", "since": since})
		if r := c.expect("error"); r.str("code") != "invalid" || r.str("id") != name {
			t.Errorf("%s: %v, want invalid", name, r)
		}
	}
	c.subscribe("ok", "x.#", map[string]any{"mode": "recover", "since": good})
	c.expect("recovered")
}

// interruptibleEvents is LocalEvents with a feed the test interrupts.
type interruptibleEvents struct {
	*cache.LocalEvents
	mu  sync.Mutex
	fns []func()
}

func (ev *interruptibleEvents) OnResume(fn func()) func() {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.fns = append(ev.fns, fn)
	return func() {}
}

func (ev *interruptibleEvents) resume() {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	for _, fn := range ev.fns {
		fn()
	}
}

// TestEventsResumeClosesSubscribers: when the node's event feed resumes
// after an interruption, connections holding pattern subscriptions are
// closed with 4009 (reconnect and recover); others stay open.
func TestEventsResumeClosesSubscribers(t *testing.T) {
	var ev *interruptibleEvents
	e := newEnv(t, func(c *Config) {
		ev = &interruptibleEvents{LocalEvents: c.Events.(*cache.LocalEvents)}
		c.Events = ev
	})
	sub, idle := e.dial(t), e.dial(t)
	sub.subscribe("s", "feed.#", nil)
	idle.send(map[string]any{"type": "query", "id": "q", "query": "latest", "pattern": "feed.#"})
	idle.expect("result") // the connection is up and registered
	ev.resume()
	if code := sub.closeCode(); code != CloseEventsInterrupted {
		t.Fatalf("close code %d, want %d", code, CloseEventsInterrupted)
	}
	if n := e.h.Stats().EventsInterrupted.Load(); n != 1 {
		t.Errorf("EventsInterrupted = %d, want 1", n)
	}
	idle.send(map[string]any{"type": "query", "id": "q2", "query": "latest", "pattern": "feed.#"})
	idle.expect("result")
}
