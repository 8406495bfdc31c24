package metrics

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// CacheStore wraps a cache.Store and records the latency of each operation.
type CacheStore struct {
	next cache.Store
	m    *Metrics
}

var _ cache.Store = (*CacheStore)(nil)

// InstrumentCacheStore returns store with every operation measured.
func InstrumentCacheStore(store cache.Store, m *Metrics) *CacheStore {
	return &CacheStore{next: store, m: m}
}

func (s *CacheStore) observe(op string, start time.Time, err error) {
	s.m.ObserveStore(op, err, time.Since(start))
}

func (s *CacheStore) PutMessage(ctx context.Context, msg *cache.Message) (*cache.Message, bool, error) {
	start := time.Now()
	stored, created, err := s.next.PutMessage(ctx, msg)
	s.observe("put_message", start, err)
	return stored, created, err
}

func (s *CacheStore) GetMessages(ctx context.Context, ids []uuid.UUID) ([]*cache.Message, error) {
	start := time.Now()
	ms, err := s.next.GetMessages(ctx, ids)
	s.observe("get_messages", start, err)
	return ms, err
}

func (s *CacheStore) Latest(ctx context.Context, path string) (*cache.Ref, error) {
	start := time.Now()
	ref, err := s.next.Latest(ctx, path)
	s.observe("latest", start, err)
	return ref, err
}

func (s *CacheStore) Children(ctx context.Context, parent, after string, limit int) ([]cache.Child, error) {
	start := time.Now()
	cs, err := s.next.Children(ctx, parent, after, limit)
	s.observe("children", start, err)
	return cs, err
}

func (s *CacheStore) History(ctx context.Context, path string, after cache.Position, limit int) ([]cache.Ref, error) {
	start := time.Now()
	refs, err := s.next.History(ctx, path, after, limit)
	s.observe("history", start, err)
	return refs, err
}

func (s *CacheStore) Journal(ctx context.Context, from, to time.Time, after cache.Position, limit int) ([]cache.Ref, error) {
	start := time.Now()
	refs, err := s.next.Journal(ctx, from, to, after, limit)
	s.observe("journal", start, err)
	return refs, err
}

func (s *CacheStore) ExpiredSince(ctx context.Context, from time.Time) (bool, error) {
	start := time.Now()
	expired, err := s.next.ExpiredSince(ctx, from)
	s.observe("expired_since", start, err)
	return expired, err
}

func (s *CacheStore) Close() error { return s.next.Close() }

// Epoch is the wrapped store's.
func (s *CacheStore) Epoch() string { return s.next.Epoch() }
