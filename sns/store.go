package sns

import (
	"context"

	"github.com/google/uuid"
)

// Store is the durable half of the topic service: topics and their
// subscriptions. Every engine implements it and passes snstest.RunStore.
//
// Errors are *herald.Error values: ENotFound for a missing topic or
// subscription, EConflict for CreateTopic of an existing name,
// EUnavailable when the engine cannot be reached.
type Store interface {
	// CreateTopic stores t unless a topic of that account and name exists,
	// in which case it returns the existing topic and an EConflict error.
	CreateTopic(ctx context.Context, t *Topic) (*Topic, error)
	// GetTopic returns the topic of that account and name (ENotFound).
	GetTopic(ctx context.Context, account, name string) (*Topic, error)
	// UpdateTopic replaces the record of t.Account/t.Name, which must exist
	// with the same ID (ENotFound otherwise).
	UpdateTopic(ctx context.Context, t *Topic) error
	// DeleteTopic removes the topic and all its subscriptions (ENotFound
	// if absent).
	DeleteTopic(ctx context.Context, t *Topic) error
	// ListTopics returns up to limit topics of account whose names sort
	// after `after`, in byte order of name.
	ListTopics(ctx context.Context, account, after string, limit int) ([]*Topic, error)

	// PutSubscription stores s (creating or replacing the subscription of
	// s.TopicID with s.ID).
	PutSubscription(ctx context.Context, s *Subscription) error
	// GetSubscription returns subscription id of topic topicID (ENotFound).
	GetSubscription(ctx context.Context, topicID, id uuid.UUID) (*Subscription, error)
	// DeleteSubscription removes a subscription; ENotFound if absent.
	DeleteSubscription(ctx context.Context, topicID, id uuid.UUID) error
	// ListSubscriptions returns up to limit subscriptions of topic topicID
	// whose IDs sort after `after` (uuid.Nil: from the start), in byte
	// order of ID. Fan-out pages through a topic's subscriptions with it,
	// so it must stay cheap for topics with millions of subscriptions.
	ListSubscriptions(ctx context.Context, topicID, after uuid.UUID, limit int) ([]*Subscription, error)

	// The filter index. An engine keeps every subscription of a topic
	// under each of its FilterIndexKeys, and under "" when it has none,
	// with every PutSubscription (a replaced subscription leaves the keys
	// it no longer has), DeleteSubscription and DeleteTopic.

	// ListSubscriptionsByFilterKey returns up to limit subscriptions of
	// topic topicID indexed under key ("": those with no index keys) whose
	// IDs sort after `after`, in byte order of ID. A page costs the same
	// whatever the topic's size and however many subscriptions other keys
	// hold.
	ListSubscriptionsByFilterKey(ctx context.Context, topicID uuid.UUID, key string, after uuid.UUID, limit int) ([]*Subscription, error)
	// IndexSubscriptions writes the filter index entries of up to limit
	// subscriptions of topic topicID whose IDs sort after `after`, from
	// their stored records, and returns the ID of the last one (uuid.Nil
	// when there was none): it indexes the subscriptions of a topic stored
	// before the index existed.
	IndexSubscriptions(ctx context.Context, topicID, after uuid.UUID, limit int) (uuid.UUID, error)

	// Account records are an account's own settings that belong to no
	// topic: its SMS attributes, its opted-out phone numbers and its SMS
	// sandbox numbers (service_sms.go), each a kind of records by key.
	// Kind and key are non-empty; a value may be empty (it then comes back
	// empty, nil or not).

	// PutAccountRecord stores value under (account, kind, key), replacing
	// the record there.
	PutAccountRecord(ctx context.Context, account, kind, key string, value []byte) error
	// GetAccountRecord returns the value under (account, kind, key)
	// (ENotFound).
	GetAccountRecord(ctx context.Context, account, kind, key string) ([]byte, error)
	// DeleteAccountRecord removes the record under (account, kind, key);
	// ENotFound if absent.
	DeleteAccountRecord(ctx context.Context, account, kind, key string) error
	// ListAccountRecords returns up to limit records of account and kind
	// whose keys sort after `after` ("": from the start), in byte order of
	// key.
	ListAccountRecords(ctx context.Context, account, kind, after string, limit int) ([]AccountRecord, error)
}

// AccountRecord is one record of an account (see Store).
type AccountRecord struct {
	Key   string
	Value []byte
}
