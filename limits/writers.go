package limits

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// Runaway producers are found whether or not a rule limits them: Writers
// keeps, for each kind of writer (an account at a door, a path of the
// cache), an estimate of the busiest ones over the last Window, for
// /metrics, the console and the shipped alert.
//
// Each kind keeps one summary per minute of the window, each a
// Misra-Gries summary of writersPerMinute counters: a key written more
// than 1/writersPerMinute of the minute's writes is always in it, and its
// count is short by at most that share. Memory is bounded whatever the
// number of distinct keys (a million device paths written once each).
const (
	// Window is how far back the top writers look.
	Window = 5 * time.Minute

	writersPerMinute = 1024
	windowMinutes    = int(Window / time.Minute)
)

// Kinds of writers.
const (
	WriterAccount = "account" // key: account and door, joined by '\x00'
	WriterPath    = "path"
)

// Writer is one of the busiest writers: its key and how many writes it
// made in the window (at least; see Writers).
type Writer struct {
	Key    string
	Writes int64
}

// Account and door of an account writer's key.
func (w Writer) AccountDoor() (account, door string) {
	account, door, _ = strings.Cut(w.Key, "\x00")
	return account, door
}

// PerSecond is the writer's average rate over the window.
func (w Writer) PerSecond() float64 { return float64(w.Writes) / Window.Seconds() }

// Writers estimates the busiest writers of each kind. Safe for concurrent
// use; the zero value is not usable: NewWriters.
type Writers struct {
	now   func() time.Time
	kinds map[string]*writerWindow
}

// NewWriters returns a Writers for the kinds WriterAccount and WriterPath.
func NewWriters() *Writers {
	w := &Writers{now: time.Now, kinds: map[string]*writerWindow{}}
	for _, k := range []string{WriterAccount, WriterPath} {
		w.kinds[k] = &writerWindow{}
	}
	return w
}

// writerWindow is one kind's summaries, one per minute, in a ring.
type writerWindow struct {
	mu      sync.Mutex
	minutes [windowMinutes]minuteSummary
}

type minuteSummary struct {
	minute int64 // Unix minute it counts; another means stale
	counts map[string]int64
}

// Observe counts one write of key of kind.
func (w *Writers) Observe(kind, key string) {
	ww := w.kinds[kind]
	if ww == nil {
		return
	}
	minute := w.now().Unix() / 60
	ww.mu.Lock()
	s := &ww.minutes[minute%int64(windowMinutes)]
	if s.minute != minute || s.counts == nil {
		s.minute = minute
		if s.counts == nil {
			s.counts = make(map[string]int64, writersPerMinute)
		} else {
			clear(s.counts)
		}
	}
	if _, ok := s.counts[key]; ok || len(s.counts) < writersPerMinute {
		s.counts[key]++
	} else {
		// Misra-Gries: a new key with every counter taken takes one from
		// each, and the emptied ones leave (amortized: each step removes
		// what earlier writes added).
		for k, n := range s.counts {
			if n <= 1 {
				delete(s.counts, k)
			} else {
				s.counts[k] = n - 1
			}
		}
	}
	ww.mu.Unlock()
}

// Top returns at most n of kind's busiest writers over the window, the
// busiest first (ties by key).
func (w *Writers) Top(kind string, n int) []Writer {
	ww := w.kinds[kind]
	if ww == nil || n <= 0 {
		return nil
	}
	oldest := w.now().Unix()/60 - int64(windowMinutes) + 1
	sum := map[string]int64{}
	ww.mu.Lock()
	for i := range ww.minutes {
		s := &ww.minutes[i]
		if s.minute < oldest {
			continue
		}
		for k, c := range s.counts {
			sum[k] += c
		}
	}
	ww.mu.Unlock()
	out := make([]Writer, 0, len(sum))
	for k, c := range sum {
		out = append(out, Writer{Key: k, Writes: c})
	}
	slices.SortFunc(out, func(a, b Writer) int {
		if a.Writes != b.Writes {
			if a.Writes > b.Writes {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out[:min(n, len(out))]
}
