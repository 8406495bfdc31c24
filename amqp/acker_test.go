package amqp

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// TestAckerNeverCoversAnUnsettledTag settles 1,000 tags in random order
// from several goroutines: every multiple ack covers only settled tags,
// and in the end every acked tag is covered.
func TestAckerNeverCoversAnUnsettledTag(t *testing.T) {
	const n = 1000
	var mu sync.Mutex
	settled := make([]bool, n+1)
	var highest uint64
	a := newAcker(func(tag uint64) error {
		mu.Lock()
		defer mu.Unlock()
		for i := highest + 1; i <= tag; i++ {
			if !settled[i] {
				t.Errorf("ack up to %d covers tag %d before it was settled", tag, i)
			}
		}
		if tag <= highest {
			t.Errorf("ack up to %d after one up to %d", tag, highest)
		}
		highest = tag
		return nil
	}, 16)
	tags := rand.Perm(n)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < n; i += 4 {
				tag := uint64(tags[i] + 1)
				mu.Lock()
				settled[tag] = true
				mu.Unlock()
				if tag%7 == 0 {
					a.finished(tag) // nacked by the worker
				} else {
					a.acked(tag)
				}
			}
		})
	}
	wg.Wait()
	a.close()
	if highest != n { // tag 1000 is acked (not a multiple of 7)
		t.Errorf("acknowledged up to %d of %d", highest, n)
	}
}

func TestAckerAcksAtOnceWhenIdle(t *testing.T) {
	acks := make(chan uint64, 4)
	a := newAcker(func(tag uint64) error { acks <- tag; return nil }, 4)
	defer a.close()
	a.acked(1)
	if got := <-acks; got != 1 {
		t.Fatalf("acked up to %d, want 1", got)
	}
	a.acked(3) // 2 still outstanding: nothing to ack yet
	a.finished(2)
	if got := <-acks; got != 3 {
		t.Fatalf("acked up to %d, want 3", got)
	}
}
