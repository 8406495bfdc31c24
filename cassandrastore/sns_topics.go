package cassandrastore

import (
	"context"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// Topic records are slotted records (slotted.go), like queue records.

// topicRecords is the sns_topics table as slotted records.
func topicRecords(q snsQueries, serial gocql.Consistency) slottedTable[sns.Topic] {
	return slottedTable[sns.Topic]{
		kind: "topic", slots: snsTopicSlots, serial: serial,
		insert: q.insertTopic, read: q.selectTopic, update: q.updateTopic, delete: q.deleteTopic,
		scan: scanTopic,
		key:  func(t *sns.Topic) recordKey { return recordKey{t.Account, t.Name, t.ID} },
	}
}

// CreateTopic inserts t IF NOT EXISTS. When a topic of that name exists it
// returns that topic and EConflict; when the existing row is t itself (the
// driver retried an insert that had been applied), it succeeds.
func (ts *topicStore) CreateTopic(ctx context.Context, t *sns.Topic) (*sns.Topic, error) {
	const op = "create topic"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	return ts.records.create(ctx, c, op, t, encodeStrings(t.Attributes), encodeStrings(t.Tags), unixNs(t.CreatedAt))
}

// GetTopic reads the record of account/name.
func (ts *topicStore) GetTopic(ctx context.Context, account, name string) (*sns.Topic, error) {
	const op = "get topic"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	return ts.records.get(ctx, c, op, account, name)
}

// UpdateTopic replaces the record of t IF its id is t.ID.
func (ts *topicStore) UpdateTopic(ctx context.Context, t *sns.Topic) error {
	const op = "update topic"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return err
	}
	return ts.records.replace(ctx, c, op, t, encodeStrings(t.Attributes), encodeStrings(t.Tags), unixNs(t.CreatedAt))
}

// DeleteTopic deletes the record of t IF its id is t.ID, then the
// subscription partitions of t.ID, one partition tombstone per bucket.
//
// The record goes first, so that no reader finds the topic once its
// subscriptions start to go, and a delete of a stale topic value (another
// ID) touches nothing. If the subscription deletes fail, the error is
// EUnavailable, and the remaining rows belong to an ID that is never used
// again: no lookup through a topic reaches them.
func (ts *topicStore) DeleteTopic(ctx context.Context, t *sns.Topic) error {
	const op = "delete topic"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return err
	}
	if err := ts.records.remove(ctx, c, op, t); err != nil {
		return err
	}
	if err := ts.deleteSubscriptions(ctx, c, t.ID); err != nil {
		return herald.Unavailable(op, fmt.Errorf("topic %s deleted, its subscriptions not all: %w", t.Name, err))
	}
	return nil
}

// deleteSubscriptions deletes every subscription partition of topic id,
// and its filter index.
func (ts *topicStore) deleteSubscriptions(ctx context.Context, c *conn, id uuid.UUID) error {
	return parallel(snsSubBuckets, snsConcurrency, func(bucket int) error {
		if err := c.write(ts.q.deleteSubBucket, cqlUUID(id), bucket).WithContext(ctx).Exec(); err != nil {
			return err
		}
		return c.write(ts.q.deleteIndexBucket, cqlUUID(id), bucket).WithContext(ctx).Exec()
	})
}

// snsConcurrency bounds the concurrent partition reads and deletes of one
// call.
const snsConcurrency = 32

// scanTopic reads the next record (topicColumns) from iter; ok is false at
// the end.
func scanTopic(iter *gocql.Iter, account string) (t *sns.Topic, ok bool, err error) {
	var (
		id          gocql.UUID
		name        string
		attrs, tags []byte
		createdNs   int64
	)
	if !iter.Scan(&id, &name, &attrs, &tags, &createdNs) {
		return nil, false, nil
	}
	t = &sns.Topic{ID: uuid.UUID(id), Account: account, Name: name, CreatedAt: nsTime(createdNs)}
	if t.Attributes, err = decodeStrings(attrs); err != nil {
		return nil, false, fmt.Errorf("topic %s: attributes: %w", name, err)
	}
	if t.Tags, err = decodeStrings(tags); err != nil {
		return nil, false, fmt.Errorf("topic %s: tags: %w", name, err)
	}
	return t, true, nil
}
