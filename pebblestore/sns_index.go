package pebblestore

import (
	"context"
	"slices"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// The filter index (sns.Store): each subscription is also stored under
// every key of sns.FilterIndexKeys ("" when it has none), a copy of its
// record, so that a fan-out reads the subscriptions of one key as one
// range scan. The record and its entries are written in one batch under
// the subscription's lock, which also covers reading the record it
// replaces (whose keys no longer held are deleted).

// writeIndex adds to b the entries of sub (record rec) and deletes those
// of old (nil: none) under keys sub no longer has.
func writeIndex(b *pebble.Batch, sub, old *sns.Subscription, rec []byte) error {
	keys := sns.FilterIndexEntries(sub.Attributes)
	for _, k := range keys {
		if err := b.Set(filterEntryKey(sub.TopicID, k, sub.ID), rec, nil); err != nil {
			return err
		}
	}
	if old != nil {
		return deleteIndex(b, old, keys)
	}
	return nil
}

// deleteIndex adds to b the deletion of old's entries under the keys not
// in keep.
func deleteIndex(b *pebble.Batch, old *sns.Subscription, keep []string) error {
	for _, k := range sns.FilterIndexEntries(old.Attributes) {
		if slices.Contains(keep, k) {
			continue
		}
		if err := b.Delete(filterEntryKey(old.TopicID, k, old.ID), nil); err != nil {
			return err
		}
	}
	return nil
}

// storedSubscription reads the record of subscription id of topicID (nil
// when absent).
func (s *TopicStore) storedSubscription(topicID, id uuid.UUID) (*sns.Subscription, error) {
	sub, found, err := get(s.db, subscriptionKey(topicID, id), func(v []byte) (*sns.Subscription, error) {
		return decodeSubscriptionRecord(topicID, id, v)
	})
	if err != nil || !found {
		return nil, err
	}
	return sub, nil
}

// ListSubscriptionsByFilterKey returns up to limit subscriptions of
// topicID indexed under key with IDs after `after`: one range scan.
func (s *TopicStore) ListSubscriptionsByFilterKey(ctx context.Context, topicID uuid.UUID, key string, after uuid.UUID, limit int) ([]*sns.Subscription, error) {
	const op = "list subscriptions by filter key"
	if err := s.db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer s.db.leave()
	prefix := filterKeyPrefix(topicID, key, 0)
	lo, hi := prefix, prefixEnd(prefix)
	if after != uuid.Nil {
		lo = successor(filterEntryKey(topicID, key, after))
	}
	return scanRecords(ctx, s.db, op, lo, hi, limit, func(k, v []byte) (*sns.Subscription, error) {
		if len(k) != len(prefix)+idLen {
			return nil, errCorruptSNS
		}
		return decodeSubscriptionRecord(topicID, uuid.UUID(k[len(prefix):]), v)
	})
}

// IndexSubscriptions writes the index entries of up to limit
// subscriptions of topicID after `after`, each under its lock from the
// record as it then is, and syncs them once at the end.
func (s *TopicStore) IndexSubscriptions(ctx context.Context, topicID, after uuid.UUID, limit int) (uuid.UUID, error) {
	const op = "index subscriptions"
	page, err := s.ListSubscriptions(ctx, topicID, after, limit)
	if err != nil || len(page) == 0 {
		return uuid.Nil, err
	}
	if err := s.db.enter(ctx, op); err != nil {
		return uuid.Nil, err
	}
	defer s.db.leave()
	for _, listed := range page {
		if err := s.indexOne(listed.TopicID, listed.ID); err != nil {
			return uuid.Nil, herald.Unavailable(op, err)
		}
	}
	if err := s.db.pdb.LogData(nil, pebble.Sync); err != nil {
		return uuid.Nil, herald.Unavailable(op, err)
	}
	return page[len(page)-1].ID, nil
}

// indexOne writes the entries of one subscription as stored now (none if
// it was deleted meanwhile).
func (s *TopicStore) indexOne(topicID, id uuid.UUID) error {
	defer s.locks.lock(subscriptionKey(topicID, id))()
	sub, err := s.storedSubscription(topicID, id)
	if err != nil || sub == nil {
		return err
	}
	b := s.db.pdb.NewBatch()
	defer b.Close()
	if err := writeIndex(b, sub, nil, appendSubscriptionRecord(nil, sub)); err != nil {
		return err
	}
	return b.Commit(pebble.NoSync)
}
