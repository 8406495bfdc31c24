package metrics

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// Index wraps an sqs.Index (Redis, or the in-process one) and records the
// latency of each operation in herald_sqs_index_operation_duration_seconds.
type Index struct {
	next sqs.Index
	m    *Metrics
}

var _ sqs.Index = (*Index)(nil)

// InstrumentIndex returns index with every operation measured.
func InstrumentIndex(index sqs.Index, m *Metrics) *Index {
	return &Index{next: index, m: m}
}

func (x *Index) observe(op string, start time.Time, err error) {
	x.m.ObserveIndex(op, err, time.Since(start))
}

func (x *Index) Add(ctx context.Context, q sqs.IndexQueue, entries []sqs.Entry) error {
	start := time.Now()
	err := x.next.Add(ctx, q, entries)
	x.observe("add", start, err)
	return err
}

func (x *Index) Receive(ctx context.Context, q sqs.IndexQueue, r sqs.ReceiveRequest) (sqs.ReceiveResult, error) {
	start := time.Now()
	res, err := x.next.Receive(ctx, q, r)
	x.observe("receive", start, err)
	return res, err
}

func (x *Index) Remove(ctx context.Context, q sqs.IndexQueue, ids []uuid.UUID) error {
	start := time.Now()
	err := x.next.Remove(ctx, q, ids)
	x.observe("remove", start, err)
	return err
}

func (x *Index) SetVisibleAt(ctx context.Context, q sqs.IndexQueue, id uuid.UUID, receiveCount int, now, visibleAt time.Time) error {
	start := time.Now()
	err := x.next.SetVisibleAt(ctx, q, id, receiveCount, now, visibleAt)
	x.observe("set_visible_at", start, notFoundOK(err))
	return err
}

func (x *Index) Hide(ctx context.Context, q sqs.IndexQueue, id uuid.UUID, now, visibleAt time.Time) (sqs.Claim, error) {
	start := time.Now()
	c, err := x.next.Hide(ctx, q, id, now, visibleAt)
	x.observe("hide", start, notFoundOK(err))
	return c, err
}

func (x *Index) Missing(ctx context.Context, q sqs.IndexQueue, ids []uuid.UUID) ([]uuid.UUID, error) {
	start := time.Now()
	ids, err := x.next.Missing(ctx, q, ids)
	x.observe("missing", start, err)
	return ids, err
}

func (x *Index) Counts(ctx context.Context, q sqs.IndexQueue, now time.Time) (sqs.Counts, error) {
	start := time.Now()
	c, err := x.next.Counts(ctx, q, now)
	x.observe("counts", start, err)
	return c, err
}

func (x *Index) Drop(ctx context.Context, q sqs.IndexQueue) error {
	start := time.Now()
	err := x.next.Drop(ctx, q)
	x.observe("drop", start, err)
	return err
}

func (x *Index) MarkBuilt(ctx context.Context, q sqs.IndexQueue) error {
	start := time.Now()
	err := x.next.MarkBuilt(ctx, q)
	x.observe("mark_built", start, err)
	return err
}

func (x *Index) LockRebuild(ctx context.Context, q sqs.IndexQueue, lease time.Duration) (sqs.RebuildLease, bool, error) {
	start := time.Now()
	l, ok, err := x.next.LockRebuild(ctx, q, lease)
	x.observe("lock_rebuild", start, err)
	return l, ok, err
}

func (x *Index) Deduplicate(ctx context.Context, q sqs.IndexQueue, key string, id uuid.UUID, window time.Duration) (uuid.UUID, bool, error) {
	start := time.Now()
	existing, dup, err := x.next.Deduplicate(ctx, q, key, id, window)
	x.observe("deduplicate", start, err)
	return existing, dup, err
}
