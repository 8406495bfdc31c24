// Package snsmem is the reference sns.Store: topics and subscriptions in
// maps behind one mutex, kept deliberately simple so that it is obviously
// correct. Tests of the topic service use it; it keeps nothing on disk.
package snsmem

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

var _ sns.Store = (*Store)(nil)

// topicKey names a topic record.
type topicKey struct{ account, name string }

// Store is an in-memory sns.Store, safe for concurrent use. It stores and
// returns copies, so callers may change the records they pass or get.
type Store struct {
	mu     sync.Mutex
	topics map[topicKey]*sns.Topic
	subs   map[uuid.UUID]map[uuid.UUID]*sns.Subscription // by topic ID, then subscription ID
	recs   map[recordKey][]byte                          // account records
}

// recordKey names an account record.
type recordKey struct{ account, kind, key string }

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{
		topics: make(map[topicKey]*sns.Topic),
		subs:   make(map[uuid.UUID]map[uuid.UUID]*sns.Subscription),
		recs:   make(map[recordKey][]byte),
	}
}

func copyTopic(t *sns.Topic) *sns.Topic {
	c := *t
	c.Attributes = maps.Clone(t.Attributes)
	c.Tags = maps.Clone(t.Tags)
	return &c
}

func copySubscription(s *sns.Subscription) *sns.Subscription {
	c := *s
	c.Attributes = maps.Clone(s.Attributes)
	return &c
}

func topicNotFound(account, name string) error {
	return herald.Errorf(herald.ENotFound, "topic %s/%s does not exist", account, name)
}

func subscriptionNotFound(topicID, id uuid.UUID) error {
	return herald.Errorf(herald.ENotFound, "subscription %s of topic %s does not exist", id, topicID)
}

// begin checks ctx and locks the store; the caller unlocks it.
func (s *Store) begin(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return herald.Unavailable(op, err)
	}
	s.mu.Lock()
	return nil
}

// CreateTopic stores t unless its name is taken in its account.
func (s *Store) CreateTopic(ctx context.Context, t *sns.Topic) (*sns.Topic, error) {
	if err := s.begin(ctx, "create topic"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	k := topicKey{t.Account, t.Name}
	if old, ok := s.topics[k]; ok {
		return copyTopic(old), herald.Errorf(herald.EConflict, "topic %s/%s already exists", t.Account, t.Name)
	}
	s.topics[k] = copyTopic(t)
	return t, nil
}

// GetTopic returns the topic account/name.
func (s *Store) GetTopic(ctx context.Context, account, name string) (*sns.Topic, error) {
	if err := s.begin(ctx, "get topic"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	t, ok := s.topics[topicKey{account, name}]
	if !ok {
		return nil, topicNotFound(account, name)
	}
	return copyTopic(t), nil
}

// UpdateTopic replaces the record of t, which must exist with t's ID.
func (s *Store) UpdateTopic(ctx context.Context, t *sns.Topic) error {
	if err := s.begin(ctx, "update topic"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	k := topicKey{t.Account, t.Name}
	if old, ok := s.topics[k]; !ok || old.ID != t.ID {
		return topicNotFound(t.Account, t.Name)
	}
	s.topics[k] = copyTopic(t)
	return nil
}

// DeleteTopic removes t, which must exist with t's ID, and its
// subscriptions.
func (s *Store) DeleteTopic(ctx context.Context, t *sns.Topic) error {
	if err := s.begin(ctx, "delete topic"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	k := topicKey{t.Account, t.Name}
	if old, ok := s.topics[k]; !ok || old.ID != t.ID {
		return topicNotFound(t.Account, t.Name)
	}
	delete(s.topics, k)
	delete(s.subs, t.ID)
	return nil
}

// ListTopics returns up to limit topics of account named after `after`, in
// byte order (no limit if limit <= 0).
func (s *Store) ListTopics(ctx context.Context, account, after string, limit int) ([]*sns.Topic, error) {
	if err := s.begin(ctx, "list topics"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []*sns.Topic
	for k, t := range s.topics {
		if k.account == account && k.name > after {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.Compare(out[i].Name, out[j].Name) < 0 })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	for i, t := range out {
		out[i] = copyTopic(t)
	}
	return out, nil
}

// PutSubscription creates or replaces subscription s.ID of s.TopicID.
func (s *Store) PutSubscription(ctx context.Context, sub *sns.Subscription) error {
	if err := s.begin(ctx, "put subscription"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	m := s.subs[sub.TopicID]
	if m == nil {
		m = make(map[uuid.UUID]*sns.Subscription)
		s.subs[sub.TopicID] = m
	}
	m[sub.ID] = copySubscription(sub)
	return nil
}

// GetSubscription returns subscription id of topic topicID.
func (s *Store) GetSubscription(ctx context.Context, topicID, id uuid.UUID) (*sns.Subscription, error) {
	if err := s.begin(ctx, "get subscription"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	sub, ok := s.subs[topicID][id]
	if !ok {
		return nil, subscriptionNotFound(topicID, id)
	}
	return copySubscription(sub), nil
}

// DeleteSubscription removes subscription id of topic topicID.
func (s *Store) DeleteSubscription(ctx context.Context, topicID, id uuid.UUID) error {
	if err := s.begin(ctx, "delete subscription"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	m := s.subs[topicID]
	if _, ok := m[id]; !ok {
		return subscriptionNotFound(topicID, id)
	}
	delete(m, id)
	if len(m) == 0 {
		delete(s.subs, topicID)
	}
	return nil
}

// ListSubscriptions returns up to limit subscriptions of topicID with IDs
// after `after`, in byte order of ID (no limit if limit <= 0). It sorts the
// topic's subscriptions on every call: fine for tests, not for millions.
func (s *Store) ListSubscriptions(ctx context.Context, topicID, after uuid.UUID, limit int) ([]*sns.Subscription, error) {
	if err := s.begin(ctx, "list subscriptions"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []*sns.Subscription
	for id, sub := range s.subs[topicID] {
		if after == uuid.Nil || bytes.Compare(id[:], after[:]) > 0 {
			out = append(out, sub)
		}
	}
	slices.SortFunc(out, func(a, b *sns.Subscription) int { return bytes.Compare(a.ID[:], b.ID[:]) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	for i, sub := range out {
		out[i] = copySubscription(sub)
	}
	return out, nil
}

// ListSubscriptionsByFilterKey returns up to limit subscriptions of
// topicID indexed under key (sns.FilterIndexKeys, derived on every call
// from the stored attributes), with IDs after `after`, in byte order of ID.
func (s *Store) ListSubscriptionsByFilterKey(ctx context.Context, topicID uuid.UUID, key string, after uuid.UUID, limit int) ([]*sns.Subscription, error) {
	all, err := s.ListSubscriptions(ctx, topicID, after, 0)
	if err != nil {
		return nil, err
	}
	out := slices.DeleteFunc(all, func(sub *sns.Subscription) bool {
		keys := sns.FilterIndexKeys(sub.Attributes)
		if key == "" {
			return len(keys) != 0
		}
		_, found := slices.BinarySearch(keys, key)
		return !found
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// IndexSubscriptions has nothing to write (the index is derived when
// read); it returns the last of the page it would have indexed.
func (s *Store) IndexSubscriptions(ctx context.Context, topicID, after uuid.UUID, limit int) (uuid.UUID, error) {
	page, err := s.ListSubscriptions(ctx, topicID, after, limit)
	if err != nil || len(page) == 0 {
		return uuid.Nil, err
	}
	return page[len(page)-1].ID, nil
}

func recordNotFound(account, kind, key string) error {
	return herald.Errorf(herald.ENotFound, "%s record %s of account %s does not exist", kind, key, account)
}

// PutAccountRecord stores a copy of value under (account, kind, key).
func (s *Store) PutAccountRecord(ctx context.Context, account, kind, key string, value []byte) error {
	if err := s.begin(ctx, "put account record"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.recs[recordKey{account, kind, key}] = bytes.Clone(value)
	return nil
}

// GetAccountRecord returns a copy of the value under (account, kind, key).
func (s *Store) GetAccountRecord(ctx context.Context, account, kind, key string) ([]byte, error) {
	if err := s.begin(ctx, "get account record"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	v, ok := s.recs[recordKey{account, kind, key}]
	if !ok {
		return nil, recordNotFound(account, kind, key)
	}
	return bytes.Clone(v), nil
}

// DeleteAccountRecord removes the record under (account, kind, key).
func (s *Store) DeleteAccountRecord(ctx context.Context, account, kind, key string) error {
	if err := s.begin(ctx, "delete account record"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	k := recordKey{account, kind, key}
	if _, ok := s.recs[k]; !ok {
		return recordNotFound(account, kind, key)
	}
	delete(s.recs, k)
	return nil
}

// ListAccountRecords returns up to limit records of account and kind with
// keys after `after`, in byte order (no limit if limit <= 0).
func (s *Store) ListAccountRecords(ctx context.Context, account, kind, after string, limit int) ([]sns.AccountRecord, error) {
	if err := s.begin(ctx, "list account records"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []sns.AccountRecord
	for k, v := range s.recs {
		if k.account == account && k.kind == kind && k.key > after {
			out = append(out, sns.AccountRecord{Key: k.key, Value: bytes.Clone(v)})
		}
	}
	slices.SortFunc(out, func(a, b sns.AccountRecord) int { return strings.Compare(a.Key, b.Key) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
