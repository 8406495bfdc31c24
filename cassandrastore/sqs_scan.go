package cassandrastore

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// ScanMessages walks the shard's bucket registry oldest first, from the
// bucket of `after`, and reads each bucket's partition in position order
// until it has limit messages.
// Buckets are read one after the other: reading ahead concurrently would
// fetch up to limit messages per bucket only to drop them.
func (qs *queueStore) ScanMessages(ctx context.Context, q *sqs.Queue, shard int, after uuid.UUID, limit int) ([]*sqs.Message, error) {
	const op = "scan messages"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	if limit <= 0 || shard < 0 || shard >= shardCount(q) {
		return nil, nil
	}
	nowNs := qs.st.opts.Now().UnixNano()
	var from int64 // the registry's first bucket to read
	var afterPos []byte
	if after != uuid.Nil {
		from, afterPos = msgBucket(after), msgPos(after)
	}
	buckets := c.s.Query(qs.q.selectBuckets, cqlUUID(q.ID), shard, from).PageSize(100).WithContext(ctx).Iter()
	var out []*sqs.Message
	var b int64
	for len(out) < limit && buckets.Scan(&b) {
		query := c.s.Query(qs.q.scanBucket, cqlUUID(q.ID), shard, b)
		if afterPos != nil && b == msgBucket(after) {
			query = c.s.Query(qs.q.scanBucketAfter, cqlUUID(q.ID), shard, b, afterPos)
		}
		iter := query.PageSize(pageSize(limit - len(out))).WithContext(ctx).Iter()
		for len(out) < limit {
			m, ok, err := scanMessage(iter, shard)
			if err != nil {
				iter.Close()
				buckets.Close()
				return nil, herald.Errorf(herald.EInternal, "%s: %v", op, err)
			}
			if !ok {
				break
			}
			if m == nil || expired(unixNs(m.ExpiresAt), nowNs) {
				continue
			}
			out = append(out, m)
		}
		if err := iter.Close(); err != nil {
			buckets.Close()
			return nil, herald.Unavailable(op, err)
		}
	}
	if err := buckets.Close(); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return out, nil
}

// PurgeMessages deletes every message of q sent before `before`, shard by
// shard, concurrently. A bucket that ends a whole bucket before `before`
// holds only messages sent earlier (a message's ID time is its send time,
// to the millisecond), so its partition goes with one partition tombstone;
// the buckets around `before` are read and their earlier messages deleted
// row by row. Either way only what is stored when the purge runs goes: a
// message put afterwards (a dead-letter move keeps its old ID and SentAt)
// is written with a later timestamp than the tombstones and stays. Reads
// do not filter by q.PurgedAt, which only records the last purge.
func (qs *queueStore) PurgeMessages(ctx context.Context, q *sqs.Queue, before time.Time) error {
	const op = "purge messages"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return err
	}
	beforeNs := unixNs(before)
	last := timeBucket(before) + sqsBucketMs // the last bucket that may hold earlier messages
	err = parallel(shardCount(q), sqsConcurrency, func(shard int) error {
		iter := c.s.Query(qs.q.selectBuckets, cqlUUID(q.ID), shard, int64(0)).PageSize(1000).WithContext(ctx).Iter()
		var whole, partial []int64
		var b int64
		for iter.Scan(&b) && b <= last {
			if b+2*sqsBucketMs <= before.UnixMilli() {
				whole = append(whole, b)
			} else {
				partial = append(partial, b)
			}
		}
		if err := iter.Close(); err != nil {
			return err
		}
		err := parallel(len(whole), sqsConcurrency, func(i int) error {
			return c.write(qs.q.deletePartition, cqlUUID(q.ID), shard, whole[i]).WithContext(ctx).Exec()
		})
		if err != nil {
			return err
		}
		for _, b := range partial {
			if err := qs.purgeBucket(ctx, c, q, partKey{shard, b}, beforeNs); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// purgeBucket deletes the messages of one partition sent before beforeNs.
func (qs *queueStore) purgeBucket(ctx context.Context, c *conn, q *sqs.Queue, k partKey, beforeNs int64) error {
	iter := c.s.Query(qs.q.selectPurgeCandidates, cqlUUID(q.ID), k.shard, k.bucket).PageSize(1000).WithContext(ctx).Iter()
	var plan partPlan
	var pos []byte
	var sentNs *int64
	for iter.Scan(&pos, &sentNs) {
		if sentNs != nil && *sentNs < beforeNs {
			plan.add(k, pos)
		}
		pos, sentNs = nil, nil
	}
	if err := iter.Close(); err != nil {
		return err
	}
	return forEachChunk(&plan, func(k partKey, chunk [][]byte) error {
		return c.write(qs.q.deleteMessages, cqlUUID(q.ID), k.shard, k.bucket, chunk).WithContext(ctx).Exec()
	})
}
