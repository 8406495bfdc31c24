package cache_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// newLocalEvents starts a LocalEvents closed when the test ends.
func newLocalEvents(t testing.TB, opts cache.LocalEventsOptions) *cache.LocalEvents {
	t.Helper()
	e := cache.NewLocalEvents(opts)
	t.Cleanup(func() { e.Close() })
	return e
}

var eventSeq atomic.Uint32

// eventMsg returns a message under ps with a fresh id.
func eventMsg(ps ...string) *cache.Message {
	return &cache.Message{ID: v1At(time.Now(), uint16(eventSeq.Add(1))), Paths: ps}
}

// event is one delivered (path, message) pair.
type event struct {
	path string
	m    *cache.Message
}

// collector records the events of one subscription.
type collector struct {
	mu  sync.Mutex
	got []event
}

func (c *collector) add(path string, m *cache.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, event{path, m})
}

func (c *collector) events() []event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.got)
}

func (c *collector) paths() []string {
	var ps []string
	for _, ev := range c.events() {
		ps = append(ps, ev.path)
	}
	return ps
}

// subscribe subscribes a new collector to pattern, cancelled when the test
// ends.
func subscribe(t *testing.T, e cache.Events, pattern string) *collector {
	t.Helper()
	c := &collector{}
	cancel, err := e.Subscribe(pattern, c.add)
	if err != nil {
		t.Fatalf("Subscribe(%q): %v", pattern, err)
	}
	t.Cleanup(cancel)
	return c
}

// publish publishes m and fails the test on error.
func publish(t *testing.T, e cache.Events, m *cache.Message) {
	t.Helper()
	if err := e.Publish(context.Background(), m); err != nil {
		t.Fatalf("Publish(%v): %v", m.Paths, err)
	}
}

// flush waits until everything published before it was dispatched: the
// dispatcher is in order, so once a marker event published now arrives,
// the events before it have been delivered.
func flush(t *testing.T, e cache.Events) {
	t.Helper()
	got := make(chan struct{}, 1)
	marker := eventMsg("zz-flush.marker")
	cancel, err := e.Subscribe("zz-flush.marker", func(_ string, m *cache.Message) {
		if m == marker {
			got <- struct{}{}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	publish(t, e, marker)
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the marker event was not delivered within 10 s")
	}
}

func TestLocalEventsRouting(t *testing.T) {
	e := newLocalEvents(t, cache.LocalEventsOptions{})
	published := []string{"feeds", "feeds.x", "feeds.news.1", "feeds.news.2", "feeds.sport.1", "feeds.news.1.extra", "other.news.1"}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"#", published},
		{"feeds.#", []string{"feeds", "feeds.x", "feeds.news.1", "feeds.news.2", "feeds.sport.1", "feeds.news.1.extra"}},
		{"feeds.*", []string{"feeds.x"}},
		{"feeds.*.1", []string{"feeds.news.1", "feeds.sport.1"}},
		{"*.news.*", []string{"feeds.news.1", "feeds.news.2", "other.news.1"}},
		{"#.1", []string{"feeds.news.1", "feeds.sport.1", "other.news.1"}},
		{"feeds.#.1", []string{"feeds.news.1", "feeds.sport.1"}},
		{"feeds.news.1", []string{"feeds.news.1"}},
		{"*", []string{"feeds"}},
		{"*.*.*.*", []string{"feeds.news.1.extra"}},
		{"nothing.#", nil},
	}
	subs := make([]*collector, len(tests))
	for i, tc := range tests {
		subs[i] = subscribe(t, e, tc.pattern)
	}
	for _, p := range published {
		publish(t, e, eventMsg(p))
	}
	flush(t, e)
	for i, tc := range tests {
		got := slices.DeleteFunc(subs[i].paths(), func(p string) bool { return p == "zz-flush.marker" })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q received %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

func TestLocalEventsOneEventPerPath(t *testing.T) {
	e := newLocalEvents(t, cache.LocalEventsOptions{})
	ax, all, b, again := subscribe(t, e, "a.*"), subscribe(t, e, "#"), subscribe(t, e, "b.#"), subscribe(t, e, "a.*")
	m := eventMsg("a.x", "a.y", "b.z")
	publish(t, e, m)
	flush(t, e)
	for _, tc := range []struct {
		name string
		c    *collector
		want []string
	}{
		{"a.*", ax, []string{"a.x", "a.y"}},
		{"a.* again", again, []string{"a.x", "a.y"}},
		{"#", all, []string{"a.x", "a.y", "b.z", "zz-flush.marker"}},
		{"b.#", b, []string{"b.z"}},
	} {
		if got := tc.c.paths(); !slices.Equal(got, tc.want) {
			t.Errorf("%s received %q, want %q", tc.name, got, tc.want)
		}
		for _, ev := range tc.c.events() {
			if ev.path != "zz-flush.marker" && ev.m != m {
				t.Errorf("%s: event %s carries %v, want the published message", tc.name, ev.path, ev.m.ID)
			}
		}
	}
}

func TestLocalEventsSubscribeRefusesInvalidPatterns(t *testing.T) {
	e := newLocalEvents(t, cache.LocalEventsOptions{})
	for _, p := range []string{"", ".", "a..b", "a.b*", "a.#x", "a b", "a."} {
		cancel, err := e.Subscribe(p, func(string, *cache.Message) {})
		if code := herald.ErrorCode(err); code != herald.EInvalid {
			t.Errorf("Subscribe(%q): code %q (err %v), want %q", p, code, err, herald.EInvalid)
		}
		if cancel != nil {
			t.Errorf("Subscribe(%q) returned a cancel func with its error", p)
		}
	}
	if n := e.Subscriptions(); n != 0 {
		t.Errorf("%d subscriptions after refused ones, want 0", n)
	}
}

func TestLocalEventsCancel(t *testing.T) {
	e := newLocalEvents(t, cache.LocalEventsOptions{})
	kept := subscribe(t, e, "c.#")
	gone := &collector{}
	cancel, err := e.Subscribe("c.#", gone.add)
	if err != nil {
		t.Fatal(err)
	}
	publish(t, e, eventMsg("c.1"))
	flush(t, e)
	cancel()
	cancel() // a second call does nothing
	if n := e.Subscriptions(); n != 1 {
		t.Errorf("%d subscriptions after cancel, want 1", n)
	}
	publish(t, e, eventMsg("c.2"))
	flush(t, e)
	if got := gone.paths(); !slices.Equal(got, []string{"c.1"}) {
		t.Errorf("cancelled subscription received %q, want only c.1", got)
	}
	if got := kept.paths(); !slices.Equal(got, []string{"c.1", "c.2"}) {
		t.Errorf("the other subscription received %q, want c.1 c.2", got)
	}

	t.Run("from within the callback", func(t *testing.T) {
		var calls atomic.Int32
		var cancel func()
		ready := make(chan struct{})
		cancel, err := e.Subscribe("d.*", func(string, *cache.Message) {
			<-ready
			calls.Add(1)
			cancel()
		})
		if err != nil {
			t.Fatal(err)
		}
		close(ready)
		publish(t, e, eventMsg("d.1", "d.2")) // two events: the second must not arrive
		publish(t, e, eventMsg("d.3"))
		flush(t, e)
		if n := calls.Load(); n != 1 {
			t.Errorf("callback ran %d times, want 1", n)
		}
	})
}

func TestLocalEventsBackPressure(t *testing.T) {
	e := newLocalEvents(t, cache.LocalEventsOptions{Buffer: 2})
	entered := make(chan struct{}, 10)
	gate := make(chan struct{})
	c := &collector{}
	if _, err := e.Subscribe("bp.*", func(p string, m *cache.Message) {
		entered <- struct{}{}
		<-gate
		c.add(p, m)
	}); err != nil {
		t.Fatal(err)
	}
	publish(t, e, eventMsg("bp.1"))
	<-entered                       // the dispatcher holds bp.1
	publish(t, e, eventMsg("bp.2")) // the queue holds 2 messages
	publish(t, e, eventMsg("bp.3"))

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := e.Publish(ctx, eventMsg("bp.4")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Publish to a full queue: %v, want the context's deadline", err)
	}

	returned := make(chan error, 1)
	go func() { returned <- e.Publish(context.Background(), eventMsg("bp.5")) }()
	select {
	case err := <-returned:
		t.Fatalf("Publish to a full queue returned %v without waiting", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(gate)
	select {
	case err := <-returned:
		if err != nil {
			t.Fatalf("blocked Publish: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Publish still blocked after the subscriber caught up")
	}
	flush(t, e)
	if got := c.paths(); !slices.Equal(got, []string{"bp.1", "bp.2", "bp.3", "bp.5"}) {
		t.Errorf("received %q, want bp.1 bp.2 bp.3 bp.5 in order", got)
	}
}

func TestLocalEventsClose(t *testing.T) {
	e := cache.NewLocalEvents(cache.LocalEventsOptions{Buffer: 1})
	gate := make(chan struct{})
	entered := make(chan struct{}, 1)
	if _, err := e.Subscribe("cl.*", func(string, *cache.Message) {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-gate
	}); err != nil {
		t.Fatal(err)
	}
	publish(t, e, eventMsg("cl.1"))
	<-entered
	publish(t, e, eventMsg("cl.2")) // fills the queue
	blocked := make(chan error, 1)
	go func() { blocked <- e.Publish(context.Background(), eventMsg("cl.3")) }()

	closed := make(chan struct{})
	go func() { e.Close(); close(closed) }()
	if err := <-blocked; herald.ErrorCode(err) != herald.EUnavailable {
		t.Errorf("Publish blocked at Close returned %v, want %q", err, herald.EUnavailable)
	}
	close(gate) // let the dispatcher finish its callback and see Close
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
	if err := e.Publish(context.Background(), eventMsg("cl.4")); herald.ErrorCode(err) != herald.EUnavailable {
		t.Errorf("Publish after Close: %v, want %q", err, herald.EUnavailable)
	}
	if err := e.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestLocalEventsSurvivesPanickingSubscriber(t *testing.T) {
	e := newLocalEvents(t, cache.LocalEventsOptions{})
	if _, err := e.Subscribe("p.#", func(string, *cache.Message) { panic("subscriber bug") }); err != nil {
		t.Fatal(err)
	}
	c := subscribe(t, e, "p.#")
	publish(t, e, eventMsg("p.1"))
	flush(t, e)
	if got := c.paths(); !slices.Equal(got, []string{"p.1"}) {
		t.Errorf("received %q, want p.1", got)
	}
}

func TestLocalEventsConcurrentUse(t *testing.T) {
	e := newLocalEvents(t, cache.LocalEventsOptions{Buffer: 8})
	const publishers, perPublisher = 4, 200
	var counted atomic.Int64
	cancel, err := e.Subscribe("conc.#", func(string, *cache.Message) { counted.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()

	stop := make(chan struct{})
	var churn sync.WaitGroup
	for i := range 2 {
		churn.Go(func() {
			for j := 0; ; j++ {
				select {
				case <-stop:
					return
				default:
				}
				cancel, err := e.Subscribe(fmt.Sprintf("conc.p%d.*", (i+j)%publishers), func(string, *cache.Message) {})
				if err != nil {
					t.Error(err)
					return
				}
				cancel()
			}
		})
	}
	var pubs sync.WaitGroup
	for i := range publishers {
		pubs.Go(func() {
			for j := range perPublisher {
				if err := e.Publish(context.Background(), eventMsg(fmt.Sprintf("conc.p%d.m%d", i, j))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	pubs.Wait()
	close(stop)
	churn.Wait()
	flush(t, e)
	if n := counted.Load(); n != publishers*perPublisher {
		t.Errorf("the steady subscriber received %d events, want %d", n, publishers*perPublisher)
	}
	if n := e.Subscriptions(); n != 1 {
		t.Errorf("%d subscriptions left, want 1", n)
	}
}

// recordingEvents is an Events that records what the Service publishes.
type recordingEvents struct {
	mu        sync.Mutex
	published []*cache.Message
	ctxErrs   []error
}

func (r *recordingEvents) Publish(ctx context.Context, m *cache.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.published = append(r.published, m)
	r.ctxErrs = append(r.ctxErrs, ctx.Err())
	return nil
}

func (r *recordingEvents) Subscribe(string, func(string, *cache.Message)) (func(), error) {
	return func() {}, nil
}

func (r *recordingEvents) ids() []uuid.UUID {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []uuid.UUID
	for _, m := range r.published {
		ids = append(ids, m.ID)
	}
	return ids
}

func TestServicePublishesNewMessagesOnly(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	hooks := recordHooks(svc)
	rec := &recordingEvents{}
	svc.SetEvents(rec)

	first := mustPut(t, svc, cache.PutInput{Metadata: meta("ev.a", "ev.b")})
	if _, created, err := svc.Put(context.Background(), cache.PutInput{MessageID: first.ID.String(), Metadata: meta("ev.a")}); err != nil || created {
		t.Fatalf("repeat: created %v, err %v", created, err)
	}
	if _, _, err := svc.Put(context.Background(), cache.PutInput{Metadata: meta("ev..bad")}); err == nil {
		t.Fatal("invalid put accepted")
	}
	res, err := svc.PutBatch(context.Background(), []cache.PutInput{{Metadata: meta("ev.c")}, {MessageID: first.ID.String(), Metadata: meta("ev.c")}})
	if err != nil {
		t.Fatal(err)
	}
	want := []uuid.UUID{first.ID, res[0].Message.ID}
	if got := rec.ids(); !slices.Equal(got, want) {
		t.Errorf("published %v, want %v (new messages once each)", got, want)
	}
	if _, total := hooks.count(uuid.Nil); total != 2 {
		t.Errorf("OnStored hooks ran %d times beside the events, want 2", total)
	}

	svc.SetEvents(nil)
	mustPut(t, svc, cache.PutInput{Metadata: meta("ev.d")})
	if got := rec.ids(); len(got) != 2 {
		t.Errorf("published %d messages after SetEvents(nil), want still 2", len(got))
	}

	t.Run("not when the store fails", func(t *testing.T) {
		svc := cache.NewService(downStore(), cache.DefaultConfig())
		rec := &recordingEvents{}
		svc.SetEvents(rec)
		if _, _, err := svc.Put(context.Background(), cache.PutInput{Metadata: meta("ev.a")}); err == nil {
			t.Fatal("put into a failing store succeeded")
		}
		if got := rec.ids(); len(got) != 0 {
			t.Errorf("published %v, want nothing", got)
		}
	})
}

// cancelAfterStore cancels a context once the store has the message, the
// way a client that leaves right after its put would.
type cancelAfterStore struct {
	cache.Store
	cancel context.CancelFunc
}

func (s cancelAfterStore) PutMessage(ctx context.Context, m *cache.Message) (*cache.Message, bool, error) {
	stored, created, err := s.Store.PutMessage(ctx, m)
	s.cancel()
	return stored, created, err
}

func TestServicePublishesWhenTheClientLeavesAfterTheStore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc := cache.NewService(cancelAfterStore{openStore(t, nil), cancel}, cache.DefaultConfig())
	rec := &recordingEvents{}
	svc.SetEvents(rec)
	if _, _, err := svc.Put(ctx, cache.PutInput{Metadata: meta("leave.a")}); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.published) != 1 || rec.ctxErrs[0] != nil {
		t.Errorf("published %d messages with context errors %v, want 1 with a live context", len(rec.published), rec.ctxErrs)
	}
}

func TestServiceEventsThroughLocalEvents(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	e := newLocalEvents(t, cache.LocalEventsOptions{})
	svc.SetEvents(e)
	c := subscribe(t, e, "live.*")
	m := mustPut(t, svc, cache.PutInput{Metadata: meta("live.x", "other.y", "live.z"), Body: []byte("hi")})
	flush(t, e)
	got := c.events()
	if len(got) != 2 || got[0].path != "live.x" || got[1].path != "live.z" {
		t.Fatalf("received %v, want live.x and live.z", got)
	}
	if got[0].m.ID != m.ID || string(got[0].m.Body) != "hi" {
		t.Errorf("event carries %+v, want the stored message %+v", got[0].m, m)
	}
}

// BenchmarkLocalEventsPublish publishes one-path messages to 10 matching
// subscriptions among n: the cost per message should not grow with n.
func BenchmarkLocalEventsPublish(b *testing.B) {
	matching := []string{"bench.t42.x", "bench.t42.*", "bench.*.x", "bench.#", "#", "*.t42.x", "#.x", "bench.#.x", "*.*.*", "bench.t42.#"}
	for _, n := range []int{10, 10_000} {
		b.Run(fmt.Sprintf("subscriptions=%d", n), func(b *testing.B) {
			e := newLocalEvents(b, cache.LocalEventsOptions{})
			var delivered atomic.Int64
			count := func(string, *cache.Message) { delivered.Add(1) }
			for _, p := range matching {
				if _, err := e.Subscribe(p, count); err != nil {
					b.Fatal(err)
				}
			}
			for i := range n - len(matching) {
				// literal, "*" and "#" branches that the path never follows
				p := [...]string{"bench.t%d.#", "*.n%d.x", "bench.t42.y%d", "other%d.#"}[i%4]
				if _, err := e.Subscribe(fmt.Sprintf(p, i), count); err != nil {
					b.Fatal(err)
				}
			}
			if e.Subscriptions() != n {
				b.Fatalf("%d subscriptions, want %d", e.Subscriptions(), n)
			}
			m := eventMsg("bench.t42.x")
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				if err := e.Publish(ctx, m); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			for delivered.Load() < int64(b.N*len(matching)) {
				time.Sleep(time.Millisecond)
			}
			b.ReportMetric(float64(delivered.Load())/float64(b.N), "events/op")
		})
	}
}
