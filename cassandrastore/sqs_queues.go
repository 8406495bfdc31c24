package cassandrastore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// Queue records. Every write is a lightweight transaction, so concurrent
// creates of one name agree on a single winner, and an update or delete
// never touches a queue created again under the same name (the condition
// is on the id). A Paxos round costs four round trips; queue records change
// rarely, and reads are plain reads at the configured consistency.

// CreateQueue inserts q IF NOT EXISTS. When a queue of that name exists it
// returns that queue and EConflict; when the existing row is q itself (the
// driver retried an insert that had been applied), it succeeds.
func (qs *queueStore) CreateQueue(ctx context.Context, q *sqs.Queue) (*sqs.Queue, error) {
	const op = "create queue"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	attrs, err := json.Marshal(q.Attributes)
	if err != nil {
		return nil, herald.Errorf(herald.EInvalid, "queue %s: attributes: %v", q.Name, err)
	}
	// A create that finds the name taken reads the winner; if that queue
	// was deleted meanwhile, the insert is tried again.
	for range 3 {
		row := map[string]any{}
		applied, err := c.s.Query(qs.q.insertQueue, accountKey(q.Account), queueSlot(q.Name), q.Name, cqlUUID(q.ID), q.Shards, attrs, q.Tags,
			unixNs(q.CreatedAt), unixNs(q.ModifiedAt), unixNs(q.PurgedAt)).
			SerialConsistency(qs.serial).WithContext(ctx).MapScanCAS(row)
		if err != nil {
			return nil, herald.Unavailable(op, err)
		}
		if applied {
			return q, nil
		}
		old, err := qs.readQueue(ctx, c, q.Account, q.Name, qs.serial)
		if errors.Is(err, gocql.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, herald.Unavailable(op, err)
		}
		if old.ID == q.ID {
			return old, nil
		}
		return old, herald.Errorf(herald.EConflict, "queue %s already exists", q.Name)
	}
	return nil, herald.Unavailable(op, fmt.Errorf("queue %s: created and deleted concurrently, again and again", q.Name))
}

// GetQueue reads the record of account/name.
func (qs *queueStore) GetQueue(ctx context.Context, account, name string) (*sqs.Queue, error) {
	const op = "get queue"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	q, err := qs.readQueue(ctx, c, account, name, 0)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, notFound(name)
	}
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return q, nil
}

// UpdateQueue replaces the record of q IF its id is q.ID.
func (qs *queueStore) UpdateQueue(ctx context.Context, q *sqs.Queue) error {
	const op = "update queue"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return err
	}
	attrs, err := json.Marshal(q.Attributes)
	if err != nil {
		return herald.Errorf(herald.EInvalid, "queue %s: attributes: %v", q.Name, err)
	}
	applied, err := c.s.Query(qs.q.updateQueue, q.Shards, attrs, q.Tags, unixNs(q.CreatedAt), unixNs(q.ModifiedAt), unixNs(q.PurgedAt),
		accountKey(q.Account), queueSlot(q.Name), q.Name, cqlUUID(q.ID)).
		SerialConsistency(qs.serial).WithContext(ctx).MapScanCAS(map[string]any{})
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if !applied {
		return notFound(q.Name)
	}
	return nil
}

// DeleteQueue deletes the record of q IF its id is q.ID. The messages stay
// until their TTLs end; no one reaches them, since queue ids are never
// reused. The delete is not retried by the driver: a retry of an applied
// delete would report ENotFound.
func (qs *queueStore) DeleteQueue(ctx context.Context, q *sqs.Queue) error {
	const op = "delete queue"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return err
	}
	applied, err := c.s.Query(qs.q.deleteQueue, accountKey(q.Account), queueSlot(q.Name), q.Name, cqlUUID(q.ID)).
		SerialConsistency(qs.serial).Idempotent(false).WithContext(ctx).MapScanCAS(map[string]any{})
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if !applied {
		return notFound(q.Name)
	}
	return nil
}

// readQueue reads one record at the configured consistency, or at serial
// when it is not zero (to see the outcome of a Paxos round in progress).
func (qs *queueStore) readQueue(ctx context.Context, c *conn, account, name string, serial gocql.Consistency) (*sqs.Queue, error) {
	query := c.s.Query(qs.q.selectQueue, accountKey(account), queueSlot(name), name).WithContext(ctx)
	if serial != 0 {
		query = query.Consistency(serial)
	}
	iter := query.Iter()
	q, ok, err := scanQueue(iter, account)
	if cerr := iter.Close(); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, gocql.ErrNotFound
	}
	return q, nil
}

// scanQueue reads the next record (queueColumns) from iter; ok is false at
// the end.
func scanQueue(iter *gocql.Iter, account string) (q *sqs.Queue, ok bool, err error) {
	var (
		id                            gocql.UUID
		name                          string
		shards                        int
		attrs                         []byte
		tags                          map[string]string
		createdNs, modifiedNs, purged int64
	)
	if !iter.Scan(&id, &name, &shards, &attrs, &tags, &createdNs, &modifiedNs, &purged) {
		return nil, false, nil
	}
	q = &sqs.Queue{
		ID: uuid.UUID(id), Account: account, Name: name, Tags: tags, Shards: shards,
		CreatedAt: nsTime(createdNs), ModifiedAt: nsTime(modifiedNs), PurgedAt: nsTime(purged),
	}
	if err := json.Unmarshal(attrs, &q.Attributes); err != nil {
		return nil, false, fmt.Errorf("queue %s: attributes: %w", name, err)
	}
	return q, true, nil
}

func notFound(name string) error {
	return herald.Errorf(herald.ENotFound, "queue %s does not exist", name)
}
