package cassandrastore

import (
	"context"
	"errors"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// Topic records. Like queue records (sqs_queues.go), every write is a
// lightweight transaction: concurrent creates of one name agree on one
// winner, and an update or delete never touches a topic created again
// under the same name (the condition is on the id).

// CreateTopic inserts t IF NOT EXISTS. When a topic of that name exists it
// returns that topic and EConflict; when the existing row is t itself (the
// driver retried an insert that had been applied), it succeeds.
func (ts *topicStore) CreateTopic(ctx context.Context, t *sns.Topic) (*sns.Topic, error) {
	const op = "create topic"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	// A create that finds the name taken reads the winner; if that topic
	// was deleted meanwhile, the insert is tried again.
	for range 3 {
		applied, err := c.s.Query(ts.q.insertTopic, accountKey(t.Account), topicSlot(t.Name), t.Name, cqlUUID(t.ID),
			encodeStrings(t.Attributes), encodeStrings(t.Tags), unixNs(t.CreatedAt)).
			SerialConsistency(ts.serial).WithContext(ctx).MapScanCAS(map[string]any{})
		if err != nil {
			return nil, herald.Unavailable(op, err)
		}
		if applied {
			return t, nil
		}
		old, err := ts.readTopic(ctx, c, t.Account, t.Name, ts.serial)
		if errors.Is(err, gocql.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, herald.Unavailable(op, err)
		}
		if old.ID == t.ID {
			return old, nil
		}
		return old, herald.Errorf(herald.EConflict, "topic %s already exists", t.Name)
	}
	return nil, herald.Unavailable(op, fmt.Errorf("topic %s: created and deleted concurrently, again and again", t.Name))
}

// GetTopic reads the record of account/name.
func (ts *topicStore) GetTopic(ctx context.Context, account, name string) (*sns.Topic, error) {
	const op = "get topic"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	t, err := ts.readTopic(ctx, c, account, name, 0)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, topicNotFound(name)
	}
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return t, nil
}

// UpdateTopic replaces the record of t IF its id is t.ID.
func (ts *topicStore) UpdateTopic(ctx context.Context, t *sns.Topic) error {
	const op = "update topic"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return err
	}
	applied, err := c.s.Query(ts.q.updateTopic, encodeStrings(t.Attributes), encodeStrings(t.Tags), unixNs(t.CreatedAt),
		accountKey(t.Account), topicSlot(t.Name), t.Name, cqlUUID(t.ID)).
		SerialConsistency(ts.serial).WithContext(ctx).MapScanCAS(map[string]any{})
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if !applied {
		return topicNotFound(t.Name)
	}
	return nil
}

// DeleteTopic deletes the record of t IF its id is t.ID, then the
// subscription partitions of t.ID, one partition tombstone per bucket.
//
// The record goes first, so that no reader finds the topic once its
// subscriptions start to go, and a delete of a stale topic value (another
// ID) touches nothing. If the subscription deletes fail, the error is
// EUnavailable, and the remaining rows belong to an ID that is never used
// again: no lookup through a topic reaches them. The record delete is not
// retried by the driver: a retry of an applied delete would report
// ENotFound.
func (ts *topicStore) DeleteTopic(ctx context.Context, t *sns.Topic) error {
	const op = "delete topic"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return err
	}
	applied, err := c.s.Query(ts.q.deleteTopic, accountKey(t.Account), topicSlot(t.Name), t.Name, cqlUUID(t.ID)).
		SerialConsistency(ts.serial).Idempotent(false).WithContext(ctx).MapScanCAS(map[string]any{})
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if !applied {
		return topicNotFound(t.Name)
	}
	if err := ts.deleteSubscriptions(ctx, c, t.ID); err != nil {
		return herald.Unavailable(op, fmt.Errorf("topic %s deleted, its subscriptions not all: %w", t.Name, err))
	}
	return nil
}

// deleteSubscriptions deletes every subscription partition of topic id.
func (ts *topicStore) deleteSubscriptions(ctx context.Context, c *conn, id uuid.UUID) error {
	return parallel(snsSubBuckets, snsConcurrency, func(bucket int) error {
		return c.s.Query(ts.q.deleteSubBucket, cqlUUID(id), bucket).WithContext(ctx).Exec()
	})
}

// snsConcurrency bounds the concurrent partition reads and deletes of one
// call.
const snsConcurrency = 32

// readTopic reads one record at the configured consistency, or at serial
// when it is not zero (to see the outcome of a Paxos round in progress).
func (ts *topicStore) readTopic(ctx context.Context, c *conn, account, name string, serial gocql.Consistency) (*sns.Topic, error) {
	query := c.s.Query(ts.q.selectTopic, accountKey(account), topicSlot(name), name).WithContext(ctx)
	if serial != 0 {
		query = query.Consistency(serial)
	}
	iter := query.Iter()
	t, ok, err := scanTopic(iter, account)
	if cerr := iter.Close(); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, gocql.ErrNotFound
	}
	return t, nil
}

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
