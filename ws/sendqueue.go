package ws

import (
	"context"
	"sync"
)

// outItem is one frame waiting for the writer: either encoded (b) or a
// value the writer encodes (v), with its size n counted against the bound.
// A live message frame shares b with every subscriber and has its offset
// in the subscription apart: the writer adds it, with the epoch, to b.
type outItem struct {
	b      []byte
	v      any
	n      int
	offset uint64 // of a live message frame; 0 otherwise
}

// sendQueue is a connection's bounded (in bytes) queue of outgoing frames.
// Live events are offered without waiting (offer), and overflow marks the
// connection as a slow consumer; requests answered on the reader goroutine
// wait for room instead (put), so a large latest or recover burst slows
// the reader rather than failing a client that does read.
//
// The queue has no goroutine of its own while it is empty: the first frame
// queued calls start, which has a writer (the pool's, or a new goroutine)
// take frames with next until none is left. An idle connection so holds no
// writer stack.
type sendQueue struct {
	mu       sync.Mutex
	items    []outItem
	bytes    int
	limit    int
	closed   bool
	draining bool          // a writer has been started and has not found the queue empty
	room     chan struct{} // the writer took frames
	over     chan struct{} // closed on overflow
	once     sync.Once

	start      func() // has a writer take frames with next until next is empty; called with mu held
	onOverflow func() // called once, on a goroutine of its own, on overflow
}

func newSendQueue(limit int, start, onOverflow func()) *sendQueue {
	return &sendQueue{limit: limit, room: make(chan struct{}, 1), over: make(chan struct{}), start: start, onOverflow: onOverflow}
}

// offer queues it without blocking; false when the connection is closed or
// the queue overflowed (which also signals over).
func (q *sendQueue) offer(it outItem) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	if q.bytes+it.n > q.limit && q.bytes > 0 {
		q.overflow()
		return false
	}
	q.push(it)
	return true
}

// put queues it, waiting while the queue is full (a frame larger than the
// bound goes alone into an empty queue).
func (q *sendQueue) put(ctx context.Context, it outItem) bool {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return false
		}
		if q.bytes == 0 || q.bytes+it.n <= q.limit {
			q.push(it)
			q.mu.Unlock()
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.room:
		case <-q.over:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// push appends it and starts a writer unless one has been; q.mu is held.
func (q *sendQueue) push(it outItem) {
	q.items = append(q.items, it)
	q.bytes += it.n
	if !q.draining {
		q.draining = true
		q.start()
	}
}

// overflow marks the queue as overflowed; q.mu is held or not needed.
func (q *sendQueue) overflow() {
	q.once.Do(func() {
		close(q.over)
		if q.onOverflow != nil {
			go q.onOverflow()
		}
	})
}

// next removes every queued frame for the writer; when there is none (or
// the queue is closed) it returns nil and the writer must stop.
func (q *sendQueue) next() []outItem {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || len(q.items) == 0 {
		q.draining = false
		return nil
	}
	items := q.items
	q.items, q.bytes = nil, 0
	select {
	case q.room <- struct{}{}:
	default:
	}
	return items
}

// close refuses further frames and drops those waiting.
func (q *sendQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.items, q.bytes = nil, 0
}
