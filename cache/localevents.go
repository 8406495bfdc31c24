package cache

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/paths"
)

// LocalEventsOptions configures NewLocalEvents. The zero value uses the
// defaults.
type LocalEventsOptions struct {
	// Buffer is how many published messages may wait for the dispatcher
	// before Publish blocks. Default 1024.
	Buffer int
	// Logger reports subscriber callbacks that panic. Default: discarded.
	Logger *slog.Logger
}

// DefaultLocalEventsBuffer is the queue length when Options.Buffer is 0.
const DefaultLocalEventsBuffer = 1024

// LocalEvents is the in-process Events of a single node: published messages
// wait in a bounded queue, and one dispatcher goroutine hands each of their
// events to the subscribers whose pattern matches its path, found through a
// paths.Index so that the cost of an event grows with the subscribers it
// reaches, not with all of them.
//
// Callbacks run on the dispatcher goroutine, one at a time, in publish
// order; a slow callback delays every subscriber (and, once the queue is
// full, Publish), so callbacks should hand events off and return.
type LocalEvents struct {
	queue   chan *Message
	subs    *paths.Index[*localSub]
	log     *slog.Logger
	done    chan struct{} // closed by Close
	stopped chan struct{} // closed when the dispatcher has returned
	once    sync.Once
}

// localSub is one subscription; its pointer identity tells apart two
// subscriptions of the same pattern.
type localSub struct {
	fn       func(path string, m *Message)
	canceled atomic.Bool
}

var _ Events = (*LocalEvents)(nil)

// NewLocalEvents starts the dispatcher of an in-process Events. Close stops
// it.
func NewLocalEvents(opts LocalEventsOptions) *LocalEvents {
	n := opts.Buffer
	if n <= 0 {
		n = DefaultLocalEventsBuffer
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &LocalEvents{
		queue:   make(chan *Message, n),
		subs:    paths.NewIndex[*localSub](),
		log:     log,
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go e.dispatch()
	return e
}

// errEventsClosed answers Publish after Close.
var errEventsClosed = herald.Errorf(herald.EUnavailable, "the event fan-out is closed")

// Publish queues m for fan-out, one event per path. It returns once m is
// queued; with the queue full it waits for room, for ctx to end (returning
// ctx's error) or for Close. With no subscription at all it returns at once:
// nobody could receive the events.
func (e *LocalEvents) Publish(ctx context.Context, m *Message) error {
	select {
	case <-e.done:
		return errEventsClosed
	default:
	}
	if e.subs.Len() == 0 {
		return nil
	}
	select {
	case e.queue <- m:
		return nil
	default:
	}
	select {
	case e.queue <- m:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-e.done:
		return errEventsClosed
	}
}

// Subscribe calls fn for every event published from now on whose path
// matches pattern. An invalid pattern is an herald.EInvalid error. After
// cancel returns no new call of fn starts (one already running may finish);
// cancel may be called more than once, also from within fn.
func (e *LocalEvents) Subscribe(pattern string, fn func(path string, m *Message)) (cancel func(), err error) {
	p, err := paths.ParsePattern(pattern)
	if err != nil {
		return nil, herald.Errorf(herald.EInvalid, "pattern: %v", err)
	}
	sub := &localSub{fn: fn}
	e.subs.Add(p, sub)
	return func() {
		if !sub.canceled.Swap(true) {
			e.subs.Remove(p, sub)
		}
	}, nil
}

// Subscriptions returns the number of live subscriptions.
func (e *LocalEvents) Subscriptions() int { return e.subs.Len() }

// Close stops the dispatcher and waits for it to return. Events still queued
// are dropped; later Publish calls fail. Close is idempotent.
func (e *LocalEvents) Close() error {
	e.once.Do(func() { close(e.done) })
	<-e.stopped
	return nil
}

// dispatch delivers queued messages until Close.
func (e *LocalEvents) dispatch() {
	defer close(e.stopped)
	var hits []*localSub // reused: matches of one path
	for {
		select {
		case <-e.done:
			return
		case m := <-e.queue:
			for _, path := range m.Paths {
				// Match read-locks the index while it runs its callback, so
				// collect first and call the subscribers after: they may
				// cancel (which writes to the index).
				hits = hits[:0]
				e.subs.Match(path, func(s *localSub) { hits = append(hits, s) })
				for _, s := range hits {
					if !s.canceled.Load() {
						e.deliver(s, path, m)
					}
				}
			}
			clear(hits[:cap(hits)]) // do not pin canceled subscriptions
		}
	}
}

// deliver runs one callback, keeping the dispatcher alive if it panics.
func (e *LocalEvents) deliver(s *localSub, path string, m *Message) {
	defer func() {
		if p := recover(); p != nil {
			e.log.Error("event subscriber panicked", "path", path, "message_uuid", m.ID, "panic", p)
		}
	}()
	s.fn(path, m)
}
