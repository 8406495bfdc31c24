package metrics

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// QueueStore wraps an sqs.Store and records the latency of each operation
// in herald_store_operation_duration_seconds, as op "queue_<operation>".
type QueueStore struct {
	next sqs.Store
	m    *Metrics
}

var _ sqs.Store = (*QueueStore)(nil)

// InstrumentQueueStore returns store with every operation measured.
func InstrumentQueueStore(store sqs.Store, m *Metrics) *QueueStore {
	return &QueueStore{next: store, m: m}
}

func (s *QueueStore) observe(op string, start time.Time, err error) {
	s.m.ObserveStore(op, err, time.Since(start))
}

func (s *QueueStore) CreateQueue(ctx context.Context, q *sqs.Queue) (*sqs.Queue, error) {
	start := time.Now()
	got, err := s.next.CreateQueue(ctx, q)
	s.observe("queue_create_queue", start, conflictOK(err))
	return got, err
}

func (s *QueueStore) GetQueue(ctx context.Context, account, name string) (*sqs.Queue, error) {
	start := time.Now()
	q, err := s.next.GetQueue(ctx, account, name)
	s.observe("queue_get_queue", start, notFoundOK(err))
	return q, err
}

func (s *QueueStore) UpdateQueue(ctx context.Context, q *sqs.Queue) error {
	start := time.Now()
	err := s.next.UpdateQueue(ctx, q)
	s.observe("queue_update_queue", start, notFoundOK(err))
	return err
}

func (s *QueueStore) DeleteQueue(ctx context.Context, q *sqs.Queue) error {
	start := time.Now()
	err := s.next.DeleteQueue(ctx, q)
	s.observe("queue_delete_queue", start, notFoundOK(err))
	return err
}

func (s *QueueStore) ListQueues(ctx context.Context, account, prefix, after string, limit int) ([]*sqs.Queue, error) {
	start := time.Now()
	qs, err := s.next.ListQueues(ctx, account, prefix, after, limit)
	s.observe("queue_list_queues", start, err)
	return qs, err
}

func (s *QueueStore) PutMessages(ctx context.Context, q *sqs.Queue, msgs []*sqs.Message) error {
	start := time.Now()
	err := s.next.PutMessages(ctx, q, msgs)
	s.observe("queue_put_messages", start, err)
	return err
}

func (s *QueueStore) GetMessages(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) ([]*sqs.Message, error) {
	start := time.Now()
	ms, err := s.next.GetMessages(ctx, q, ids)
	s.observe("queue_get_messages", start, err)
	return ms, err
}

func (s *QueueStore) DeleteMessages(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) error {
	start := time.Now()
	err := s.next.DeleteMessages(ctx, q, ids)
	s.observe("queue_delete_messages", start, err)
	return err
}

func (s *QueueStore) SaveStates(ctx context.Context, q *sqs.Queue, states []sqs.State) error {
	start := time.Now()
	err := s.next.SaveStates(ctx, q, states)
	s.observe("queue_save_states", start, err)
	return err
}

func (s *QueueStore) ScanMessages(ctx context.Context, q *sqs.Queue, shard int, after uuid.UUID, limit int) ([]*sqs.Message, error) {
	start := time.Now()
	ms, err := s.next.ScanMessages(ctx, q, shard, after, limit)
	s.observe("queue_scan_messages", start, err)
	return ms, err
}

func (s *QueueStore) PurgeMessages(ctx context.Context, q *sqs.Queue, before time.Time) error {
	start := time.Now()
	err := s.next.PurgeMessages(ctx, q, before)
	s.observe("queue_purge_messages", start, err)
	return err
}

func (s *QueueStore) MarkUnindexed(ctx context.Context, queueID uuid.UUID) error {
	start := time.Now()
	err := s.next.MarkUnindexed(ctx, queueID)
	s.observe("queue_mark_unindexed", start, err)
	return err
}

func (s *QueueStore) TakeUnindexed(ctx context.Context, limit int) ([]uuid.UUID, error) {
	start := time.Now()
	ids, err := s.next.TakeUnindexed(ctx, limit)
	s.observe("queue_take_unindexed", start, err)
	return ids, err
}

func (s *QueueStore) DefaultShards() int { return s.next.DefaultShards() }

var _ sqs.RecordReader = (*QueueStore)(nil)

// GetMessageRecords passes sqs.RecordReader through (a receive reads its
// claims with it), falling back to GetMessages as sqs.ReadRecords does.
func (s *QueueStore) GetMessageRecords(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) ([]*sqs.Message, error) {
	start := time.Now()
	ms, err := sqs.ReadRecords(ctx, s.next, q, ids)
	s.observe("queue_get_message_records", start, err)
	return ms, err
}
