package pebblestore

import (
	"bytes"
	"context"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// shardsOf returns the number of message shards of q (at least one).
func shardsOf(q *sqs.Queue) int { return max(q.Shards, 1) }

// probeShard is the i-th shard of q (i < shardsOf(q)) to look for message
// id in: its home shard first (sqs.ShardOf, where the Service stores every
// message), then the others in turn. A message the Service stored costs
// one lookup however many shards q has, and one stored elsewhere is still
// found.
func probeShard(q *sqs.Queue, id uuid.UUID, i int) int {
	n := shardsOf(q)
	if n == 1 {
		return 0
	}
	return (sqs.ShardOf(id, n) + i) % n
}

// expiredAt reports whether a message expiring at exp has expired at now;
// the zero time never expires.
func expiredAt(exp, now time.Time) bool { return !exp.IsZero() && !now.Before(exp) }

// PutMessages stores msgs, each with its state, and the expiry entries
// that cover them, in one batch committed with Sync: durable on return.
// Concurrent puts share WAL fsyncs through Pebble's group commit. It reads
// nothing: a message already stored under the same id is overwritten.
func (s *QueueStore) PutMessages(ctx context.Context, q *sqs.Queue, msgs []*sqs.Message) error {
	const op = "put messages"
	if len(msgs) == 0 {
		return nil
	}
	size := 0
	for _, m := range msgs {
		if m.Shard < 0 || m.Shard >= shardsOf(q) {
			return herald.Errorf(herald.EInvalid, "message %s: shard %d of a queue of %d", m.ID, m.Shard, shardsOf(q))
		}
		size += messageRecordSize(m) + 2*sqsStateKeyLen + stateSize + sqsExpiryKeyLen + 32
	}
	if err := s.db.enter(ctx, op); err != nil {
		return err
	}
	defer s.db.leave()

	b := s.db.pdb.NewBatchWithSize(size)
	defer b.Close()
	var key, val []byte
	var expiries []sqsExpiry // distinct, usually one per batch
	for _, m := range msgs {
		key = appendTID(append(key[:0], sqsShardPrefix(q.ID, m.Shard)...), m.ID)
		val = appendMessageRecord(val[:0], m)
		if err := b.Set(key, val, nil); err != nil {
			return herald.Unavailable(op, err)
		}
		key = append(key, sqsStateSuffix)
		if err := b.Set(key, appendState(val[:0], &m.State), nil); err != nil {
			return herald.Unavailable(op, err)
		}
		if m.ExpiresAt.IsZero() {
			continue
		}
		if e := sqsExpiryOf(q.ID, m.Shard, m.ID, m.ExpiresAt.UnixMilli()); !containsExpiry(expiries, e) {
			expiries = append(expiries, e)
		}
	}
	for _, e := range expiries {
		if err := b.Set(e.key(), nil, nil); err != nil {
			return herald.Unavailable(op, err)
		}
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

func containsExpiry(es []sqsExpiry, e sqsExpiry) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}

// msgReader reads messages of one queue with a single iterator: a message
// record and its state are adjacent keys, so one seek finds both.
type msgReader struct {
	it  *pebble.Iterator
	now time.Time
	key []byte // scratch
}

func (s *QueueStore) newMsgReader(ctx context.Context, q *sqs.Queue, lo, hi []byte) (*msgReader, error) {
	it, err := s.db.newIter(ctx, lo, hi)
	if err != nil {
		return nil, err
	}
	return &msgReader{it: it, now: s.db.now()}, nil
}

// hidden reports whether the message record rec is expired. (Reads do
// not filter by the queue's PurgedAt: PurgeMessages removes purged
// messages, and a message moved in later keeps its older SentAt.)
func (r *msgReader) hidden(rec []byte) bool {
	exp, _, ok := messageTimes(rec)
	return ok && expiredAt(exp, r.now)
}

// get returns the unexpired message id of shard with its state, or nil.
func (r *msgReader) get(queueID uuid.UUID, shard int, id uuid.UUID) (*sqs.Message, error) {
	r.key = appendTID(append(r.key[:0], sqsShardPrefix(queueID, shard)...), id)
	if !r.it.SeekGE(r.key) || !bytes.Equal(r.it.Key(), r.key) {
		return nil, r.it.Error()
	}
	return r.current(shard, id)
}

// current decodes the message record at the iterator, and the state that
// follows it; nil if the message is hidden. It leaves the iterator on
// the state key, or on the key after the record if it has none.
func (r *msgReader) current(shard int, id uuid.UUID) (*sqs.Message, error) {
	v, err := r.it.ValueAndErr()
	if err != nil {
		return nil, err
	}
	if r.hidden(v) {
		r.it.Next()
		return nil, nil
	}
	m, err := decodeMessageRecord(id, shard, v)
	if err != nil {
		return nil, err
	}
	if !r.it.Next() {
		return m, r.it.Error()
	}
	if k := r.it.Key(); len(k) == sqsStateKeyLen && k[sqsMsgKeyLen] == sqsStateSuffix &&
		bytes.Equal(k[:sqsMsgKeyLen], r.key[:sqsMsgKeyLen]) {
		if v, err = r.it.ValueAndErr(); err != nil {
			return nil, err
		}
		if m.State, err = decodeState(id, v); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (r *msgReader) close(err error) error { return closeIter(r.it, err) }

// find returns the message id of q, looking in its home shard, then in
// the others (probeShard); nil if absent.
func (r *msgReader) find(q *sqs.Queue, id uuid.UUID) (*sqs.Message, error) {
	for i := range shardsOf(q) {
		m, err := r.get(q.ID, probeShard(q, id, i), id)
		if m != nil || err != nil {
			return m, err
		}
	}
	return nil, nil
}

// GetMessages returns the messages of q with these ids, with their
// states, in the order of ids; missing and expired ones are left out.
func (s *QueueStore) GetMessages(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) ([]*sqs.Message, error) {
	const op = "get messages"
	if len(ids) == 0 {
		return nil, nil
	}
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	lo := sqsQueuePrefix(q.ID)
	r, err := s.newMsgReader(ctx, q, lo, prefixEnd(lo))
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	out := make([]*sqs.Message, 0, len(ids))
	for _, id := range ids {
		var m *sqs.Message
		if m, err = r.find(q, id); err != nil {
			break
		}
		if m != nil {
			out = append(out, m)
		}
	}
	if err := r.close(err); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return out, nil
}

// ScanMessages returns up to limit messages of one shard of q with ids
// after `after` (uuid.Nil: from the first), oldest first, leaving out
// expired and purged ones as GetMessages does: one range scan of the
// shard.
func (s *QueueStore) ScanMessages(ctx context.Context, q *sqs.Queue, shard int, after uuid.UUID, limit int) ([]*sqs.Message, error) {
	const op = "scan messages"
	if limit <= 0 || shard < 0 || shard >= shardsOf(q) {
		return nil, nil
	}
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	prefix := sqsShardPrefix(q.ID, shard)
	lo := prefix
	if after != uuid.Nil {
		lo = append(sqsMsgKey(q.ID, shard, after), sqsAfterSuffix) // past after and its state
	}
	r, err := s.newMsgReader(ctx, q, lo, prefixEnd(prefix))
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	it := r.it
	var out []*sqs.Message
	valid := it.First()
	for n := 0; valid && len(out) < limit; n++ {
		if n%ctxCheckEvery == ctxCheckEvery-1 {
			if err = ctx.Err(); err != nil {
				break
			}
		}
		_, id, state, ok := parseSQSMsgKey(it.Key())
		if !ok {
			err = errCorruptSQS
			break
		}
		if state { // a state without its message (deleted, or reaped): skip
			valid = it.Next()
			continue
		}
		r.key = append(r.key[:0], it.Key()...)
		var m *sqs.Message
		if m, err = r.current(shard, id); err != nil {
			break
		}
		if m != nil {
			out = append(out, m)
		}
		valid = it.Valid()
		if valid && len(it.Key()) == sqsStateKeyLen && bytes.Equal(it.Key()[:sqsMsgKeyLen], r.key) {
			valid = it.Next() // current left us on this message's state
		}
	}
	if err := r.close(err); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return out, nil
}

// DeleteMessages removes messages of q and their states with blind
// deletions, committed without waiting for the WAL sync: a delete lost in
// a crash redelivers a message, which at-least-once delivery allows. On a
// queue of one shard it reads nothing.
func (s *QueueStore) DeleteMessages(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) error {
	const op = "delete messages"
	if len(ids) == 0 {
		return nil
	}
	return s.writeByID(ctx, op, q, ids, len(ids)*2*(sqsStateKeyLen+16),
		func(b *pebble.Batch, key []byte, _ int) error {
			if err := b.Delete(key, nil); err != nil {
				return err
			}
			return b.Delete(append(key, sqsStateSuffix), nil)
		})
}

// SaveStates records delivery states with one unsynced batch (a lost state
// means a duplicate delivery). On a queue of one shard it reads nothing; a
// state of an unknown message is an orphan key that readers skip and that
// queue deletion, purges and the reaper remove.
func (s *QueueStore) SaveStates(ctx context.Context, q *sqs.Queue, states []sqs.State) error {
	const op = "save states"
	if len(states) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(states))
	for i := range states {
		ids[i] = states[i].ID
	}
	var val []byte
	return s.writeByID(ctx, op, q, ids, len(ids)*(sqsStateKeyLen+stateSize+16),
		func(b *pebble.Batch, key []byte, i int) error {
			val = appendState(val[:0], &states[i])
			return b.Set(append(key, sqsStateSuffix), val, nil)
		})
}

// writeByID calls write with the record key of each of ids (with spare
// capacity for a suffix) and commits the batch without sync. On a queue of
// several shards it first finds each id's shard, skipping unknown ids.
func (s *QueueStore) writeByID(ctx context.Context, op string, q *sqs.Queue, ids []uuid.UUID, size int,
	write func(b *pebble.Batch, key []byte, i int) error) error {
	if err := s.db.enter(ctx, op); err != nil {
		return err
	}
	defer s.db.leave()
	shards, err := s.shardsOfIDs(ctx, q, ids)
	if err != nil {
		return herald.Unavailable(op, err)
	}
	b := s.db.pdb.NewBatchWithSize(size)
	defer b.Close()
	key := make([]byte, 0, sqsStateKeyLen)
	for i, id := range ids {
		if shards[i] < 0 {
			continue
		}
		key = appendTID(append(key[:0], sqsShardPrefix(q.ID, shards[i])...), id)
		if err := write(b, key, i); err != nil {
			return herald.Unavailable(op, err)
		}
	}
	if b.Empty() {
		return nil
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return herald.Unavailable(op, err)
	}
	s.db.lazy.dirty()
	return nil
}

// shardsOfIDs returns the shard of each id, -1 for ids not stored, looking
// in each id's home shard first (probeShard). A queue of one shard needs no
// lookup.
func (s *QueueStore) shardsOfIDs(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) ([]int, error) {
	shards := make([]int, len(ids))
	if shardsOf(q) == 1 {
		return shards, nil
	}
	lo := sqsQueuePrefix(q.ID)
	it, err := s.db.newIter(ctx, lo, prefixEnd(lo))
	if err != nil {
		return nil, err
	}
	var key []byte
	for i, id := range ids {
		shards[i] = -1
		for j := range shardsOf(q) {
			shard := probeShard(q, id, j)
			key = appendTID(append(key[:0], sqsShardPrefix(q.ID, shard)...), id)
			if it.SeekGE(key) && bytes.Equal(it.Key(), key) {
				shards[i] = shard
				break
			}
		}
	}
	return shards, closeIter(it, nil)
}
