package limits

import (
	"fmt"
	"testing"
	"time"
)

func writersAt(c *fakeClock) *Writers {
	w := NewWriters()
	w.now = c.now
	return w
}

// TestTopWritersFindTheHeavyOnesAmongMany: a path written 5,000 times in a
// minute among 100,000 paths written once each is found, with its count
// short by at most a 1/1024 share of the minute's writes; memory stays
// bounded.
func TestTopWritersFindTheHeavyOnesAmongMany(t *testing.T) {
	c := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	w := writersAt(c)
	for i := range 100_000 {
		w.Observe(WriterPath, fmt.Sprint("device.", i))
		if i%20 == 0 {
			w.Observe(WriterPath, "alerts.hot")
		}
		if i%50 == 0 {
			w.Observe(WriterPath, "alerts.warm")
		}
	}
	top := w.Top(WriterPath, 2)
	total := int64(100_000 + 5_000 + 2_000)
	if len(top) != 2 || top[0].Key != "alerts.hot" || top[1].Key != "alerts.warm" {
		t.Fatalf("top %v, want alerts.hot then alerts.warm", top)
	}
	if low := 5_000 - total/writersPerMinute; top[0].Writes < low || top[0].Writes > 5_000 {
		t.Errorf("alerts.hot counted %d, want %d..5000", top[0].Writes, low)
	}
	for _, s := range w.kinds[WriterPath].minutes {
		if len(s.counts) > writersPerMinute {
			t.Fatalf("a minute keeps %d keys, want at most %d", len(s.counts), writersPerMinute)
		}
	}
}

// TestTopWritersWindow: writes count for Window, summed over its minutes,
// and then fall out of it.
func TestTopWritersWindow(t *testing.T) {
	c := &fakeClock{t: time.Unix(1_700_000_040, 0)}
	w := writersAt(c)
	for minute := range windowMinutes {
		for range 10 {
			w.Observe(WriterAccount, "a\x00sqs")
		}
		if minute < windowMinutes-1 {
			c.add(time.Minute)
		}
	}
	top := w.Top(WriterAccount, 5)
	if len(top) != 1 || top[0].Writes != int64(10*windowMinutes) {
		t.Fatalf("top %v, want a\\x00sqs with %d", top, 10*windowMinutes)
	}
	if a, d := top[0].AccountDoor(); a != "a" || d != "sqs" {
		t.Errorf("account %q door %q", a, d)
	}
	c.add(time.Minute)
	if top := w.Top(WriterAccount, 5); len(top) != 1 || top[0].Writes != int64(10*(windowMinutes-1)) {
		t.Errorf("a minute later: %v, want the oldest minute gone", top)
	}
	c.add(Window)
	if top := w.Top(WriterAccount, 5); len(top) != 0 {
		t.Errorf("a window later: %v, want none", top)
	}
}

// BenchmarkObserve: the cost per write of always-on detection, beside a
// plain map increment under a lock (the floor).
func BenchmarkObserve(b *testing.B) {
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = fmt.Sprint("device.", i%1500, ".state")
	}
	b.Run("writers", func(b *testing.B) {
		w := NewWriters()
		i := 0
		for b.Loop() {
			w.Observe(WriterPath, keys[i&4095])
			i++
		}
	})
	b.Run("map floor", func(b *testing.B) {
		ww := &writerWindow{}
		m := map[string]int64{}
		i := 0
		for b.Loop() {
			ww.mu.Lock()
			m[keys[i&4095]]++
			ww.mu.Unlock()
			i++
		}
	})
}
