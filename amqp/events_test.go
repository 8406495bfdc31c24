package amqp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	rabbit "github.com/rabbitmq/amqp091-go"

	"github.com/heraldmq/herald/cache"
)

func startEvents(t testing.TB, o Options, wait bool) *Events {
	t.Helper()
	e, err := NewEvents(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		e.Close(ctx)
	})
	if wait {
		if err := e.Ready(readyCtx(t)); err != nil {
			t.Fatalf("events not ready: %v", err)
		}
	}
	return e
}

// testMessage returns a stored-looking message under ps.
func testMessage(t testing.TB, body string, ps ...string) *cache.Message {
	t.Helper()
	id, err := uuid.NewUUID()
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{"paths": ps})
	now := time.Now().UTC().Truncate(time.Millisecond)
	return &cache.Message{ID: id, ReplicaID: id, Metadata: meta, Paths: ps, Body: []byte(body),
		ReceivedAt: now, ExpiresAt: now.Add(time.Hour)}
}

// recv returns the next delivery's event, failing after a while.
func recv(t testing.TB, ds <-chan rabbit.Delivery) (rabbit.Delivery, Event) {
	t.Helper()
	select {
	case d := <-ds:
		var ev Event
		if err := json.Unmarshal(d.Body, &ev); err != nil {
			t.Fatalf("event body %s: %v", d.Body, err)
		}
		return d, ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event arrived")
	}
	panic("unreachable")
}

func assertNone(t testing.TB, ds <-chan rabbit.Delivery) {
	t.Helper()
	select {
	case d := <-ds:
		t.Errorf("unexpected event %q: %s", d.RoutingKey, d.Body)
	case <-time.After(200 * time.Millisecond):
	}
}

func TestEventsRoutedByPath(t *testing.T) {
	url := amqpURL(t)
	o := testOptions(t, url)
	e := startEvents(t, o, true)
	ch := testChannel(t, url)
	one := tapQueue(t, ch, o.EventsExchange, "feeds.*")
	any := tapQueue(t, ch, o.EventsExchange, "feeds.#")

	m := testMessage(t, "news", "feeds.a", "feeds.a.b", "other.c")
	if err := e.Publish(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	d, ev := recv(t, one)
	if d.RoutingKey != "feeds.a" || ev.Path != "feeds.a" || d.DeliveryMode != rabbit.Persistent ||
		d.MessageId != m.ID.String() || ev.MessageUUID != m.ID.String() || string(ev.Body) != "news" ||
		string(ev.Metadata) != string(m.Metadata) || ev.ReceivedAt != m.ReceivedAt.Format("2006-01-02T15:04:05.000Z07:00") {
		t.Errorf("feeds.* got %q %+v", d.RoutingKey, ev)
	}
	assertNone(t, one)
	var got []string
	for range 2 {
		d, ev := recv(t, any)
		if d.RoutingKey != ev.Path {
			t.Errorf("routing key %q carries path %q", d.RoutingKey, ev.Path)
		}
		got = append(got, ev.Path)
	}
	sort.Strings(got)
	if fmt.Sprint(got) != "[feeds.a feeds.a.b]" {
		t.Errorf("feeds.# got %v", got)
	}
	assertNone(t, any)
	waitFor(t, 5*time.Second, "3 confirmations", func() bool { s := e.Stats(); return s.Confirmed == 3 && s.Buffered == 0 })
}

// collector gathers what a subscriber receives.
type collector struct {
	mu  sync.Mutex
	got []string // path/body
}

func (c *collector) fn(path string, m *cache.Message) {
	c.mu.Lock()
	c.got = append(c.got, path+"/"+string(m.Body))
	c.mu.Unlock()
}

func (c *collector) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got...)
}

func TestEventsFanOutAcrossNodes(t *testing.T) {
	url := amqpURL(t)
	o := testOptions(t, url)
	a := startEvents(t, o, true)
	b := startEvents(t, o, true)

	var star, star2, hash collector
	cancelStar, err := b.Subscribe("feeds.*", star.fn)
	if err != nil {
		t.Fatal(err)
	}
	cancelStar2, err := b.Subscribe("feeds.*", star2.fn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe("bad..pattern", star.fn); err == nil {
		t.Error("an invalid pattern was accepted")
	}

	pub := func(body string, ps ...string) {
		t.Helper()
		if err := a.Publish(context.Background(), testMessage(t, body, ps...)); err != nil {
			t.Fatal(err)
		}
	}
	pub("1", "feeds.x", "other.y", "feeds.x.deep")
	waitFor(t, 5*time.Second, "node B's subscribers", func() bool { return len(star.list()) == 1 && len(star2.list()) == 1 })
	if got := star.list(); got[0] != "feeds.x/1" {
		t.Errorf("feeds.* subscriber got %v", got)
	}

	cancelStar() // the other subscriber keeps the binding
	pub("2", "feeds.x")
	waitFor(t, 5*time.Second, "the remaining subscriber", func() bool { return len(star2.list()) == 2 })
	cancelStar2() // the last one: unbound
	cancelStar2() // cancelling twice is harmless

	if _, err := b.Subscribe("other.#", hash.fn); err != nil {
		t.Fatal(err)
	}
	before := b.Stats()
	pub("3", "feeds.x", "other.y")
	waitFor(t, 5*time.Second, "other.# subscriber", func() bool { return len(hash.list()) == 1 })
	time.Sleep(200 * time.Millisecond)
	after := b.Stats()
	if got := after.Received - before.Received; got != 1 || after.Unmatched != before.Unmatched {
		t.Errorf("node B received %d events (%d unmatched) after unbinding feeds.*, want just other.y", got, after.Unmatched-before.Unmatched)
	}
	if len(star.list()) != 1 || len(star2.list()) != 2 {
		t.Errorf("cancelled subscribers still receive: %v %v", star.list(), star2.list())
	}
}

func TestEventsSurviveAnOutage(t *testing.T) {
	url := amqpURL(t)
	o := testOptions(t, url)
	px, viaProxy := newProxy(t, url)
	po := o
	po.URL = viaProxy
	a := startEvents(t, po, true)
	b := startEvents(t, o, true) // straight to the broker
	ch := testChannel(t, url)
	tap := tapQueue(t, ch, o.EventsExchange, "out.#")

	var sub collector
	if _, err := a.Subscribe("live.#", sub.fn); err != nil {
		t.Fatal(err)
	}

	const n = 3000
	want := map[string]bool{}
	for i := range n {
		m := testMessage(t, fmt.Sprint(i), fmt.Sprintf("out.%d", i))
		want[m.ID.String()] = true
		if err := a.Publish(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		if i == n/3 {
			px.cut()
		}
		if i == n/2 {
			time.Sleep(300 * time.Millisecond)
			px.restore()
		}
	}
	seen := map[string]bool{}
	deadline := time.After(30 * time.Second)
	for len(seen) < n {
		select {
		case d := <-tap:
			if want[d.MessageId] {
				seen[d.MessageId] = true
			}
		case <-deadline:
			t.Fatalf("%d of %d events arrived; stats %+v", len(seen), n, a.Stats())
		}
	}
	waitFor(t, 10*time.Second, "an empty buffer", func() bool { return a.Stats().Buffered == 0 })
	t.Logf("stats after the outage: %+v", a.Stats())

	// The subscription is bound again on the new connection: events from
	// node B reach it.
	waitFor(t, 10*time.Second, "the re-bound subscription", func() bool {
		b.Publish(context.Background(), testMessage(t, "again", "live.x"))
		time.Sleep(50 * time.Millisecond)
		return len(sub.list()) > 0
	})
}

func TestEventsBufferBlocksWhileTheBrokerIsUnreachable(t *testing.T) {
	url := amqpURL(t)
	o := testOptions(t, url)
	px, viaProxy := newProxy(t, url)
	px.cut()
	po := o
	po.URL, po.PublishBuffer = viaProxy, 5
	a := startEvents(t, po, false)
	ch := testChannel(t, url)
	tap := tapQueue(t, ch, o.EventsExchange, "blk.#")

	for i := range 5 {
		if err := a.Publish(context.Background(), testMessage(t, "", fmt.Sprintf("blk.%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := a.Publish(ctx, testMessage(t, "", "blk.late")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("publishing into a full buffer: err = %v, want a deadline", err)
	}
	if s := a.Stats(); s.Buffered != 5 || s.Capacity != 5 || s.Blocked != 1 || s.Dropped != 1 {
		t.Errorf("stats = %+v", s)
	}

	px.restore()
	for range 5 {
		recv(t, tap)
	}
	waitFor(t, 5*time.Second, "an empty buffer", func() bool { return a.Stats().Buffered == 0 })
	if err := a.Publish(context.Background(), testMessage(t, "", "blk.after")); err != nil {
		t.Fatal(err)
	}
	if d, _ := recv(t, tap); d.RoutingKey != "blk.after" {
		t.Errorf("got %q after the restore", d.RoutingKey)
	}
}
