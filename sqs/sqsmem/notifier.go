package sqsmem

import (
	"context"
	"hash/maphash"
	"sync"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// Notifier is the in-process sqs.Notifier. All waiters of a queue share one
// channel, closed by the next Notify; a queue nobody waits on costs nothing.
type Notifier struct {
	seed   maphash.Seed
	shards [16]notifyShard
}

type notifyShard struct {
	mu      sync.Mutex
	waiting map[uuid.UUID]*wakeup
}

// wakeup is one round of waiting on a queue: its channel is closed by the
// next Notify, which also ends the round.
type wakeup struct {
	ch      chan struct{}
	waiters int
}

var _ sqs.Notifier = (*Notifier)(nil)

// NewNotifier returns a Notifier.
func NewNotifier() *Notifier {
	n := &Notifier{seed: maphash.MakeSeed()}
	for i := range n.shards {
		n.shards[i].waiting = make(map[uuid.UUID]*wakeup)
	}
	return n
}

func (n *Notifier) shard(id uuid.UUID) *notifyShard {
	return &n.shards[maphash.Bytes(n.seed, id[:])%uint64(len(n.shards))]
}

// Notify wakes everyone waiting on id now.
func (n *Notifier) Notify(_ context.Context, id uuid.UUID) {
	s := n.shard(id)
	s.mu.Lock()
	w := s.waiting[id]
	delete(s.waiting, id)
	s.mu.Unlock()
	if w != nil {
		close(w.ch)
	}
}

// Wait returns a channel closed by the next Notify of id. cancel must be
// called once the caller stops waiting; it may be called more than once.
func (n *Notifier) Wait(id uuid.UUID) (<-chan struct{}, func()) {
	s := n.shard(id)
	s.mu.Lock()
	w := s.waiting[id]
	if w == nil {
		w = &wakeup{ch: make(chan struct{})}
		s.waiting[id] = w
	}
	w.waiters++
	s.mu.Unlock()
	var once sync.Once
	cancel := func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			// After a Notify the round is over and no longer registered.
			if s.waiting[id] == w {
				w.waiters--
				if w.waiters == 0 {
					delete(s.waiting, id)
				}
			}
		})
	}
	return w.ch, cancel
}

// waitingQueues returns how many queues have waiters (for tests).
func (n *Notifier) waitingQueues() int {
	c := 0
	for i := range n.shards {
		s := &n.shards[i]
		s.mu.Lock()
		c += len(s.waiting)
		s.mu.Unlock()
	}
	return c
}
