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
}
