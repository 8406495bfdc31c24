package ws

import (
	"context"
	"sync"
	"testing"
	"time"
)

// The queue starts a writer only when frames wait and none runs, and the
// writer ends once the queue is empty: frames are written in order, and an
// idle queue has no goroutine.
func TestSendQueueDrainsOnDemand(t *testing.T) {
	var (
		mu      sync.Mutex
		got     []int
		drains  int
		running sync.WaitGroup
		release = make(chan struct{})
	)
	var q *sendQueue
	drain := func() {
		defer running.Done()
		<-release // the whole burst is queued first
		mu.Lock()
		drains++
		mu.Unlock()
		for items := q.next(); items != nil; items = q.next() {
			for _, it := range items {
				mu.Lock()
				got = append(got, it.n)
				mu.Unlock()
			}
		}
	}
	// As the Handler's connections start a goroutine of their own when
	// the writer pool cannot take them.
	q = newSendQueue(1<<20, func() { go drain() }, nil)
	for round := range 3 {
		running.Add(1)
		for i := range 100 {
			q.offer(outItem{n: round*100 + i + 1})
		}
		release <- struct{}{}
		running.Wait() // the drain has ended: the queue is idle
		q.mu.Lock()
		draining := q.draining
		q.mu.Unlock()
		if draining {
			t.Fatalf("round %d: a drain still counts as running on an empty queue", round)
		}
	}
	if drains != 3 {
		t.Errorf("%d drains for 3 bursts, want 3 (one per burst)", drains)
	}
	for i, n := range got {
		if n != i+1 {
			t.Fatalf("frame %d is %d: out of order", i, n)
		}
	}
}

// Overflow calls onOverflow once, and put gives up on an overflowed queue.
func TestSendQueueOverflow(t *testing.T) {
	called := make(chan struct{}, 2)
	q := newSendQueue(10, func() {}, func() { called <- struct{}{} })
	q.offer(outItem{n: 8})
	if q.offer(outItem{n: 8}) {
		t.Fatal("an offer past the bound was queued")
	}
	q.offer(outItem{n: 8})
	select {
	case <-called:
	case <-time.After(time.Second):
		t.Fatal("onOverflow was not called")
	}
	select {
	case <-called:
		t.Fatal("onOverflow was called twice")
	case <-time.After(50 * time.Millisecond):
	}
	if q.put(context.Background(), outItem{n: 8}) {
		t.Fatal("put queued into an overflowed, full queue")
	}
}
