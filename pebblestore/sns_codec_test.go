package pebblestore

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snstest"
)

func TestTopicRecordRoundTrip(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 0, 0, 123_000_000, time.UTC)
	for _, tp := range []*sns.Topic{
		{ID: uuid.New(), Account: "1", Name: "empty"},
		{ID: uuid.New(), Account: "1", Name: "full", CreatedAt: at,
			Attributes: map[string]string{"DisplayName": "ü", "": "empty name", "Policy": "{}"},
			Tags:       map[string]string{"a": "", "b": "2"}},
	} {
		rec := appendTopicRecord(nil, tp)
		got, err := decodeTopicRecord(tp.Account, tp.Name, rec)
		if err != nil {
			t.Fatalf("%s: %v", tp.Name, err)
		}
		if d := snstest.TopicDiff(tp, got); d != "" {
			t.Errorf("%s: %s", tp.Name, d)
		}
		for n := range rec { // every truncation is an error
			if _, err := decodeTopicRecord(tp.Account, tp.Name, rec[:n]); err == nil {
				t.Errorf("%s: record truncated to %d bytes decoded", tp.Name, n)
			}
		}
		if _, err := decodeTopicRecord(tp.Account, tp.Name, append(rec, 0)); err == nil {
			t.Errorf("%s: record with a trailing byte decoded", tp.Name)
		}
	}
}

func TestSubscriptionRecordRoundTrip(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 0, 0, 123_000_000, time.UTC)
	tp := &sns.Topic{ID: uuid.New(), Account: "123456789012", Name: "t"}
	for _, s := range []*sns.Subscription{
		{ID: uuid.New(), TopicID: tp.ID},
		{ID: uuid.New(), TopicID: tp.ID, TopicAccount: tp.Account, TopicName: tp.Name, Owner: "210987654321",
			Protocol: sns.ProtocolHTTPS, Endpoint: "https://h/p", Pending: true, Token: "tok", CreatedAt: at,
			Attributes: map[string]string{"RawMessageDelivery": "true", "FilterPolicy": `{"a":["b"]}`}},
	} {
		rec := appendSubscriptionRecord(nil, s)
		got, err := decodeSubscriptionRecord(s.TopicID, s.ID, rec)
		if err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		if d := snstest.SubscriptionDiff(s, got); d != "" {
			t.Errorf("%s: %s", s.ID, d)
		}
		for n := range rec {
			if _, err := decodeSubscriptionRecord(s.TopicID, s.ID, rec[:n]); err == nil {
				t.Errorf("%s: record truncated to %d bytes decoded", s.ID, n)
			}
		}
		if _, err := decodeSubscriptionRecord(s.TopicID, s.ID, append(rec, 0)); err == nil {
			t.Errorf("%s: record with a trailing byte decoded", s.ID)
		}
	}
}
