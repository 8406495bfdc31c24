package cassandrastore

import (
	"context"
	"encoding/json"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// Queue records are slotted records (slotted.go). A Paxos round costs four
// round trips; queue records change rarely.

// queueRecords is the sqs_queues table as slotted records.
func queueRecords(q sqsQueries, serial gocql.Consistency) slottedTable[sqs.Queue] {
	return slottedTable[sqs.Queue]{
		kind: "queue", slots: sqsQueueSlots, serial: serial,
		insert: q.insertQueue, read: q.selectQueue, update: q.updateQueue, delete: q.deleteQueue,
		scan: scanQueue,
		key:  func(q *sqs.Queue) recordKey { return recordKey{q.Account, q.Name, q.ID} },
	}
}

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
	return qs.records.create(ctx, c, op, q, q.Shards, attrs, q.Tags, unixNs(q.CreatedAt), unixNs(q.ModifiedAt), unixNs(q.PurgedAt), q.Home)
}

// GetQueue reads the record of account/name.
func (qs *queueStore) GetQueue(ctx context.Context, account, name string) (*sqs.Queue, error) {
	const op = "get queue"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	return qs.records.get(ctx, c, op, account, name)
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
	return qs.records.replace(ctx, c, op, q, q.Shards, attrs, q.Tags, unixNs(q.CreatedAt), unixNs(q.ModifiedAt), unixNs(q.PurgedAt))
}

// DeleteQueue deletes the record of q IF its id is q.ID. The messages stay
// until their TTLs end; no one reaches them, since queue ids are never
// reused.
func (qs *queueStore) DeleteQueue(ctx context.Context, q *sqs.Queue) error {
	const op = "delete queue"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return err
	}
	return qs.records.remove(ctx, c, op, q)
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
		home                          string
	)
	if !iter.Scan(&id, &name, &shards, &attrs, &tags, &createdNs, &modifiedNs, &purged, &home) {
		return nil, false, nil
	}
	q = &sqs.Queue{
		ID: uuid.UUID(id), Account: account, Name: name, Tags: tags, Shards: shards,
		CreatedAt: nsTime(createdNs), ModifiedAt: nsTime(modifiedNs), PurgedAt: nsTime(purged),
		Home: home,
	}
	if err := json.Unmarshal(attrs, &q.Attributes); err != nil {
		return nil, false, fmt.Errorf("queue %s: attributes: %w", name, err)
	}
	return q, true, nil
}
