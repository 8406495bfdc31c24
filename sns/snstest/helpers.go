package snstest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sns"
)

// NowMilli returns the current time in UTC, truncated to the millisecond.
func NowMilli() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// NewAccount returns a random 12-digit account id, distinct (with
// overwhelming probability) from any other test's.
func NewAccount() string { return fmt.Sprintf("%012d", rand.Int64N(1e12)) }

// NewTopic returns the record of a new topic with a random ID, no
// attributes or tags, created now.
func NewTopic(account, name string) *sns.Topic {
	return &sns.Topic{ID: uuid.New(), Account: account, Name: name, CreatedAt: NowMilli()}
}

// NewSubscription returns the record of a new, confirmed subscription of
// topic with a random ID, owned by the topic's account, created now.
func NewSubscription(topic *sns.Topic, protocol, endpoint string) *sns.Subscription {
	return &sns.Subscription{
		ID:           uuid.New(),
		TopicID:      topic.ID,
		TopicAccount: topic.Account,
		TopicName:    topic.Name,
		Owner:        topic.Account,
		Protocol:     protocol,
		Endpoint:     endpoint,
		CreatedAt:    NowMilli(),
	}
}

// diff collects the differences between a wanted and a got record.
type diff []string

func (d *diff) check(field string, want, got any) {
	if want != got {
		*d = append(*d, fmt.Sprintf("%s = %v, want %v", field, got, want))
	}
}

func (d *diff) time(field string, want, got time.Time) {
	if !want.Equal(got) {
		*d = append(*d, fmt.Sprintf("%s = %v, want %v", field, got, want))
	}
}

func (d *diff) strings(field string, want, got map[string]string) {
	if !maps.Equal(want, got) {
		*d = append(*d, fmt.Sprintf("%s = %v, want %v", field, got, want))
	}
}

func (d diff) String() string { return strings.Join(d, "; ") }

// TopicDiff describes how got differs from want, "" if not at all. Times
// are compared as instants; nil and empty maps are equal.
func TopicDiff(want, got *sns.Topic) string {
	if want == nil || got == nil {
		if want == got {
			return ""
		}
		return fmt.Sprintf("topic = %v, want %v", got, want)
	}
	var d diff
	d.check("ID", want.ID, got.ID)
	d.check("Account", want.Account, got.Account)
	d.check("Name", want.Name, got.Name)
	d.strings("Attributes", want.Attributes, got.Attributes)
	d.strings("Tags", want.Tags, got.Tags)
	d.time("CreatedAt", want.CreatedAt, got.CreatedAt)
	return d.String()
}

// SubscriptionDiff describes how got differs from want, "" if not at all.
// Times are compared as instants; nil and empty maps are equal.
func SubscriptionDiff(want, got *sns.Subscription) string {
	if want == nil || got == nil {
		if want == got {
			return ""
		}
		return fmt.Sprintf("subscription = %v, want %v", got, want)
	}
	var d diff
	d.check("ID", want.ID, got.ID)
	d.check("TopicID", want.TopicID, got.TopicID)
	d.check("TopicAccount", want.TopicAccount, got.TopicAccount)
	d.check("TopicName", want.TopicName, got.TopicName)
	d.check("Owner", want.Owner, got.Owner)
	d.check("Protocol", want.Protocol, got.Protocol)
	d.check("Endpoint", want.Endpoint, got.Endpoint)
	d.strings("Attributes", want.Attributes, got.Attributes)
	d.check("Pending", want.Pending, got.Pending)
	d.check("Token", want.Token, got.Token)
	d.time("CreatedAt", want.CreatedAt, got.CreatedAt)
	return d.String()
}
