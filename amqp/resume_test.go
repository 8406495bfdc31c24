package amqp

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmq/herald/cache"
)

// TestEventsResumeAfterAnInterruption: OnResume's callbacks run when the
// consumer's connection comes back while the node has subscribers (they
// missed what was published meanwhile), and not for a node without any.
func TestEventsResumeAfterAnInterruption(t *testing.T) {
	url := amqpURL(t)
	o := testOptions(t, url)
	px, viaProxy := newProxy(t, url)
	o.URL = viaProxy
	e := startEvents(t, o, true)
	var resumes atomic.Int32
	cancel := e.OnResume(func() { resumes.Add(1) })
	t.Cleanup(cancel)

	// No subscriber: an interruption misses nobody's events.
	px.cut()
	waitFor(t, 20*time.Second, "the consumer down", func() bool { return !consumerUp(e) })
	px.restore()
	waitFor(t, 20*time.Second, "the consumer back", func() bool { return consumerUp(e) })
	if n := resumes.Load(); n != 0 {
		t.Fatalf("%d resumes without subscribers, want 0", n)
	}

	var sub collector
	if _, err := e.Subscribe("r.#", sub.fn); err != nil {
		t.Fatal(err)
	}
	if n := resumes.Load(); n != 0 {
		t.Fatalf("%d resumes after subscribing while connected, want 0", n)
	}
	px.cut()
	waitFor(t, 20*time.Second, "the consumer down", func() bool { return !consumerUp(e) })
	// A subscription made while the feed is down is bound on resumption.
	var late collector
	if _, err := e.Subscribe("late.#", late.fn); err != nil {
		t.Fatal(err)
	}
	px.restore()
	waitFor(t, 20*time.Second, "one resume", func() bool { return resumes.Load() == 1 })
	if got := e.Stats().Resumes; got != 1 {
		t.Errorf("Stats().Resumes = %d, want 1", got)
	}
	// The feed works again for both subscriptions.
	waitFor(t, 10*time.Second, "events after resuming", func() bool {
		e.Publish(t.Context(), testMessage(t, "x", "r.1", "late.1"))
		time.Sleep(50 * time.Millisecond)
		return len(sub.list()) > 0 && len(late.list()) > 0
	})
	if n := resumes.Load(); n != 1 {
		t.Errorf("%d resumes, want 1", n)
	}
	var _ cache.Interruptible = e
}

// consumerUp reports whether the events consumer has a session.
func consumerUp(e *Events) bool {
	e.subs.bindMu.Lock()
	defer e.subs.bindMu.Unlock()
	return e.subs.conn != nil
}
