package pebblestore

import (
	"bytes"
	"context"
	"errors"
	"hash/maphash"
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
	numQueueLocks  = 1 << queueLockBits
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
	// DeleteQueue atomic per queue name without serialising other names.
	nameSeed  maphash.Seed
	nameLocks [numQueueLocks]sync.Mutex

	// unindexedMu orders MarkUnindexed against TakeUnindexed, so that a
	// take never deletes a mark set after it read the marks.
	unindexedMu sync.Mutex
}

func newQueueStore(db *DB) *QueueStore {
	return &QueueStore{db: db, nameSeed: maphash.MakeSeed()}
}

// Queues returns the DB's SQS queue store (one per DB).
func (db *DB) Queues() *QueueStore { return db.queues }

// DefaultShards is 1: one process appends to a Pebble memtable, so
// spreading a queue over shards would only lengthen scans.
func (s *QueueStore) DefaultShards() int { return embeddedShards }

// lockName locks the stripe of a queue name and returns its unlock.
func (s *QueueStore) lockName(account, name string) func() {
	var h maphash.Hash
	h.SetSeed(s.nameSeed)
	h.WriteString(account)
	h.WriteByte(0)
	h.WriteString(name)
	mu := &s.nameLocks[h.Sum64()>>(64-queueLockBits)]
	mu.Lock()
	return mu.Unlock
}

// getQueue reads a queue record; nil when absent.
func (s *QueueStore) getQueue(account, name string) (*sqs.Queue, error) {
	v, closer, err := s.db.pdb.Get(queueKey(account, name))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	return decodeQueueRecord(account, name, v)
}

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

func queueNotFound(account, name string) error {
	return herald.Errorf(herald.ENotFound, "queue %s/%s does not exist", account, name)
}

// CreateQueue stores q unless its account already has a queue of that
// name, which it then returns with an EConflict error.
func (s *QueueStore) CreateQueue(ctx context.Context, q *sqs.Queue) (*sqs.Queue, error) {
	const op = "create queue"
	if err := checkQueue(q); err != nil {
		return nil, err
	}
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	defer s.lockName(q.Account, q.Name)()
	old, err := s.getQueue(q.Account, q.Name)
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	if old != nil {
		return old, herald.Errorf(herald.EConflict, "queue %s/%s already exists", q.Account, q.Name)
	}
	if err := s.db.pdb.Set(queueKey(q.Account, q.Name), appendQueueRecord(nil, q), pebble.Sync); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return q, nil
}

// GetQueue returns the queue account/name (ENotFound).
func (s *QueueStore) GetQueue(ctx context.Context, account, name string) (*sqs.Queue, error) {
	const op = "get queue"
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	q, err := s.getQueue(account, name)
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	if q == nil {
		return nil, queueNotFound(account, name)
	}
	return q, nil
}

// UpdateQueue replaces the record of q, which must exist with q's ID.
func (s *QueueStore) UpdateQueue(ctx context.Context, q *sqs.Queue) error {
	const op = "update queue"
	if err := checkQueue(q); err != nil {
		return err
	}
	if err := s.db.enter(ctx, op); err != nil {
		return err
	}
	defer s.db.leave()
	defer s.lockName(q.Account, q.Name)()
	old, err := s.getQueue(q.Account, q.Name)
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if old == nil || old.ID != q.ID {
		return queueNotFound(q.Account, q.Name)
	}
	if err := s.db.pdb.Set(queueKey(q.Account, q.Name), appendQueueRecord(nil, q), pebble.Sync); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// DeleteQueue removes q's record and, with one range deletion, all its
// messages and states; compaction reclaims their space later. Entries of
// the expiry index that refer to them are dropped by the reaper in time.
// ENotFound if no queue of q's name and ID exists.
func (s *QueueStore) DeleteQueue(ctx context.Context, q *sqs.Queue) error {
	const op = "delete queue"
	if err := checkQueue(q); err != nil {
		return err
	}
	if err := s.db.enter(ctx, op); err != nil {
		return err
	}
	defer s.db.leave()
	defer s.lockName(q.Account, q.Name)()
	old, err := s.getQueue(q.Account, q.Name)
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if old == nil || old.ID != q.ID {
		return queueNotFound(q.Account, q.Name)
	}
	b := s.db.pdb.NewBatch()
	defer b.Close()
	msgs := sqsQueuePrefix(q.ID)
	for _, err := range []error{
		b.Delete(queueKey(q.Account, q.Name), nil),
		b.DeleteRange(msgs, prefixEnd(msgs), nil),
		b.Delete(unindexedKey(q.ID), nil),
	} {
		if err != nil {
			return herald.Unavailable(op, err)
		}
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
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
