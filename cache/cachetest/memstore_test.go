package cachetest

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// TestSuiteOnMemStore runs the suite on a fresh reference store per subtest.
func TestSuiteOnMemStore(t *testing.T) {
	t.Parallel()
	Run(t, func(t *testing.T) cache.Store { return newMemStore() })
}

// TestSuiteOnSharedMemStore runs the suite with every subtest on one store,
// as an engine on a shared server may: the suite must not assume that a
// store is empty.
func TestSuiteOnSharedMemStore(t *testing.T) {
	t.Parallel()
	shared := newMemStore()
	shared.shared = true
	// Someone else's data, in the root and in the journal.
	now := time.Now().UTC().Truncate(time.Millisecond)
	for i := range 50 {
		w := uniqueWord()
		m := &cache.Message{
			ID:         UUIDAt(now.Add(-time.Duration(i) * time.Millisecond)),
			ReplicaID:  UUIDAt(now),
			Metadata:   []byte(`{"paths":["` + w + `"]}`),
			Paths:      []string{w, "ct." + w},
			ReceivedAt: now.Add(-time.Minute + time.Duration(i)*time.Millisecond),
			ExpiresAt:  now.Add(time.Hour),
		}
		if _, _, err := shared.PutMessage(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	Run(t, func(t *testing.T) cache.Store { return shared })
}

// memStore is a plain in-memory cache.Store: every query scans all
// messages. It exists to exercise the suite, and is as simple as possible
// so that it is obviously right.
type memStore struct {
	mu     sync.Mutex
	msgs   map[uuid.UUID]*cache.Message
	shared bool // Close does nothing, other subtests still use it
	closed bool
	epoch  string
}

func newMemStore() *memStore {
	return &memStore{msgs: make(map[uuid.UUID]*cache.Message), epoch: cache.NewEpoch()}
}

func clone(m *cache.Message) *cache.Message {
	c := *m
	c.Metadata = bytes.Clone(m.Metadata)
	c.Paths = slices.Clone(m.Paths)
	c.Body = bytes.Clone(m.Body)
	return &c
}

// live returns the unexpired message with id, or nil.
func (s *memStore) live(id uuid.UUID) *cache.Message {
	m := s.msgs[id]
	if m == nil || m.Expired(time.Now()) {
		return nil
	}
	return m
}

func (s *memStore) PutMessage(ctx context.Context, m *cache.Message) (*cache.Message, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.live(m.ID); old != nil {
		return clone(old), false, nil
	}
	s.msgs[m.ID] = clone(m)
	return m, true, nil
}

func (s *memStore) GetMessages(ctx context.Context, ids []uuid.UUID) ([]*cache.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*cache.Message, len(ids))
	for i, id := range ids {
		if m := s.live(id); m != nil {
			out[i] = clone(m)
		}
	}
	return out, nil
}

// at returns the unexpired messages at exactly path, newest first.
func (s *memStore) at(path string) []*cache.Message {
	var out []*cache.Message
	for _, m := range s.msgs {
		if s.live(m.ID) != nil && slices.Contains(m.Paths, path) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b *cache.Message) int {
		return cache.Position{At: b.Time(), ID: b.ID}.Compare(cache.Position{At: a.Time(), ID: a.ID})
	})
	return out
}

func historyRef(m *cache.Message) cache.Ref {
	return cache.Ref{ID: m.ID, At: m.Time(), ExpiresAt: m.ExpiresAt}
}

func (s *memStore) latest(path string) *cache.Ref {
	ms := s.at(path)
	if len(ms) == 0 {
		return nil
	}
	r := historyRef(ms[0])
	return &r
}

func (s *memStore) Latest(ctx context.Context, path string) (*cache.Ref, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest(path), nil
}

func (s *memStore) Children(ctx context.Context, parent, after string, limit int) ([]cache.Child, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	prefix := ""
	if parent != "" {
		prefix = parent + "."
	}
	words := map[string]bool{}
	for _, m := range s.msgs {
		if s.live(m.ID) == nil {
			continue
		}
		for _, p := range m.Paths {
			if rest, ok := strings.CutPrefix(p, prefix); ok && rest != "" {
				w, _, _ := strings.Cut(rest, ".")
				words[w] = true
			}
		}
	}
	var out []cache.Child
	for _, w := range slices.Sorted(maps.Keys(words)) {
		if len(out) == limit {
			break
		}
		if w > after {
			out = append(out, cache.Child{Word: w, Latest: s.latest(prefix + w), HasChildren: true})
		}
	}
	return out, nil
}

func (s *memStore) History(ctx context.Context, path string, after cache.Position, limit int) ([]cache.Ref, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []cache.Ref
	for _, m := range s.at(path) {
		r := historyRef(m)
		if len(out) == limit {
			break
		}
		if after.IsZero() || r.Position().Compare(after) < 0 {
			out = append(out, r)
		}
	}
	return out, nil
}

func (s *memStore) Journal(ctx context.Context, from, to time.Time, after cache.Position, limit int) ([]cache.Ref, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var refs []cache.Ref
	for _, m := range s.msgs {
		if s.live(m.ID) != nil && !m.ReceivedAt.Before(from) && m.ReceivedAt.Before(to) {
			refs = append(refs, cache.Ref{ID: m.ID, At: m.ReceivedAt, ExpiresAt: m.ExpiresAt})
		}
	}
	slices.SortFunc(refs, func(a, b cache.Ref) int { return a.Position().Compare(b.Position()) })
	var out []cache.Ref
	for _, r := range refs {
		if len(out) == limit {
			break
		}
		if after.IsZero() || r.Position().Compare(after) > 0 {
			out = append(out, r)
		}
	}
	return out, nil
}

func (s *memStore) ExpiredSince(ctx context.Context, from time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for _, m := range s.msgs {
		if m.Expired(now) && !m.ReceivedAt.Before(from) {
			return true, nil
		}
	}
	return false, nil
}

func (s *memStore) Epoch() string { return s.epoch }

func (s *memStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed && !s.shared {
		return errClosedTwice
	}
	s.closed = true
	return nil
}

var errClosedTwice = errors.New("memStore closed twice")
