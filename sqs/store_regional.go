package sqs

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// regionalStore is the Store as the Service uses it: queues are named by
// account, region and name (region.go), records come back with Account
// and Region split. It has no method taking a bare account, so that no
// lookup can forget the region.
type regionalStore struct{ inner Store }

func (r regionalStore) CreateQueue(ctx context.Context, q *Queue) (*Queue, error) {
	got, err := r.inner.CreateQueue(ctx, toStore(q))
	return fromStore(got), err
}

func (r regionalStore) GetQueue(ctx context.Context, account, region, name string) (*Queue, error) {
	q, err := r.inner.GetQueue(ctx, storeAccount(account, region), name)
	return fromStore(q), err
}

func (r regionalStore) UpdateQueue(ctx context.Context, q *Queue) error {
	return r.inner.UpdateQueue(ctx, toStore(q))
}

func (r regionalStore) DeleteQueue(ctx context.Context, q *Queue) error {
	return r.inner.DeleteQueue(ctx, toStore(q))
}

func (r regionalStore) ListQueues(ctx context.Context, account, region, prefix, after string, limit int) ([]*Queue, error) {
	qs, err := r.inner.ListQueues(ctx, storeAccount(account, region), prefix, after, limit)
	for _, q := range qs {
		fromStore(q)
	}
	return qs, err
}

func (r regionalStore) PutMessages(ctx context.Context, q *Queue, msgs []*Message) error {
	return r.inner.PutMessages(ctx, toStore(q), msgs)
}

func (r regionalStore) GetMessages(ctx context.Context, q *Queue, ids []uuid.UUID) ([]*Message, error) {
	return r.inner.GetMessages(ctx, toStore(q), ids)
}

// GetMessageRecords reads through the Store's RecordReader, or its
// GetMessages when it has none.
func (r regionalStore) GetMessageRecords(ctx context.Context, q *Queue, ids []uuid.UUID) ([]*Message, error) {
	return ReadRecords(ctx, r.inner, toStore(q), ids)
}

func (r regionalStore) DeleteMessages(ctx context.Context, q *Queue, ids []uuid.UUID) error {
	return r.inner.DeleteMessages(ctx, toStore(q), ids)
}

func (r regionalStore) SaveStates(ctx context.Context, q *Queue, states []State) error {
	return r.inner.SaveStates(ctx, toStore(q), states)
}

func (r regionalStore) ScanMessages(ctx context.Context, q *Queue, shard int, after uuid.UUID, limit int) ([]*Message, error) {
	return r.inner.ScanMessages(ctx, toStore(q), shard, after, limit)
}

func (r regionalStore) PurgeMessages(ctx context.Context, q *Queue, before time.Time) error {
	return r.inner.PurgeMessages(ctx, toStore(q), before)
}

func (r regionalStore) MarkUnindexed(ctx context.Context, id uuid.UUID) error {
	return r.inner.MarkUnindexed(ctx, id)
}

func (r regionalStore) TakeUnindexed(ctx context.Context, limit int) ([]uuid.UUID, error) {
	return r.inner.TakeUnindexed(ctx, limit)
}

func (r regionalStore) DefaultShards() int { return r.inner.DefaultShards() }
