package ws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/cache"
)

func TestLiveRoundTrip(t *testing.T) {
	e := newEnv(t, nil)
	sub, pub := e.dial(t), e.dial(t)
	sub.subscribe("s1", "feeds.*", nil)
	pub.send(publishFrame("p1", "feeds.a", "hello"))
	r := pub.expect("published")
	if r.str("id") != "p1" || r.msgID() == "" {
		t.Fatalf("published reply %v", r)
	}
	m := sub.expect("message")
	if m.str("source") != "live" || m.str("path") != "feeds.a" || m.str("subscription") != "feeds.*" || m.msgID() != r.msgID() {
		t.Fatalf("message frame %v, want live feeds.a %s", m, r.msgID())
	}
	pub.send(map[string]any{"type": "ping", "id": "x"})
	pub.expect("pong")
}

func TestPatternFiltering(t *testing.T) {
	e := newEnv(t, nil)
	c := e.dial(t)
	c.subscribe("s", "a.*.c", nil)
	for _, p := range []string{"a.b", "a.b.c.d", "x.b.c", "a.z.c"} {
		e.put(t, p, p)
	}
	if m := c.expect("message"); m.str("path") != "a.z.c" {
		t.Fatalf("got %v, want only a.z.c", m)
	}
	c.quiet(200 * time.Millisecond)
}

func TestUnsubscribe(t *testing.T) {
	e := newEnv(t, nil)
	c := e.dial(t)
	c.subscribe("s", "a.#", nil)
	c.send(map[string]any{"type": "unsubscribe", "id": "u", "pattern": "a.#"})
	if r := c.expect("unsubscribed"); r.str("pattern") != "a.#" {
		t.Fatalf("reply %v", r)
	}
	e.put(t, "a.b", "x")
	c.quiet(200 * time.Millisecond)
	if n := e.events.Subscriptions(); n != 0 {
		t.Fatalf("%d subscriptions left", n)
	}
}

func TestLatestMode(t *testing.T) {
	e := newEnv(t, nil)
	e.put(t, "d.1", "old")
	want := map[string]string{"d.1": e.put(t, "d.1", "new"), "d.2": e.put(t, "d.2", "x")}
	e.put(t, "other", "y")
	c := e.dial(t)
	c.subscribe("s", "d.*", map[string]any{"mode": "latest"})
	for range 2 {
		m := c.expect("message")
		if m.str("source") != "latest" || want[m.str("path")] != m.msgID() {
			t.Fatalf("latest frame %v, want %v", m, want)
		}
		delete(want, m.str("path"))
	}
	if f := c.expect("latest_end"); f.str("subscription") != "d.*" || f["count"] != 2.0 || f["truncated"] != false || f["next_cursor"] != nil {
		t.Fatalf("latest_end %v, want count 2, not truncated, no cursor", f)
	}
	live := e.put(t, "d.3", "z")
	if m := c.expect("message"); m.str("source") != "live" || m.msgID() != live {
		t.Fatalf("live frame %v", m)
	}
}

// A latest subscription cut short by the most messages it may send says
// so in latest_end, with the cursor a query latest continues from.
func TestLatestTruncated(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxRecoverLimit = 2 })
	for _, p := range []string{"d.1", "d.2", "d.3"} {
		e.put(t, p, p)
	}
	c := e.dial(t)
	c.subscribe("s", "d.*", map[string]any{"mode": "latest"})
	c.expect("message")
	c.expect("message")
	f := c.expect("latest_end")
	if f["count"] != 2.0 || f["truncated"] != true || f.str("next_cursor") == "" {
		t.Fatalf("latest_end %v, want count 2, truncated, a cursor", f)
	}
	c.send(map[string]any{"type": "query", "id": "q", "query": "latest", "pattern": "d.*", "cursor": f.str("next_cursor")})
	r := c.expect("result")
	items, _ := r["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["path"] != "d.3" {
		t.Fatalf("the rest: %v, want d.3", r)
	}
}

func TestRecoverAcrossSeam(t *testing.T) {
	e := newEnv(t, nil)
	c := e.dial(t)
	c.subscribe("s", "dev.#", nil)
	e.put(t, "dev.1", "seen")
	last := c.expect("message").msgID()
	c.ws.Close(websocket.StatusNormalClosure, "")

	var missed []string
	for i := range 5 {
		missed = append(missed, e.put(t, "dev.1", fmt.Sprint(i)))
		e.put(t, "elsewhere", "no")
	}
	// Publish continuously while the client recovers: each message must
	// arrive exactly once, recovered or live.
	stop, done := make(chan struct{}), make(chan []string)
	go func() {
		var ids []string
		defer func() { done <- ids }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			m, _, err := e.svc.Put(context.Background(), cache.PutInput{Metadata: []byte(`{"paths":["dev.2"]}`)})
			if err != nil {
				return
			}
			ids = append(ids, m.ID.String())
			time.Sleep(time.Millisecond)
		}
	}()
	c2 := e.dial(t)
	c2.subscribe("r", "dev.#", map[string]any{"mode": "recover", "since": last})
	got := map[string]int{}
	var order []string
	var rec frame
	for rec == nil {
		f := c2.next()
		switch f.str("type") {
		case "message":
			if f.str("source") != "recover" {
				t.Fatalf("%v before recovered", f)
			}
			got[f.msgID()]++
			order = append(order, f.msgID())
		case "recovered":
			rec = f
		default:
			t.Fatalf("unexpected %v", f)
		}
	}
	if order[0] == last || len(order) < len(missed) {
		t.Fatalf("recovered %v, want to start with %v", order, missed)
	}
	for i, id := range missed {
		if order[i] != id {
			t.Fatalf("recovered %v, want %v first, oldest first", order, missed)
		}
	}
	if rec["truncated"] != false || int(rec["count"].(float64)) != len(order) {
		t.Fatalf("recovered frame %v after %d messages", rec, len(order))
	}
	time.Sleep(100 * time.Millisecond)
	close(stop)
	ids := <-done
	for len(got) < len(missed)+len(ids) {
		f := c2.expect("message")
		if f.str("source") != "live" {
			t.Fatalf("after recovered: %v", f)
		}
		got[f.msgID()]++
	}
	for id, n := range got {
		if n != 1 {
			t.Fatalf("message %s sent %d times", id, n)
		}
	}
	for _, id := range append(missed, ids...) {
		if got[id] != 1 {
			t.Fatalf("message %s missing", id)
		}
	}
	c2.quiet(200 * time.Millisecond)
}

func TestRecoverLimitTruncates(t *testing.T) {
	e := newEnv(t, nil)
	since := time.Now().Add(-time.Second).UTC().Format(time.RFC3339Nano)
	for i := range 4 {
		e.put(t, "a.b", fmt.Sprint(i))
	}
	c := e.dial(t)
	c.subscribe("s", "a.b", map[string]any{"mode": "recover", "since": since, "limit": 3})
	for range 3 {
		c.expect("message")
	}
	if r := c.expect("recovered"); r["truncated"] != true || r["count"] != 3.0 {
		t.Fatalf("recovered %v", r)
	}
}

func TestForbidden(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Authenticate = func(*http.Request) (access.Identity, error) {
			return access.Identity{Grants: access.Grants{Subscribe: []string{"dev.42.#"}, Publish: []string{"dev.42.#"}, Queues: []string{"mine"}}}, nil
		}
	})
	c := e.dial(t)
	tests := []map[string]any{
		{"type": "subscribe", "id": "1", "pattern": "dev.#"},
		publishFrame("2", "dev.43.x", "b"),
		{"type": "query", "id": "3", "query": "latest", "pattern": "#"},
	}
	for _, f := range tests {
		c.send(f)
		if r := c.expect("error"); r.str("code") != "forbidden" || r.str("id") != f["id"] {
			t.Fatalf("%v: %v", f, r)
		}
	}
	c.subscribe("4", "dev.42.#", nil)
	c.send(publishFrame("5", "dev.42.x", "b"))
	// The reply and the live event of the publish come in either order.
	if a, b := c.next().str("type"), c.next().str("type"); !(a == "published" && b == "message" || a == "message" && b == "published") {
		t.Fatalf("after publishing to its own subscription: %s then %s, want published and message", a, b)
	}
	c.send(map[string]any{"type": "subscribe_queue", "id": "6", "queue": "mine"})
	if r := c.expect("error"); r.str("code") != "unavailable" {
		t.Fatalf("subscribe_queue without push: %v", r)
	}
}

func TestAuthFailure(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Authenticate = func(*http.Request) (access.Identity, error) { return access.Identity{}, errors.New("token expired") }
	})
	c := e.dial(t)
	_, err := c.read(5 * time.Second)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != CloseAuthFailed || !strings.Contains(ce.Reason, "token expired") {
		t.Fatalf("got %v, want close 4501 with the reason", err)
	}
	if n := e.h.Stats().AuthFailures.Load(); n != 1 {
		t.Errorf("AuthFailures = %d, want 1", n)
	}
}

func TestMalformedFrames(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxMalformed = 3 })
	c := e.dial(t)
	c.sendRaw("not json")
	c.expect("error")
	c.send(map[string]any{"type": "nope", "id": "1"})
	if r := c.expect("error"); r.str("code") != "invalid_frame" || r.str("id") != "1" {
		t.Fatalf("unknown type: %v", r)
	}
	c.send(map[string]any{"type": "ping", "id": "2"}) // a good frame resets the count
	c.expect("pong")
	c.send(map[string]any{"type": "subscribe", "id": "3"})
	c.expect("error")
	c.send(map[string]any{"type": "subscribe", "id": "4", "pattern": "a..b"})
	if r := c.expect("error"); r.str("code") != "invalid" {
		t.Fatalf("bad pattern: %v", r) // a well-formed request: the count restarts
	}
	c.send(map[string]any{"id": "5"})
	c.expect("error")
	c.sendRaw("{")
	c.expect("error")
	c.sendRaw("[]") // the third in a row: closed instead of answered
	if code := c.closeCode(); code != websocket.StatusPolicyViolation {
		t.Fatalf("close %v, want 1008", code)
	}
}

func TestOversizedFrame(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxFrameBytes = 1024 })
	c := e.dial(t)
	c.sendRaw(`{"type":"ping","id":"` + strings.Repeat("x", 2000) + `"}`)
	if code := c.closeCode(); code != websocket.StatusMessageTooBig {
		t.Fatalf("close %v, want 1009", code)
	}
}

func TestSubscriptionLimit(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxSubscriptions = 2 })
	c := e.dial(t)
	c.subscribe("1", "a", nil)
	c.subscribe("2", "b", nil)
	c.send(map[string]any{"type": "subscribe", "id": "3", "pattern": "c"})
	if r := c.expect("error"); r.str("code") != "too_many_subscriptions" {
		t.Fatalf("third subscription: %v", r)
	}
}

func TestQuery(t *testing.T) {
	e := newEnv(t, nil)
	id := e.put(t, "q.a", "1")
	c := e.dial(t)
	for _, f := range []map[string]any{
		{"type": "query", "id": "1", "query": "latest", "pattern": "q.*"},
		{"type": "query", "id": "2", "query": "all", "path": "q.a"},
		{"type": "query", "id": "3", "query": "get", "message_uuid": id},
	} {
		c.send(f)
		r := c.expect("result")
		items, _ := r["items"].([]any)
		if r.str("id") != f["id"] || len(items) != 1 {
			t.Fatalf("%v: %v", f, r)
		}
	}
}

func TestSlowConsumer(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.SendQueueBytes = 1 << 20 })
	slow := e.dial(t)
	slow.subscribe("s", "big", nil)
	// Another subscriber of the same Events: it must get every event while
	// the slow client (which never reads) is cut off.
	got := make(chan struct{}, 1000)
	cancel, err := e.events.Subscribe("big", func(string, *cache.Message) { got <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	body := strings.Repeat("x", 64<<10)
	const n = 300 // about 26 MB of frames: more than the socket buffers hold
	for range n {
		m := &cache.Message{ID: uuid.Must(uuid.NewUUID()), Paths: []string{"big"}, Metadata: []byte(`{"paths":["big"]}`), Body: []byte(body)}
		if err := e.events.Publish(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	timeout := time.After(10 * time.Second)
	for i := range n {
		select {
		case <-got:
		case <-timeout:
			t.Fatalf("the other subscriber got %d of %d events: the dispatcher is blocked", i, n)
		}
	}
	if code := slow.closeCode(); code != CloseSlowConsumer {
		t.Fatalf("slow client closed with %v, want 4008", code)
	}
	if n := e.h.Stats().SlowConsumers.Load(); n != 1 {
		t.Errorf("SlowConsumers = %d, want 1", n)
	}
}

// A connection whose credential expires is closed then with 4003, not only
// checked at connect; it answers frames until that moment.
func TestTokenExpiryClosesTheConnection(t *testing.T) {
	expires := time.Now().Add(700 * time.Millisecond)
	e := newEnv(t, func(c *Config) {
		c.Authenticate = func(*http.Request) (access.Identity, error) {
			return access.Identity{Grants: access.AllowAll(), Expires: expires}, nil
		}
	})
	c := e.dial(t)
	c.send(map[string]any{"type": "ping", "id": "1"})
	c.expect("pong")
	for {
		_, err := c.read(5 * time.Second)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != CloseTokenExpired {
			t.Fatalf("got %v, want close 4003", err)
		}
		if time.Now().Before(expires) {
			t.Fatal("closed before the token expired")
		}
		return
	}
}

// TestRecoverFromBeforeEverythingIsNotTruncated: a recovery from a time
// older than anything stored, of fewer messages than its limit, none of
// which expired, sends them all and says nothing was missed.
func TestRecoverFromBeforeEverythingIsNotTruncated(t *testing.T) {
	e := newEnv(t, nil)
	since := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	for i := range 300 {
		e.put(t, fmt.Sprintf("feed.%d", i%7), fmt.Sprint(i))
	}
	c := e.dial(t)
	c.subscribe("s", "feed.*", map[string]any{"mode": "recover", "since": since, "limit": 1000})
	for range 300 {
		c.expect("message")
	}
	if r := c.expect("recovered"); r["truncated"] != false || r["count"] != 300.0 {
		t.Fatalf("recovered %v, want 300 and not truncated", r)
	}
}

// TestRecoverTruncatedWhenAMessageSinceExpired: a message received after
// the recovery's start that retention removed makes it truncated (here
// expired and waiting for the reaper, which this store does not run);
// from just after that message, nothing was missed.
func TestRecoverTruncatedWhenAMessageSinceExpired(t *testing.T) {
	e := newEnv(t, nil)
	since := time.Now().Add(-time.Second).UTC()
	one := int64(1)
	short, _, err := e.svc.Put(context.Background(), cache.PutInput{
		Metadata: json.RawMessage(`{"paths":["feed.x"]}`), Body: []byte("short"), TTL: &one})
	if err != nil {
		t.Fatal(err)
	}
	kept := e.put(t, "feed.y", "kept")
	eventually(t, "the short-lived message to expire", func() bool {
		_, err := e.svc.Get(context.Background(), short.ID.String())
		return herald.ErrorCode(err) == herald.ENotFound
	})
	recover := func(from time.Time) frame {
		c := e.dial(t)
		c.subscribe("s", "feed.*", map[string]any{"mode": "recover", "since": from.Format(time.RFC3339Nano)})
		if m := c.expect("message"); m.msgID() != kept {
			t.Fatalf("recovered %v, want %s", m, kept)
		}
		return c.expect("recovered")
	}
	if r := recover(since); r["truncated"] != true || r["count"] != 1.0 {
		t.Fatalf("from before the expired message: %v, want 1 and truncated", r)
	}
	if r := recover(short.ReceivedAt.Add(time.Millisecond)); r["truncated"] != false || r["count"] != 1.0 {
		t.Fatalf("from after the expired message: %v, want 1 and not truncated", r)
	}
}
