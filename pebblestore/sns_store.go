package pebblestore

import (
	"bytes"
	"context"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

var _ sns.Store = (*TopicStore)(nil)

// topicLockBits sizes the striped locks of topic names and subscriptions.
const topicLockBits = 6

// TopicStore is the embedded engine's sns.Store: SNS topic records and
// subscriptions in the same Pebble database as the message cache and the
// queues (keys in sns_keys.go, records in sns_codec.go). Every write is
// synced: topics and subscriptions change rarely and must survive a crash.
// Obtain it with DB.Topics; it is closed with the DB.
type TopicStore struct {
	db *DB

	// locks make the read-check-write of the topic operations (per name,
	// done by records) and of DeleteSubscription (per subscription)
	// atomic.
	locks   stripedLocks
	records namedRecords[*sns.Topic]
}

// topicStoreOnce creates the DB's TopicStore on first use.
type topicStoreOnce struct {
	once  sync.Once
	store *TopicStore
}

// Topics returns the DB's SNS topic store (one per DB).
func (db *DB) Topics() sns.Store { return db.topicStore() }

func (db *DB) topicStore() *TopicStore {
	db.topics.once.Do(func() { db.topics.store = newTopicStore(db) })
	return db.topics.store
}

func newTopicStore(db *DB) *TopicStore {
	s := &TopicStore{db: db, locks: newStripedLocks(topicLockBits)}
	s.records = namedRecords[*sns.Topic]{
		db:     db,
		locks:  &s.locks,
		noun:   "topic",
		key:    topicKey,
		idOf:   func(t *sns.Topic) recordID { return recordID{t.Account, t.Name, t.ID} },
		check:  checkTopic,
		encode: func(t *sns.Topic) []byte { return appendTopicRecord(nil, t) },
		decode: decodeTopicRecord,
	}
	return s
}

func subscriptionNotFound(topicID, id uuid.UUID) error {
	return herald.Errorf(herald.ENotFound, "subscription %s of topic %s does not exist", id, topicID)
}

func checkTopic(t *sns.Topic) error {
	switch {
	case t == nil:
		return herald.Errorf(herald.EInvalid, "no topic")
	case t.Name == "":
		return herald.Errorf(herald.EInvalid, "topic has no name")
	}
	return nil
}

// CreateTopic stores t unless its account already has a topic of that
// name, which it then returns with an EConflict error.
func (s *TopicStore) CreateTopic(ctx context.Context, t *sns.Topic) (*sns.Topic, error) {
	return s.records.create(ctx, "create topic", t)
}

// GetTopic returns the topic account/name (ENotFound).
func (s *TopicStore) GetTopic(ctx context.Context, account, name string) (*sns.Topic, error) {
	return s.records.get(ctx, "get topic", account, name)
}

// UpdateTopic replaces the record of t, which must exist with t's ID.
func (s *TopicStore) UpdateTopic(ctx context.Context, t *sns.Topic) error {
	return s.records.update(ctx, "update topic", t)
}

// DeleteTopic removes t's record and, with one range deletion, all its
// subscriptions and their filter index entries, in one synced batch. ENotFound unless a topic of t's name
// and ID exists. A subscription put for t.ID after the deletion would
// outlive it: the service checks that the topic exists before
// subscribing, and topic IDs are never reused.
func (s *TopicStore) DeleteTopic(ctx context.Context, t *sns.Topic) error {
	return s.records.delete(ctx, "delete topic", t, func(b *pebble.Batch) error {
		subs := topicSubscriptionsPrefix(t.ID)
		if err := b.DeleteRange(subs, prefixEnd(subs), nil); err != nil {
			return err
		}
		index := filterTopicPrefix(t.ID)
		return b.DeleteRange(index, prefixEnd(index), nil)
	})
}

// ListTopics returns up to limit topics of account (no limit if limit <=
// 0) whose names sort after `after`, in byte order: one range scan.
func (s *TopicStore) ListTopics(ctx context.Context, account, after string, limit int) ([]*sns.Topic, error) {
	const op = "list topics"
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	acct := topicAccountPrefix(account, 0)
	lo, hi := acct, prefixEnd(acct)
	if after != "" {
		lo = successor(topicKey(account, after))
	}
	return scanRecords(ctx, s.db, op, lo, hi, limit, func(k, v []byte) (*sns.Topic, error) {
		return decodeTopicRecord(account, string(k[len(acct):]), v)
	})
}

// PutSubscription creates or replaces subscription sub.ID of sub.TopicID
// and its filter index entries (sns_index.go), in one synced batch under
// the subscription's lock.
func (s *TopicStore) PutSubscription(ctx context.Context, sub *sns.Subscription) error {
	const op = "put subscription"
	if sub == nil {
		return herald.Errorf(herald.EInvalid, "no subscription")
	}
	if err := s.db.enter(ctx, op); err != nil {
		return err
	}
	defer s.db.leave()
	key := subscriptionKey(sub.TopicID, sub.ID)
	defer s.locks.lock(key)()
	old, err := s.storedSubscription(sub.TopicID, sub.ID)
	if err != nil {
		return herald.Unavailable(op, err)
	}
	rec := appendSubscriptionRecord(nil, sub)
	b := s.db.pdb.NewBatch()
	defer b.Close()
	if err := b.Set(key, rec, nil); err != nil {
		return herald.Unavailable(op, err)
	}
	if err := writeIndex(b, sub, old, rec); err != nil {
		return herald.Unavailable(op, err)
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// GetSubscription returns subscription id of topic topicID (ENotFound).
func (s *TopicStore) GetSubscription(ctx context.Context, topicID, id uuid.UUID) (*sns.Subscription, error) {
	const op = "get subscription"
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	sub, found, err := get(s.db, subscriptionKey(topicID, id), func(v []byte) (*sns.Subscription, error) {
		return decodeSubscriptionRecord(topicID, id, v)
	})
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	if !found {
		return nil, subscriptionNotFound(topicID, id)
	}
	return sub, nil
}

// DeleteSubscription removes subscription id of topic topicID (ENotFound
// if absent).
func (s *TopicStore) DeleteSubscription(ctx context.Context, topicID, id uuid.UUID) error {
	const op = "delete subscription"
	if err := s.db.enter(ctx, op); err != nil {
		return err
	}
	defer s.db.leave()
	key := subscriptionKey(topicID, id)
	defer s.locks.lock(key)()
	old, err := s.storedSubscription(topicID, id)
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if old == nil {
		return subscriptionNotFound(topicID, id)
	}
	b := s.db.pdb.NewBatch()
	defer b.Close()
	if err := b.Delete(key, nil); err != nil {
		return herald.Unavailable(op, err)
	}
	if err := deleteIndex(b, old, nil); err != nil {
		return herald.Unavailable(op, err)
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// ListSubscriptions returns up to limit subscriptions of topic topicID (no
// limit if limit <= 0) whose IDs sort after `after` (uuid.Nil: from the
// start), in byte order of ID: one range scan that stops at the limit, so
// a page costs the same in a topic of any size.
func (s *TopicStore) ListSubscriptions(ctx context.Context, topicID, after uuid.UUID, limit int) ([]*sns.Subscription, error) {
	const op = "list subscriptions"
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	prefix := topicSubscriptionsPrefix(topicID)
	lo, hi := prefix, prefixEnd(prefix)
	if after != uuid.Nil {
		lo = successor(subscriptionKey(topicID, after))
	}
	return scanRecords(ctx, s.db, op, lo, hi, limit, func(k, v []byte) (*sns.Subscription, error) {
		if len(k) != subscriptionKeyLen {
			return nil, errCorruptSNS
		}
		return decodeSubscriptionRecord(topicID, uuid.UUID(k[1+idLen:]), v)
	})
}

// scanRecords decodes the records of [lo, hi) in key order, up to limit
// of them (all if limit <= 0).
func scanRecords[T any](ctx context.Context, db *DB, op string, lo, hi []byte, limit int, decode func(k, v []byte) (T, error)) ([]T, error) {
	if hi != nil && bytes.Compare(lo, hi) >= 0 {
		return nil, nil
	}
	it, err := db.newIter(ctx, lo, hi)
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	var out []T
	if limit > 0 {
		out = make([]T, 0, min(limit, maxPrealloc))
	}
	for valid := it.First(); valid && (limit <= 0 || len(out) < limit); valid = it.Next() {
		var rec T
		if rec, err = decode(it.Key(), it.Value()); err != nil {
			break
		}
		out = append(out, rec)
	}
	if err := closeIter(it, err); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return out, nil
}
