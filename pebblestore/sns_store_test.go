package pebblestore

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snstest"
)

// TestTopicStoreSurvivesReopen writes topics and subscriptions, closes the
// DB and checks every record (and every deletion) after opening it again.
func TestTopicStoreSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(dir, Options{ReapInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	s := db.Topics()
	kept := snstest.NewTopic(testAccount, "kept")
	kept.Attributes = map[string]string{"DisplayName": "Kept", "FifoTopic": "false"}
	kept.Tags = map[string]string{"env": "test"}
	gone := snstest.NewTopic(testAccount, "gone")
	for _, tp := range []*sns.Topic{kept, gone} {
		if _, err := s.CreateTopic(ctx, tp); err != nil {
			t.Fatal(err)
		}
	}
	pending := snstest.NewSubscription(kept, sns.ProtocolHTTPS, "https://example.com/")
	pending.Pending, pending.Token = true, "token"
	pending.Attributes = map[string]string{"RawMessageDelivery": "true"}
	confirmed := snstest.NewSubscription(kept, sns.ProtocolSQS, "arn:aws:sqs:us-east-1:"+testAccount+":q")
	unsubscribed := snstest.NewSubscription(kept, sns.ProtocolPath, "a.b")
	goneSub := snstest.NewSubscription(gone, sns.ProtocolHTTP, "http://gone")
	for _, sub := range []*sns.Subscription{pending, confirmed, unsubscribed, goneSub} {
		if err := s.PutSubscription(ctx, sub); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteSubscription(ctx, kept.ID, unsubscribed.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTopic(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetTopic(ctx, testAccount, "kept"); herald.ErrorCode(err) != herald.EUnavailable {
		t.Errorf("GetTopic after Close: %v, want an unavailable error", err)
	}

	s = openDBIn(t, dir, nil, Options{}).Topics()
	topics, err := s.ListTopics(ctx, testAccount, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(topics) != 1 || snstest.TopicDiff(kept, topics[0]) != "" {
		t.Fatalf("topics after reopening = %v, want only %v", topics, kept)
	}
	subs, err := s.ListSubscriptions(ctx, kept.ID, uuid.Nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []*sns.Subscription{pending, confirmed}
	slices.SortFunc(want, func(a, b *sns.Subscription) int { return slices.Compare(a.ID[:], b.ID[:]) })
	if len(subs) != len(want) {
		t.Fatalf("subscriptions after reopening: %d, want %d", len(subs), len(want))
	}
	for i := range want {
		if d := snstest.SubscriptionDiff(want[i], subs[i]); d != "" {
			t.Errorf("subscription %s after reopening: %s", want[i].ID, d)
		}
	}
	if got, err := s.ListSubscriptions(ctx, gone.ID, uuid.Nil, 10); err != nil || len(got) != 0 {
		t.Errorf("subscriptions of the deleted topic after reopening = %d, %v; want none", len(got), err)
	}
}

// TestTopicStoreKeys checks where the records live: the topic under 't',
// its subscriptions under 'n', and that deleting the topic leaves neither.
func TestTopicStoreKeys(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, nil, Options{})
	s := db.Topics()
	tp := snstest.NewTopic(testAccount, "t")
	if _, err := s.CreateTopic(ctx, tp); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := s.PutSubscription(ctx, snstest.NewSubscription(tp, sns.ProtocolHTTP, "http://x")); err != nil {
			t.Fatal(err)
		}
	}
	if got := [2]int{countKeys(t, db, prefixTopic), countKeys(t, db, prefixSubscription)}; got != [2]int{1, 3} {
		t.Errorf("keys (t, n) = %v, want [1 3]", got)
	}
	if err := s.DeleteTopic(ctx, tp); err != nil {
		t.Fatal(err)
	}
	if got := [2]int{countKeys(t, db, prefixTopic), countKeys(t, db, prefixSubscription)}; got != [2]int{0, 0} {
		t.Errorf("keys (t, n) after DeleteTopic = %v, want [0 0]", got)
	}
	if db.Topics() != db.Topics() {
		t.Error("Topics returns a new store each call, want one per DB")
	}
}

// TestTopicStoreCorruptRecord checks that a damaged record is reported,
// not decoded into garbage.
func TestTopicStoreCorruptRecord(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, nil, Options{})
	s := db.Topics()
	tp := snstest.NewTopic(testAccount, "t")
	if _, err := s.CreateTopic(ctx, tp); err != nil {
		t.Fatal(err)
	}
	sub := snstest.NewSubscription(tp, sns.ProtocolHTTP, "http://x")
	if err := s.PutSubscription(ctx, sub); err != nil {
		t.Fatal(err)
	}
	for _, key := range [][]byte{topicKey(testAccount, "t"), subscriptionKey(tp.ID, sub.ID)} {
		if err := db.pdb.Set(key, []byte{1, 2, 3}, pebble.Sync); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.GetTopic(ctx, testAccount, "t")
	if !errors.Is(err, errCorrupt) {
		t.Errorf("GetTopic of a corrupt record: %v, want errCorrupt", err)
	}
	if _, err = s.GetSubscription(ctx, tp.ID, sub.ID); !errors.Is(err, errCorrupt) {
		t.Errorf("GetSubscription of a corrupt record: %v, want errCorrupt", err)
	}
	if _, err = s.ListSubscriptions(ctx, tp.ID, uuid.Nil, 10); !errors.Is(err, errCorrupt) {
		t.Errorf("ListSubscriptions over a corrupt record: %v, want errCorrupt", err)
	}
}
