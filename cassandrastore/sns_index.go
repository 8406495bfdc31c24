package cassandrastore

import (
	"context"
	"errors"
	"maps"
	"slices"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// The filter index (sns.Store, table sns_filter_index): a copy of each
// subscription under every key of sns.FilterIndexKeys ("" when it has
// none), written in the logged batch of its record. Two puts of one
// subscription racing on two nodes (a SetSubscriptionAttributes of its
// FilterPolicy on each, at once) may leave the entry of a key the loser's
// policy had until the subscription is next written: a fan-out then still
// tests that entry's copy against the message, so a stale entry can only
// deliver what the older policy let through.

// indexWrites adds to b the entries of s and the deletion of old's (nil:
// none) under keys s no longer has.
func (ts *topicStore) indexWrites(b *gocql.Batch, s, old *sns.Subscription) {
	keys := sns.FilterIndexEntries(s.Attributes)
	attrs := encodeStrings(s.Attributes)
	for _, k := range keys {
		b.Query(ts.q.insertIndexed, cqlUUID(s.TopicID), subBucket(s.ID), k, s.ID[:], s.TopicAccount, s.TopicName, s.Owner,
			s.Protocol, s.Endpoint, attrs, s.Pending, s.Token, unixNs(s.CreatedAt))
	}
	if old != nil {
		ts.indexDeletes(b, old, keys)
	}
}

// indexDeletes adds to b the deletion of old's entries under the keys not
// in keep.
func (ts *topicStore) indexDeletes(b *gocql.Batch, old *sns.Subscription, keep []string) {
	for _, k := range sns.FilterIndexEntries(old.Attributes) {
		if !slices.Contains(keep, k) {
			b.Query(ts.q.deleteIndexed, cqlUUID(old.TopicID), subBucket(old.ID), k, old.ID[:])
		}
	}
}

// ListSubscriptionsByFilterKey returns up to limit subscriptions of
// topicID indexed under key with IDs after `after`, walking the buckets
// as ListSubscriptions does.
func (ts *topicStore) ListSubscriptionsByFilterKey(ctx context.Context, topicID uuid.UUID, key string, after uuid.UUID, limit int) ([]*sns.Subscription, error) {
	const op = "list subscriptions by filter key"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	return ts.walkBuckets(ctx, op, topicID, after, limit, func(bucket int, from bool, need int) *gocql.Query {
		if from {
			return c.s.Query(ts.q.listIndexedAfter, cqlUUID(topicID), bucket, key, after[:], need)
		}
		return c.s.Query(ts.q.listIndexed, cqlUUID(topicID), bucket, key, need)
	})
}

// IndexSubscriptions writes the index entries of up to limit
// subscriptions of topicID after `after` from their records as listed,
// then reads each record again: a subscription deleted or changed in the
// meantime (whose own write could not know of these entries) has them
// deleted or rewritten from its record as it now is.
func (ts *topicStore) IndexSubscriptions(ctx context.Context, topicID, after uuid.UUID, limit int) (uuid.UUID, error) {
	const op = "index subscriptions"
	page, err := ts.ListSubscriptions(ctx, topicID, after, limit)
	if err != nil || len(page) == 0 {
		return uuid.Nil, err
	}
	c, err := ts.enter(ctx, op)
	if err != nil {
		return uuid.Nil, err
	}
	err = parallel(len(page), snsConcurrency, func(i int) error {
		listed := page[i]
		if err := ts.execIndex(ctx, c, func(b *gocql.Batch) { ts.indexWrites(b, listed, nil) }); err != nil {
			return err
		}
		now, err := ts.readSub(ctx, c, topicID, listed.ID)
		switch {
		case errors.Is(err, gocql.ErrNotFound):
			return ts.execIndex(ctx, c, func(b *gocql.Batch) { ts.indexDeletes(b, listed, nil) })
		case err != nil:
			return err
		case !sameSubscription(now, listed):
			return ts.execIndex(ctx, c, func(b *gocql.Batch) { ts.indexWrites(b, now, listed) })
		}
		return nil
	})
	var herr *herald.Error
	if errors.As(err, &herr) {
		return uuid.Nil, err
	}
	if err != nil {
		return uuid.Nil, herald.Unavailable(op, err)
	}
	return page[len(page)-1].ID, nil
}

// execIndex runs the index writes fill adds, all of one partition.
func (ts *topicStore) execIndex(ctx context.Context, c *conn, fill func(*gocql.Batch)) error {
	b := c.s.Batch(gocql.UnloggedBatch).WithContext(ctx)
	b.SetConsistency(c.writeLevel())
	fill(b)
	if b.Size() == 0 {
		return nil
	}
	return b.Exec()
}

// sameSubscription reports whether two reads of a subscription hold the
// same record.
func sameSubscription(a, b *sns.Subscription) bool {
	return a.Protocol == b.Protocol && a.Endpoint == b.Endpoint && a.Pending == b.Pending && a.Token == b.Token &&
		a.Owner == b.Owner && maps.Equal(a.Attributes, b.Attributes)
}
