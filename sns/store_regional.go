package sns

import (
	"context"

	"github.com/google/uuid"
)

// regionalStore is the Store as the Service uses it: topics are named by
// account, region and name (region.go), and records come back with the
// region split from the account. It has no method taking a bare account
// for a topic, so that no lookup can forget the region.
type regionalStore struct{ inner Store }

func (r regionalStore) CreateTopic(ctx context.Context, t *Topic) (*Topic, error) {
	got, err := r.inner.CreateTopic(ctx, topicToStore(t))
	return topicFromStore(got), err
}

func (r regionalStore) GetTopic(ctx context.Context, account, region, name string) (*Topic, error) {
	t, err := r.inner.GetTopic(ctx, storeAccount(account, region), name)
	return topicFromStore(t), err
}

func (r regionalStore) UpdateTopic(ctx context.Context, t *Topic) error {
	return r.inner.UpdateTopic(ctx, topicToStore(t))
}

func (r regionalStore) DeleteTopic(ctx context.Context, t *Topic) error {
	return r.inner.DeleteTopic(ctx, topicToStore(t))
}

func (r regionalStore) ListTopics(ctx context.Context, account, region, after string, limit int) ([]*Topic, error) {
	ts, err := r.inner.ListTopics(ctx, storeAccount(account, region), after, limit)
	for _, t := range ts {
		topicFromStore(t)
	}
	return ts, err
}

func (r regionalStore) PutSubscription(ctx context.Context, s *Subscription) error {
	return r.inner.PutSubscription(ctx, subToStore(s))
}

func (r regionalStore) GetSubscription(ctx context.Context, topicID, id uuid.UUID) (*Subscription, error) {
	s, err := r.inner.GetSubscription(ctx, topicID, id)
	return subFromStore(s), err
}

func (r regionalStore) DeleteSubscription(ctx context.Context, topicID, id uuid.UUID) error {
	return r.inner.DeleteSubscription(ctx, topicID, id)
}

func (r regionalStore) ListSubscriptions(ctx context.Context, topicID, after uuid.UUID, limit int) ([]*Subscription, error) {
	subs, err := r.inner.ListSubscriptions(ctx, topicID, after, limit)
	for _, s := range subs {
		subFromStore(s)
	}
	return subs, err
}

func (r regionalStore) ListSubscriptionsByFilterKey(ctx context.Context, topicID uuid.UUID, key string, after uuid.UUID, limit int) ([]*Subscription, error) {
	subs, err := r.inner.ListSubscriptionsByFilterKey(ctx, topicID, key, after, limit)
	for _, s := range subs {
		subFromStore(s)
	}
	return subs, err
}

func (r regionalStore) IndexSubscriptions(ctx context.Context, topicID, after uuid.UUID, limit int) (uuid.UUID, error) {
	return r.inner.IndexSubscriptions(ctx, topicID, after, limit)
}

func (r regionalStore) PutAccountRecord(ctx context.Context, account, kind, key string, value []byte) error {
	return r.inner.PutAccountRecord(ctx, account, kind, key, value)
}

func (r regionalStore) GetAccountRecord(ctx context.Context, account, kind, key string) ([]byte, error) {
	return r.inner.GetAccountRecord(ctx, account, kind, key)
}

func (r regionalStore) DeleteAccountRecord(ctx context.Context, account, kind, key string) error {
	return r.inner.DeleteAccountRecord(ctx, account, kind, key)
}

func (r regionalStore) ListAccountRecords(ctx context.Context, account, kind, after string, limit int) ([]AccountRecord, error) {
	return r.inner.ListAccountRecords(ctx, account, kind, after, limit)
}
