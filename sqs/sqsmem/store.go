package sqsmem

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	herald "github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// Store is a reference sqs.Store kept in maps under one lock: simple enough
// to be obviously correct, for unit tests of the Service and the self-test
// of sqstest. Values are copied in and out, as a real engine would
// serialize them.
type Store struct {
	mu        sync.Mutex
	queues    map[queueKey]*sqs.Queue
	messages  map[uuid.UUID]map[uuid.UUID]*sqs.Message // by queue ID, message ID
	unindexed map[uuid.UUID]struct{}
}

type queueKey struct{ account, name string }

var _ sqs.Store = (*Store)(nil)

// NewStore returns an empty Store.
func NewStore() *Store {
	return &Store{
		queues:    make(map[queueKey]*sqs.Queue),
		messages:  make(map[uuid.UUID]map[uuid.UUID]*sqs.Message),
		unindexed: make(map[uuid.UUID]struct{}),
	}
}

func (s *Store) CreateQueue(ctx context.Context, q *sqs.Queue) (*sqs.Queue, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := queueKey{q.Account, q.Name}
	if old, ok := s.queues[k]; ok {
		return copyQueue(old), herald.Errorf(herald.EConflict, "queue %s already exists", q.Name)
	}
	s.queues[k] = copyQueue(q)
	return copyQueue(q), nil
}

func (s *Store) GetQueue(ctx context.Context, account, name string) (*sqs.Queue, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, ok := s.queues[queueKey{account, name}]
	if !ok {
		return nil, herald.Errorf(herald.ENotFound, "queue %s does not exist", name)
	}
	return copyQueue(q), nil
}

func (s *Store) UpdateQueue(ctx context.Context, q *sqs.Queue) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := queueKey{q.Account, q.Name}
	if old, ok := s.queues[k]; !ok || old.ID != q.ID {
		return herald.Errorf(herald.ENotFound, "queue %s does not exist", q.Name)
	}
	s.queues[k] = copyQueue(q)
	return nil
}

func (s *Store) DeleteQueue(ctx context.Context, q *sqs.Queue) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := queueKey{q.Account, q.Name}
	if old, ok := s.queues[k]; !ok || old.ID != q.ID {
		return herald.Errorf(herald.ENotFound, "queue %s does not exist", q.Name)
	}
	delete(s.queues, k)
	delete(s.messages, q.ID) // unreachable at once; here also reclaimed at once
	return nil
}

func (s *Store) ListQueues(ctx context.Context, account, prefix, after string, limit int) ([]*sqs.Queue, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*sqs.Queue
	for k, q := range s.queues {
		if k.account == account && strings.HasPrefix(k.name, prefix) && k.name > after {
			out = append(out, copyQueue(q))
		}
	}
	slices.SortFunc(out, func(a, b *sqs.Queue) int { return strings.Compare(a.Name, b.Name) })
	if len(out) > limit {
		out = out[:max(limit, 0)]
	}
	return out, nil
}

func (s *Store) PutMessages(ctx context.Context, q *sqs.Queue, msgs []*sqs.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.messages[q.ID]
	if m == nil {
		m = make(map[uuid.UUID]*sqs.Message)
		s.messages[q.ID] = m
	}
	for _, msg := range msgs {
		m[msg.ID] = copyMessage(msg)
	}
	return nil
}

// live reports whether m is unexpired at now.
func live(_ *sqs.Queue, m *sqs.Message, now time.Time) bool {
	return m.ExpiresAt.IsZero() || now.Before(m.ExpiresAt)
}

func (s *Store) GetMessages(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) ([]*sqs.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	var out []*sqs.Message
	for _, id := range ids {
		if m, ok := s.messages[q.ID][id]; ok && live(q, m, now) {
			out = append(out, copyMessage(m))
		}
	}
	return out, nil
}

func (s *Store) DeleteMessages(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		delete(s.messages[q.ID], id)
	}
	return nil
}

func (s *Store) SaveStates(ctx context.Context, q *sqs.Queue, states []sqs.State) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range states {
		if m, ok := s.messages[q.ID][st.ID]; ok {
			m.State = st
		}
	}
	return nil
}

func (s *Store) ScanMessages(ctx context.Context, q *sqs.Queue, shard int, after uuid.UUID, limit int) ([]*sqs.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	var out []*sqs.Message
	for _, m := range s.messages[q.ID] {
		if m.Shard == shard && (after == uuid.Nil || compareIDs(m.ID, after) > 0) && live(q, m, now) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b *sqs.Message) int { return compareIDs(a.ID, b.ID) })
	if len(out) > limit {
		out = out[:max(limit, 0)]
	}
	for i, m := range out {
		out[i] = copyMessage(m)
	}
	return out, nil
}

// compareIDs orders message IDs as ScanMessages returns them: by the time
// of the version 1 UUID, then by bytes.
func compareIDs(a, b uuid.UUID) int {
	if c := compareInt64(int64(a.Time()), int64(b.Time())); c != 0 {
		return c
	}
	return bytes.Compare(a[:], b[:])
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *Store) PurgeMessages(ctx context.Context, q *sqs.Queue, before time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	maps.DeleteFunc(s.messages[q.ID], func(_ uuid.UUID, m *sqs.Message) bool { return m.SentAt.Before(before) })
	return nil
}

func (s *Store) MarkUnindexed(ctx context.Context, queueID uuid.UUID) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unindexed[queueID] = struct{}{}
	return nil
}

func (s *Store) TakeUnindexed(ctx context.Context, limit int) ([]uuid.UUID, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []uuid.UUID
	for id := range s.unindexed {
		if len(out) >= limit {
			break
		}
		out = append(out, id)
		delete(s.unindexed, id)
	}
	return out, nil
}

// DefaultShards is 1: a map needs no spreading.
func (s *Store) DefaultShards() int { return 1 }

func copyQueue(q *sqs.Queue) *sqs.Queue {
	c := *q
	c.Tags = maps.Clone(q.Tags)
	if p := q.Attributes.RedrivePolicy; p != nil {
		rp := *p
		c.Attributes.RedrivePolicy = &rp
	}
	if p := q.Attributes.RedriveAllowPolicy; p != nil {
		ap := *p
		ap.SourceQueueARNs = slices.Clone(p.SourceQueueARNs)
		c.Attributes.RedriveAllowPolicy = &ap
	}
	return &c
}

func copyMessage(m *sqs.Message) *sqs.Message {
	c := *m
	c.Attributes = copyAttributes(m.Attributes)
	c.SystemAttributes = copyAttributes(m.SystemAttributes)
	return &c
}

func copyAttributes(in map[string]sqs.MessageAttributeValue) map[string]sqs.MessageAttributeValue {
	if in == nil {
		return nil
	}
	out := make(map[string]sqs.MessageAttributeValue, len(in))
	for k, v := range in {
		v.BinaryValue = bytes.Clone(v.BinaryValue)
		out[k] = v
	}
	return out
}
