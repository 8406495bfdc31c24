package cachetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// testConcurrentPuts has many goroutines put messages to a few shared
// paths at once, in an order unrelated to their message times, then checks
// that every index holds each message exactly once.
func (s *suite) testConcurrentPuts(t *testing.T) {
	e := s.start(t)
	const goroutines, perGoroutine = 64, 20
	const n = goroutines * perGoroutine
	all := e.path("all")
	parts := []string{e.path("p0"), e.path("p1"), e.path("p2")}
	// Distinct message times, one millisecond apart, handed out at random.
	base := e.now.Add(-time.Hour)
	order := rand.Perm(n)
	msgs := make([]*cache.Message, n)
	byPart := make([][]*cache.Message, len(parts))
	for k := range msgs {
		msgs[k] = e.msg(fmt.Sprintf("c%04d", k), base.Add(time.Duration(order[k])*time.Millisecond), all, parts[k%len(parts)])
		byPart[k%len(parts)] = append(byPart[k%len(parts)], msgs[k])
	}

	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for _, m := range msgs[g*perGoroutine : (g+1)*perGoroutine] {
				stored, created, err := e.store.PutMessage(e.ctx, m)
				switch {
				case err != nil:
					t.Errorf("goroutine %d: PutMessage(%s): %v", g, e.label(m.ID), err)
					return
				case !created:
					t.Errorf("goroutine %d: PutMessage(%s) of a new id: created = false", g, e.label(m.ID))
				case stored == nil || stored.ID != m.ID:
					t.Errorf("goroutine %d: PutMessage(%s) returned another message", g, e.label(m.ID))
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	e.checkRefs(fmt.Sprintf("History(%q) of all %d messages, by 100", all, n), e.allHistory(all, 100),
		byPosition(msgs, messageTime, true), messageTime)
	e.checkLatest(all, newestByTime(msgs...))
	want := []childWant{{"all", newestByTime(msgs...)}}
	for i, p := range parts {
		e.checkRefs(fmt.Sprintf("History(%q), by 1000", p), e.allHistory(p, 1000), byPosition(byPart[i], messageTime, true), messageTime)
		e.checkLatest(p, newestByTime(byPart[i]...))
		want = append(want, childWant{fmt.Sprintf("p%d", i), newestByTime(byPart[i]...)})
	}
	e.checkChildren("Children of the top word", e.allChildren(e.path(), 10), want)
	e.checkRefs("Journal of the puts' time", e.allJournal(e.now, e.now.Add(time.Millisecond), cache.Position{}, 500, msgs),
		byPosition(msgs, receivedTime, false), receivedTime)
	got := e.get(IDs(msgs)...)
	for i, m := range got {
		if m == nil || m.ID != msgs[i].ID {
			t.Errorf("GetMessages of the concurrently put messages: entry %d is not message %s", i, e.label(msgs[i].ID))
		}
	}
}

// testCancelledContext calls every method with a cancelled context. Each
// must return, with an error; what kind of error is the engine's choice.
func (s *suite) testCancelledContext(t *testing.T) {
	e := s.start(t)
	m := e.msg("stored", e.now.Add(-time.Second), e.path("a"))
	e.put(m)
	fresh := e.msg("fresh", e.now.Add(-2*time.Second), e.path("b"))

	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	cases := []struct {
		name string
		call func() error
	}{
		{"PutMessage", func() error { _, _, err := e.store.PutMessage(ctx, fresh); return err }},
		{"GetMessages", func() error { _, err := e.store.GetMessages(ctx, []uuid.UUID{m.ID}); return err }},
		{"Latest", func() error { _, err := e.store.Latest(ctx, e.path("a")); return err }},
		{"Children", func() error { _, err := e.store.Children(ctx, e.path(), "", 10); return err }},
		{"History", func() error { _, err := e.store.History(ctx, e.path("a"), cache.Position{}, 10); return err }},
		{"Journal", func() error {
			_, err := e.store.Journal(ctx, m.ReceivedAt, m.ReceivedAt.Add(time.Second), cache.Position{}, 10)
			return err
		}},
	}
	const patience = 10 * time.Second
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- tc.call() }()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("%s with a cancelled context: err = nil, want an error", tc.name)
				}
			case <-time.After(patience):
				t.Fatalf("%s with a cancelled context has not returned after %v", tc.name, patience)
			}
		})
	}
}
