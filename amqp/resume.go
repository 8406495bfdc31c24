package amqp

import (
	"sync"

	"github.com/heraldmq/herald/cache"
)

var _ cache.Interruptible = (*Events)(nil)

// resumers are the callbacks of OnResume.
type resumers struct {
	mu   sync.Mutex
	next int
	fns  map[int]func()
}

// OnResume registers fn, called each time this node's events consumer
// starts a session (its queue declared and bound) while the node has
// subscribers: events published since the previous session ended, or
// since a subscriber was made with no session up, were not delivered to
// them (cache.Interruptible).
func (e *Events) OnResume(fn func()) (cancel func()) {
	r := &e.resumers
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fns == nil {
		r.fns = map[int]func(){}
	}
	id := r.next
	r.next++
	r.fns[id] = fn
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.fns, id)
	}
}

// resumed calls the OnResume callbacks on a goroutine of its own, so that
// the consumer goes on dispatching meanwhile.
func (e *Events) resumed() {
	e.resumes.Add(1)
	r := &e.resumers
	r.mu.Lock()
	fns := make([]func(), 0, len(r.fns))
	for _, fn := range r.fns {
		fns = append(fns, fn)
	}
	r.mu.Unlock()
	go func() {
		for _, fn := range fns {
			fn()
		}
	}()
}
