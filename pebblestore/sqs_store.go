package pebblestore

import (
	"bytes"
	"context"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

var _ sqs.Store = (*QueueStore)(nil)

// queueLockBits sizes the striped locks of queue names.
const (
	queueLockBits  = 8
	embeddedShards = 1
)

// QueueStore is the embedded engine's sqs.Store: SQS queue records and
// messages in the same Pebble database as the message cache (keys in
// sqs_keys.go). It holds no per-queue state in memory, so idle queues cost
// only their records on disk. Obtain it with DB.Queues; it is closed with
// the DB.
type QueueStore struct {
	db *DB

	// nameLocks make the read-check-write of CreateQueue, UpdateQueue and
	// DeleteQueue (done by records) atomic per queue name without
	// serialising other names.
	nameLocks stripedLocks
	records   namedRecords[*sqs.Queue]

	// unindexedMu orders MarkUnindexed against TakeUnindexed, so that a
	// take never deletes a mark set after it read the marks.
	unindexedMu sync.Mutex
}

func newQueueStore(db *DB) *QueueStore {
	s := &QueueStore{db: db, nameLocks: newStripedLocks(queueLockBits)}
	s.records = namedRecords[*sqs.Queue]{
		db:     db,
		locks:  &s.nameLocks,
		noun:   "queue",
		key:    queueKey,
		idOf:   func(q *sqs.Queue) recordID { return recordID{q.Account, q.Name, q.ID} },
		check:  checkQueue,
		encode: func(q *sqs.Queue) []byte { return appendQueueRecord(nil, q) },
		decode: decodeQueueRecord,
	}
	return s
}

// Queues returns the DB's SQS queue store (one per DB).
func (db *DB) Queues() *QueueStore { return db.queues }

// DefaultShards is 1: one process appends to a Pebble memtable, so
// spreading a queue over shards would only lengthen scans. A queue created
// with more (--sqs-shards, the herald:shards tag) works all the same: every
// call follows its own q.Shards.
func (s *QueueStore) DefaultShards() int { return embeddedShards }

func checkQueue(q *sqs.Queue) error {
	switch {
	case q == nil:
		return herald.Errorf(herald.EInvalid, "no queue")
	case q.Name == "":
		return herald.Errorf(herald.EInvalid, "queue has no name")
	case q.Shards < 0 || q.Shards > sqs.MaxShards:
		return herald.Errorf(herald.EInvalid, "queue %q: %d shards (want 1..%d)", q.Name, q.Shards, sqs.MaxShards)
	}
	return nil
}

// CreateQueue stores q unless its account already has a queue of that
// name, which it then returns with an EConflict error.
func (s *QueueStore) CreateQueue(ctx context.Context, q *sqs.Queue) (*sqs.Queue, error) {
	return s.records.create(ctx, "create queue", q)
}

// GetQueue returns the queue account/name (ENotFound).
func (s *QueueStore) GetQueue(ctx context.Context, account, name string) (*sqs.Queue, error) {
	return s.records.get(ctx, "get queue", account, name)
}

// UpdateQueue replaces the record of q, which must exist with q's ID.
func (s *QueueStore) UpdateQueue(ctx context.Context, q *sqs.Queue) error {
	return s.records.update(ctx, "update queue", q)
}

// DeleteQueue removes q's record and all its messages and states in one
// synced batch: key by key if the queue holds at most maxPointDeletes
// keys, else with one range deletion (deletePrefix), so that deleting many
// small queues leaves no pile of range tombstones. Compaction reclaims
// their space later. Entries of the expiry index that refer to them are
// dropped by the reaper in time. A message put concurrently may outlive
// the deletion, as one put just after it may; the reaper drops it when it
// expires. ENotFound if no queue of q's name and ID exists.
func (s *QueueStore) DeleteQueue(ctx context.Context, q *sqs.Queue) error {
	return s.records.delete(ctx, "delete queue", q, func(b *pebble.Batch) error {
		if err := deletePrefix(ctx, s.db, b, sqsQueuePrefix(q.ID), maxPointDeletes); err != nil {
			return err
		}
		return b.Delete(unindexedKey(q.ID), nil)
	})
}

// ListQueues returns up to limit queues of account (no limit if limit <=
// 0) whose names start with prefix and sort after `after`, in byte order:
// one range scan of the account's records.
func (s *QueueStore) ListQueues(ctx context.Context, account, prefix, after string, limit int) ([]*sqs.Queue, error) {
	const op = "list queues"
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	acct := queueAccountPrefix(account, 0)
	lo := queueKey(account, prefix)
	hi := prefixEnd(lo)
	if after != "" {
		if past := successor(queueKey(account, after)); bytes.Compare(past, lo) > 0 {
			lo = past
		}
	}
	if hi != nil && bytes.Compare(lo, hi) >= 0 {
		return nil, nil
	}
	it, err := s.db.newIter(ctx, lo, hi)
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	var out []*sqs.Queue
	for valid := it.First(); valid && (limit <= 0 || len(out) < limit); valid = it.Next() {
		var q *sqs.Queue
		q, err = decodeQueueRecord(account, nameFromQueueKey(it.Key(), acct), it.Value())
		if err != nil {
			break
		}
		out = append(out, q)
	}
	if err := closeIter(it, err); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return out, nil
}

// MarkUnindexed durably notes that queueID may have messages the Index
// lacks.
func (s *QueueStore) MarkUnindexed(ctx context.Context, queueID uuid.UUID) error {
	const op = "mark unindexed"
	if err := s.db.enter(ctx, op); err != nil {
		return err
	}
	defer s.db.leave()
	s.unindexedMu.Lock()
	defer s.unindexedMu.Unlock()
	if err := s.db.pdb.Set(unindexedKey(queueID), nil, pebble.Sync); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// TakeUnindexed returns and clears up to limit marked queue IDs. The
// clearing is not synced: after a crash a mark may come back, which costs
// one needless Index rebuild.
func (s *QueueStore) TakeUnindexed(ctx context.Context, limit int) ([]uuid.UUID, error) {
	const op = "take unindexed"
	if limit <= 0 {
		return nil, nil
	}
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	s.unindexedMu.Lock()
	defer s.unindexedMu.Unlock()
	lo := []byte{prefixUnindexed}
	it, err := s.db.newIter(ctx, lo, prefixEnd(lo))
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	b := s.db.pdb.NewBatch()
	defer b.Close()
	var ids []uuid.UUID
	for valid := it.First(); valid && len(ids) < limit; valid = it.Next() {
		k := it.Key()
		if len(k) != 1+idLen {
			err = errCorruptSQS
			break
		}
		ids = append(ids, uuid.UUID(k[1:]))
		if err = b.Delete(k, nil); err != nil {
			break
		}
	}
	if err := closeIter(it, err); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return ids, nil
}
