package pebblestore

import (
	"context"
	"errors"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

var _ sqs.RecordReader = (*QueueStore)(nil)

// GetMessageRecords returns the messages of q with these ids, in the
// order of ids, leaving out missing and expired ones as GetMessages does,
// but without their states: each is a point read of its record (in its
// home shard, then the others, as GetMessages looks), where GetMessages
// builds an iterator and seeks it over the record and the state after it.
// A receive, which replaces the states, reads through it.
func (s *QueueStore) GetMessageRecords(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) ([]*sqs.Message, error) {
	const op = "get message records"
	if len(ids) == 0 {
		return nil, nil
	}
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	now := s.db.now()
	out := make([]*sqs.Message, 0, len(ids))
	key := make([]byte, 0, sqsMsgKeyLen)
	for _, id := range ids {
		for i := range shardsOf(q) {
			shard := probeShard(q, id, i)
			key = appendTID(appendSQSShardPrefix(key[:0], q.ID, shard), id)
			m, err := s.getMessageRecord(key, shard, id, now)
			if err != nil {
				return nil, herald.Unavailable(op, err)
			}
			if m != nil {
				out = append(out, m)
				break
			}
		}
	}
	return out, nil
}

// getMessageRecord reads the record at key; nil when it is missing or
// has expired at now.
func (s *QueueStore) getMessageRecord(key []byte, shard int, id uuid.UUID, now time.Time) (*sqs.Message, error) {
	v, closer, err := s.db.pdb.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	if exp, _, ok := messageTimes(v); ok && expiredAt(exp, now) {
		return nil, nil
	}
	return decodeMessageRecord(id, shard, v)
}
