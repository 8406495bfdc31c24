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
	for _, m := range msgs {
		qs.locs.put(q.ID, m.ID, loc{int32(m.Shard), unixNs(m.ExpiresAt)})
	}
	return nil
}

// GetMessages reads the messages of ids with one query per partition
// (IN on the positions), concurrently; see sqs_locate.go for how the
// partitions are chosen.
func (qs *queueStore) GetMessages(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) ([]*sqs.Message, error) {
	const op = "get messages"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	nowNs := qs.st.opts.Now().UnixNano()
	found := make(map[uuid.UUID]*sqs.Message, len(ids))
	var mu sync.Mutex
	err = forEachChunk(qs.planReads(q, ids), func(k partKey, chunk [][]byte) error {
		iter := c.s.Query(qs.q.selectMessages, cqlUUID(q.ID), k.shard, k.bucket, chunk).WithContext(ctx).Iter()
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
			qs.locs.put(q.ID, m.ID, loc{int32(k.shard), unixNs(m.ExpiresAt)})
			mu.Lock()
			found[m.ID] = m
			mu.Unlock()
		}
		return iter.Close()
	})
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	out := make([]*sqs.Message, 0, len(found))
	for _, id := range ids {
		if m, ok := found[id]; ok {
			out = append(out, m)
		}
	}
	return out, nil
}

// DeleteMessages locates the messages (see sqs_locate.go) and deletes
// their rows, one DELETE ... IN per partition. Unknown ids cost a read,
// never a tombstone.
func (qs *queueStore) DeleteMessages(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) error {
	const op = "delete messages"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return err
	}
	where, err := qs.locate(ctx, c, q, ids, qs.st.opts.Now().UnixNano())
	if err != nil {
		return herald.Unavailable(op, err)
	}
	var plan partPlan
	for _, id := range ids {
		if l, ok := where[id]; ok {
			plan.add(l.part, l.pos)
			delete(where, id) // a repeated id is deleted once
		}
	}
	err = forEachChunk(&plan, func(k partKey, chunk [][]byte) error {
		return c.s.Query(qs.q.deleteMessages, cqlUUID(q.ID), k.shard, k.bucket, chunk).WithContext(ctx).Exec()
	})
	if err != nil {
		return herald.Unavailable(op, err)
	}
	for _, id := range ids {
		qs.locs.forget(q.ID, id)
	}
	return nil
}

// SaveStates locates the messages and updates only their state cells, with
// the TTL of the message, one unlogged batch per partition. States of
// messages not found are dropped. It returns when the writes are done:
// the contract allows less, but an error is then worth reporting.
func (qs *queueStore) SaveStates(ctx context.Context, q *sqs.Queue, states []sqs.State) error {
	const op = "save states"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return err
	}
	ids := make([]uuid.UUID, len(states))
	for i, s := range states {
		ids[i] = s.ID
	}
	nowMs := qs.st.nowMs()
	where, err := qs.locate(ctx, c, q, ids, nowMs*1e6)
	if err != nil {
		return herald.Unavailable(op, err)
	}
	var w writeSet
	for _, s := range states {
		l, ok := where[s.ID]
		if !ok {
			continue
		}
		w.add(fmt.Sprintf("m/%d/%d", l.part.shard, l.part.bucket), qs.q.updateState,
			cellTTL(nowMs, l.expNs), s.ReceiveCount, unixNs(s.FirstReceiveAt), unixNs(s.VisibleAt),
			cqlUUID(q.ID), l.part.shard, l.part.bucket, l.pos)
	}
	if err := c.exec(ctx, &w); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
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
