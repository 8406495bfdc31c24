package cassandrastore

import (
	"context"
	"fmt"
	"sync"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// batchBytes bounds the bodies of one unlogged batch: a partition's
// messages go out in batches of about this size (one batch is one
// mutation, which Cassandra caps at half a commit log segment).
const batchBytes = 512 << 10

// PutMessages writes each message with a TTL until its expiry, grouped by
// partition: one unlogged batch per partition (atomic there, one round
// trip), partitions concurrently, together with the bucket registry rows
// this process has not written yet. It returns once every write was
// acknowledged at the configured consistency. Messages already expired are
// not written.
func (qs *queueStore) PutMessages(ctx context.Context, q *sqs.Queue, msgs []*sqs.Message) error {
	const op = "put messages"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return err
	}
	now := qs.st.opts.Now()
	nowMs, nowNs := now.UnixMilli(), now.UnixNano()
	var w writeSet
	size := map[string]int{} // partition -> bytes in its current batch
	chunk := map[string]int{}
	for _, m := range msgs {
		if m.Shard < 0 || m.Shard >= shardCount(q) {
			return herald.Errorf(herald.EInvalid, "message %s: shard %d of a queue with %d", m.ID, m.Shard, shardCount(q))
		}
		expNs := unixNs(m.ExpiresAt)
		if expired(expNs, nowNs) {
			continue
		}
		attrs, err := encodeMsgAttrs(m)
		if err != nil {
			return herald.Errorf(herald.EInvalid, "message %s: attributes: %v", m.ID, err)
		}
		b := msgBucket(m.ID)
		part := fmt.Sprintf("m/%d/%d", m.Shard, b)
		if size[part] > 0 && size[part]+len(m.Body) > batchBytes {
			chunk[part]++
			size[part] = 0
		}
		size[part] += len(m.Body) + len(attrs)
		st := m.State
		w.add(fmt.Sprintf("%s#%d", part, chunk[part]), qs.q.insertMessage,
			cqlUUID(q.ID), m.Shard, b, msgPos(m.ID), m.Body, attrs, m.SenderID, unixNs(m.SentAt), expNs,
			m.MessageGroupID, m.MessageDeduplicationID, m.SequenceNumber, m.DeadLetterSourceARN,
			st.ReceiveCount, unixNs(st.FirstReceiveAt), unixNs(st.VisibleAt),
			cellTTL(nowMs, expNs))
		registryExpMs := ceilMs(expNs)
		if expNs == 0 {
			registryExpMs = nowMs + maxTTLSeconds*1000
		}
		qs.st.liveness(&w, fmt.Sprintf("b/%d", m.Shard), fmt.Sprintf("sqsb/%s/%d/%d", q.ID, m.Shard, b), nowMs, registryExpMs,
			qs.q.insertBucket, func(ts int64, ttl int, _ int64) []any { return []any{cqlUUID(q.ID), m.Shard, b, ts, ttl} })
	}
	if err := c.exec(ctx, &w); err != nil {
		return herald.Unavailable(op, err)
	}
	for _, k := range w.marks {
		qs.st.marks.record(k.key, k.exp, nowMs)
	}
	return nil
}

// GetMessages reads each id from its home partition (sqs_locate.go): one
// query per partition, concurrently; a partition asked for one id reads it
// with pos = ?, one asked for several with pos IN (...), a single
// read of the partition rather than one round trip per id. Messages are
// always stored in shard sqs.ShardOf(id), so no other shard is consulted.
func (qs *queueStore) GetMessages(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) ([]*sqs.Message, error) {
	const op = "get messages"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	nowNs := qs.st.opts.Now().UnixNano()
	found := make(map[uuid.UUID]*sqs.Message, len(ids))
	var home partPlan
	for _, id := range ids {
		if _, dup := found[id]; !dup && storable(id) {
			found[id] = nil
			home.add(homePart(q, id), msgPos(id))
		}
	}
	var mu sync.Mutex
	read := func(plan *partPlan) error {
		return forEachChunk(plan, func(k partKey, chunk [][]byte) error {
			var query *gocql.Query
			if len(chunk) == 1 {
				query = c.s.Query(qs.q.selectMessage, cqlUUID(q.ID), k.shard, k.bucket, chunk[0])
			} else {
				query = c.s.Query(qs.q.selectMessages, cqlUUID(q.ID), k.shard, k.bucket, chunk)
			}
			iter := query.WithContext(ctx).Iter()
			for {
				m, ok, err := scanMessage(iter, k.shard)
				if err != nil {
					iter.Close()
					return err
				}
				if !ok {
					break
				}
				if m == nil || expired(unixNs(m.ExpiresAt), nowNs) {
					continue
				}
				mu.Lock()
				found[m.ID] = m
				mu.Unlock()
			}
			return iter.Close()
		})
	}
	if err := read(&home); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	out := make([]*sqs.Message, 0, len(found))
	for _, id := range ids {
		if m := found[id]; m != nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// DeleteMessages deletes the rows of ids from their home partitions, one
// DELETE ... IN per partition, concurrently, without reading them first:
// an id that is not stored costs one row tombstone in its partition. At
// the settle level (conn.settleLevel): a delete lost with its data center
// costs a duplicate, never a message.
func (qs *queueStore) DeleteMessages(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) error {
	const op = "delete messages"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return err
	}
	var plan partPlan
	seen := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		if !seen[id] && storable(id) {
			seen[id] = true // a repeated id is deleted once
			plan.add(homePart(q, id), msgPos(id))
		}
	}
	err = forEachChunk(&plan, func(k partKey, chunk [][]byte) error {
		return c.s.Query(qs.q.deleteMessages, cqlUUID(q.ID), k.shard, k.bucket, chunk).Consistency(c.settleLevel()).WithContext(ctx).Exec()
	})
	if err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// SaveStates updates only the state cells of each message, in its home
// partition, one unlogged batch per partition, without reading the
// message: the cells' TTL comes from stateExpiryMs. The state of a message
// that is not stored (deleted meanwhile, unknown) makes a row without
// sent_ns, which reads ignore and which expires with that TTL. It returns
// when the writes are done: the contract allows less, but an error is then
// worth reporting.
func (qs *queueStore) SaveStates(ctx context.Context, q *sqs.Queue, states []sqs.State) error {
	const op = "save states"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return err
	}
	nowMs := qs.st.nowMs()
	w := writeSet{settle: true}
	for _, s := range states {
		if !storable(s.ID) {
			continue
		}
		expMs := stateExpiryMs(q, s.ID, nowMs)
		if expMs <= nowMs {
			continue // the message has expired
		}
		k := homePart(q, s.ID)
		w.add(fmt.Sprintf("m/%d/%d", k.shard, k.bucket), qs.q.updateState,
			ttlSeconds(nowMs, expMs), s.ReceiveCount, unixNs(s.FirstReceiveAt), unixNs(s.VisibleAt),
			cqlUUID(q.ID), k.shard, k.bucket, msgPos(s.ID))
	}
	if err := c.exec(ctx, &w); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// stateExpiryMs is when the state cells of message id of q expire: when
// the message does, as far as can be told without reading it. The Service
// sets a message's ExpiresAt to its SentAt (its ID's time, to the
// millisecond) plus the queue's retention period, or, for a FIFO message
// moved into a dead-letter queue, to the move's time plus it, which is
// before now plus it. One second more covers the ID time and SentAt
// differing by a little. If the retention period was shortened after the
// message was sent, its state may expire before it does: a lost state,
// which costs at most a duplicate delivery after an Index rebuild.
func stateExpiryMs(q *sqs.Queue, id uuid.UUID, nowMs int64) int64 {
	retention := int64(q.Attributes.MessageRetentionPeriod) * 1000
	if retention <= 0 {
		retention = int64(sqs.DefaultLimits().MaxMessageRetentionPeriod) * 1000
	}
	from := ticksMillis(idTicks(id))
	if q.Attributes.FifoQueue {
		from = max(from, nowMs)
	}
	return from + retention + 1000
}

// scanMessage reads the next row (messageColumns) of a partition of shard
// from iter. ok is false at the end; m is nil for a row that is not a
// message (state cells left by an update racing a delete).
func scanMessage(iter *gocql.Iter, shard int) (m *sqs.Message, ok bool, err error) {
	var (
		pos                                     []byte
		body, sender, group, dedup, seq, dlqSrc string
		attrs                                   []byte
		sentNs, expNs                           *int64
		count                                   int
		firstNs, visibleNs                      int64
	)
	if !iter.Scan(&pos, &body, &attrs, &sender, &sentNs, &expNs, &group, &dedup, &seq, &dlqSrc, &count, &firstNs, &visibleNs) {
		return nil, false, nil
	}
	id, valid := posID(pos)
	if !valid || sentNs == nil || expNs == nil {
		return nil, true, nil
	}
	m = &sqs.Message{
		ID: id, Shard: shard, Body: body, SenderID: sender,
		SentAt: nsTime(*sentNs), ExpiresAt: nsTime(*expNs),
		MessageGroupID: group, MessageDeduplicationID: dedup, SequenceNumber: seq, DeadLetterSourceARN: dlqSrc,
		State: sqs.State{ID: id, ReceiveCount: count, FirstReceiveAt: nsTime(firstNs), VisibleAt: nsTime(visibleNs)},
	}
	if err := decodeMsgAttrs(attrs, m); err != nil {
		return nil, false, err
	}
	return m, true, nil
}

// expired reports whether a message expiring at expNs (0: never) has
// expired at nowNs.
func expired(expNs, nowNs int64) bool { return expNs != 0 && expNs <= nowNs }

// cellTTL is the TTL of a cell of a message expiring at expNs: 0 (none)
// for a message that never expires.
func cellTTL(nowMs, expNs int64) int {
	if expNs == 0 {
		return 0
	}
	return ttlSeconds(nowMs, ceilMs(expNs))
}

// ceilMs converts Unix nanoseconds to milliseconds, rounding up, so that a
// TTL computed from it never ends before the expiry.
func ceilMs(ns int64) int64 { return floorDiv(ns+999_999, 1_000_000) }
