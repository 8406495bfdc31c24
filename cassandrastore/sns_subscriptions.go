package cassandrastore

import (
	"context"
	"errors"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// Subscriptions are written with plain upserts (no lightweight
// transactions: a subscription is only ever written by its own calls, and
// a Put that races a Delete ends one way or the other, as it would in
// either order), read at the configured consistency.

// PutSubscription upserts s in the bucket of its id, with its filter
// index entries (sns_index.go), in one logged batch: the record it
// replaces is read first, for the index keys it no longer has.
func (ts *topicStore) PutSubscription(ctx context.Context, s *sns.Subscription) error {
	const op = "put subscription"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return err
	}
	old, err := ts.readSub(ctx, c, s.TopicID, s.ID)
	if errors.Is(err, gocql.ErrNotFound) {
		old = nil
	} else if err != nil {
		return herald.Unavailable(op, err)
	}
	b := c.s.Batch(gocql.LoggedBatch).WithContext(ctx)
	b.SetConsistency(c.writeLevel())
	b.Query(ts.q.insertSub, cqlUUID(s.TopicID), subBucket(s.ID), s.ID[:], s.TopicAccount, s.TopicName, s.Owner,
		s.Protocol, s.Endpoint, encodeStrings(s.Attributes), s.Pending, s.Token, unixNs(s.CreatedAt))
	ts.indexWrites(b, s, old)
	if err := b.Exec(); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// GetSubscription reads subscription id of topic topicID.
func (ts *topicStore) GetSubscription(ctx context.Context, topicID, id uuid.UUID) (*sns.Subscription, error) {
	const op = "get subscription"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	s, err := ts.readSub(ctx, c, topicID, id)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, subNotFound(id)
	}
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return s, nil
}

// DeleteSubscription reads the subscription, to answer ENotFound when it
// is absent and for its filter index keys, then deletes its row and
// entries. Two concurrent deletes may both
// succeed; the row is gone either way.
func (ts *topicStore) DeleteSubscription(ctx context.Context, topicID, id uuid.UUID) error {
	const op = "delete subscription"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return err
	}
	old, err := ts.readSub(ctx, c, topicID, id)
	if errors.Is(err, gocql.ErrNotFound) {
		return subNotFound(id)
	} else if err != nil {
		return herald.Unavailable(op, err)
	}
	b := c.s.Batch(gocql.LoggedBatch).WithContext(ctx)
	b.SetConsistency(c.writeLevel())
	b.Query(ts.q.deleteSub, cqlUUID(topicID), subBucket(id), id[:])
	ts.indexDeletes(b, old, nil)
	if err := b.Exec(); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// ListSubscriptions walks the buckets of topicID from the bucket of
// `after`, in order (bucket order is id order, see subBucket), each a
// clustered range read of at most the number of subscriptions still
// needed. A large topic fills a page from one or two buckets; a small one
// has few rows per bucket, so the walk reads buckets in rounds, each round
// reading concurrently as many buckets as the density seen so far says it
// needs (at least twice the last round's), so that even an empty topic
// costs a handful of round trips, not 64. limit <= 0 returns nothing.
func (ts *topicStore) ListSubscriptions(ctx context.Context, topicID, after uuid.UUID, limit int) ([]*sns.Subscription, error) {
	const op = "list subscriptions"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	return ts.walkBuckets(ctx, op, topicID, after, limit, func(bucket int, from bool, need int) *gocql.Query {
		if from {
			return c.s.Query(ts.q.listSubsAfter, cqlUUID(topicID), bucket, after[:], need)
		}
		return c.s.Query(ts.q.listSubs, cqlUUID(topicID), bucket, need)
	})
}

// walkBuckets reads up to limit subscriptions of topicID after `after` in
// ID order from the 64 buckets (sns_subscriptions or sns_filter_index),
// as ListSubscriptions describes. query gives the read of one bucket: from
// is set for the bucket of after, where the read starts past it; need is
// the most rows wanted from it.
func (ts *topicStore) walkBuckets(ctx context.Context, op string, topicID, after uuid.UUID, limit int, query func(bucket int, from bool, need int) *gocql.Query) ([]*sns.Subscription, error) {
	if limit <= 0 {
		return nil, nil
	}
	next := 0
	if after != uuid.Nil {
		next = subBucket(after)
	}
	var (
		out        []*sns.Subscription
		window     = 1
		seen, rows int // buckets read in full, and their rows
	)
	for len(out) < limit && next < snsSubBuckets {
		need, n := limit-len(out), min(window, snsSubBuckets-next)
		got := make([][]*sns.Subscription, n)
		err := parallel(n, snsConcurrency, func(i int) error {
			bucket := next + i
			var err error
			got[i], err = ts.scanSubs(query(bucket, after != uuid.Nil && bucket == subBucket(after), need).WithContext(ctx).Iter(), topicID)
			return err
		})
		var herr *herald.Error
		if errors.As(err, &herr) {
			return nil, err
		}
		if err != nil {
			return nil, herald.Unavailable(op, err)
		}
		for _, subs := range got {
			out = append(out, subs[:min(len(subs), limit-len(out))]...)
			rows += len(subs)
		}
		next += n
		seen += n
		// Buckets still to read for need more rows at the density seen.
		need = limit - len(out)
		window = max(2*window, (need*seen+rows-1)/max(rows, 1))
	}
	return out, nil
}

// readSub reads one subscription; gocql.ErrNotFound if absent.
func (ts *topicStore) readSub(ctx context.Context, c *conn, topicID, id uuid.UUID) (*sns.Subscription, error) {
	subs, err := ts.scanSubs(c.s.Query(ts.q.selectSub, cqlUUID(topicID), subBucket(id), id[:]).WithContext(ctx).Iter(), topicID)
	if err != nil {
		return nil, err
	}
	if len(subs) == 0 {
		return nil, gocql.ErrNotFound
	}
	return subs[0], nil
}

// scanSubs reads every subscription (subColumns) of iter and closes it.
// A row that does not decode is an EInternal error; a failed read is the
// driver's error.
func (ts *topicStore) scanSubs(iter *gocql.Iter, topicID uuid.UUID) ([]*sns.Subscription, error) {
	var (
		out                                      []*sns.Subscription
		id, attrs                                []byte
		account, name, owner, protocol, endpoint string
		token                                    string
		pending                                  bool
		createdNs                                int64
	)
	for iter.Scan(&id, &account, &name, &owner, &protocol, &endpoint, &attrs, &pending, &token, &createdNs) {
		s := &sns.Subscription{
			TopicID: topicID, TopicAccount: account, TopicName: name, Owner: owner,
			Protocol: protocol, Endpoint: endpoint, Pending: pending, Token: token, CreatedAt: nsTime(createdNs),
		}
		var err error
		if s.ID, err = uuid.FromBytes(id); err == nil {
			s.Attributes, err = decodeStrings(attrs)
		}
		if err != nil {
			iter.Close()
			return nil, herald.Errorf(herald.EInternal, "subscription %x of topic %s: %v", id, topicID, err)
		}
		out = append(out, s)
	}
	if err := iter.Close(); err != nil {
		return nil, err
	}
	return out, nil
}
