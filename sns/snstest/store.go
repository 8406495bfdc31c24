// Package snstest holds the conformance suite of the topic service's
// engines: every sns.Store runs [RunStore] from its own tests, for example
//
//	func TestTopicStoreConformance(t *testing.T) {
//		snstest.RunStore(t, func(t *testing.T) sns.Store { return openTestStore(t) })
//	}
//
// The suite checks the semantics written in the doc comments of
// sns/store.go. It is written so that engines on a shared server
// (Cassandra) can give every subtest the same keyspace: each subtest uses
// fresh accounts and topic IDs and never assumes that the store is empty.
// Every time the suite writes is UTC with millisecond precision, so that
// every engine can store it exactly.
//
// The helpers NewAccount, NewTopic and NewSubscription build records for
// engines' own tests; TopicDiff and SubscriptionDiff compare them.
package snstest

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	herald "github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// RunStore runs the conformance suite of sns.Store against stores made by
// open, which is called once per subtest (engines on a shared server may
// return stores on one keyspace). Subtests run in parallel.
func RunStore(t *testing.T, open func(t *testing.T) sns.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(e *env)
	}{
		{"CreateThenGetReturnsEveryField", testCreateGetTopic},
		{"CreateExistingIsConflictWithTheExisting", testCreateExisting},
		{"GetMissingTopicIsNotFound", testGetMissingTopic},
		{"UpdateReplacesTheRecord", testUpdateTopic},
		{"UpdateMissingOrOtherIDIsNotFound", testUpdateMissing},
		{"DeleteTopicRemovesItsSubscriptions", testDeleteTopic},
		{"DeleteMissingOrOtherIDIsNotFound", testDeleteMissing},
		{"RecreatedTopicHasNoSubscriptions", testRecreatedTopic},
		{"ListTopicsByteOrderAndAccount", testListTopics},
		{"ListTopicsPages", testListTopicsPaging},
		{"PutThenGetSubscriptionReturnsEveryField", testPutGetSubscription},
		{"PutSameIDReplaces", testPutReplaces},
		{"GetMissingSubscriptionIsNotFound", testGetMissingSubscription},
		{"DeleteSubscription", testDeleteSubscription},
		{"ListSubscriptionsByteOrderAndAfter", testListSubscriptions},
		{"SubscriptionsOfOtherTopicsAreApart", testSubscriptionsApart},
		{"ManySubscriptionsPage", testManySubscriptions},
		{"FilterIndexFollowsPutsAndDeletes", testFilterIndex},
		{"AccountRecordPutGetReplace", testRecordPutGetReplace},
		{"AccountRecordMissingIsNotFound", testRecordMissing},
		{"AccountRecordDelete", testRecordDelete},
		{"AccountRecordsOfOtherAccountsAndKindsAreApart", testRecordsApart},
		{"AccountRecordsByteOrderAndPages", testRecordsPage},
		{"CancelledContextReturnsError", testCancelled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := open(t)
			if st == nil {
				t.Fatal("open returned a nil sns.Store")
			}
			tc.fn(&env{t: t, store: st, ctx: t.Context(), account: NewAccount()})
		})
	}
}

// env is what one subtest works with: its store and an account of its own.
type env struct {
	t       *testing.T
	store   sns.Store
	ctx     context.Context
	account string
}

// create stores a new topic of the subtest's account.
func (e *env) create(name string) *sns.Topic {
	e.t.Helper()
	tp := NewTopic(e.account, name)
	if _, err := e.store.CreateTopic(e.ctx, tp); err != nil {
		e.t.Fatalf("CreateTopic %s: %v", name, err)
	}
	return tp
}

// subscribe stores a new subscription of tp with an http endpoint.
func (e *env) subscribe(tp *sns.Topic, endpoint string) *sns.Subscription {
	e.t.Helper()
	s := NewSubscription(tp, sns.ProtocolHTTP, endpoint)
	e.put(s)
	return s
}

func (e *env) put(s *sns.Subscription) {
	e.t.Helper()
	if err := e.store.PutSubscription(e.ctx, s); err != nil {
		e.t.Fatalf("PutSubscription %s: %v", s.ID, err)
	}
}

// listAll pages through the subscriptions of topicID with pages of size
// page, checking that no page exceeds it.
func (e *env) listAll(topicID uuid.UUID, page int) []*sns.Subscription {
	e.t.Helper()
	var out []*sns.Subscription
	after := uuid.Nil
	for range 100_000 {
		got, err := e.store.ListSubscriptions(e.ctx, topicID, after, page)
		if err != nil {
			e.t.Fatalf("ListSubscriptions: %v", err)
		}
		if len(got) > page {
			e.t.Fatalf("ListSubscriptions returned %d subscriptions, more than the limit %d", len(got), page)
		}
		for _, sub := range got {
			if compareIDs(sub.ID, after) <= 0 && !(after == uuid.Nil && sub.ID == uuid.Nil) {
				e.t.Fatalf("ListSubscriptions(after %v) returned %v, not after it", after, sub.ID)
			}
			after = sub.ID
		}
		out = append(out, got...)
		if len(got) < page {
			return out
		}
	}
	e.t.Fatal("ListSubscriptions never ended")
	return nil
}

// listTopics pages through the topics of account with pages of size page.
func (e *env) listTopics(account string, page int) []*sns.Topic {
	e.t.Helper()
	var out []*sns.Topic
	after := ""
	for range 100_000 {
		got, err := e.store.ListTopics(e.ctx, account, after, page)
		if err != nil {
			e.t.Fatalf("ListTopics: %v", err)
		}
		if len(got) > page {
			e.t.Fatalf("ListTopics returned %d topics, more than the limit %d", len(got), page)
		}
		for _, tp := range got {
			if tp.Name <= after {
				e.t.Fatalf("ListTopics(after %q) returned %q, not after it", after, tp.Name)
			}
			after = tp.Name
		}
		out = append(out, got...)
		if len(got) < page {
			return out
		}
	}
	e.t.Fatal("ListTopics never ended")
	return nil
}

// wantCode fails the test unless err is a *herald.Error of code.
func wantCode(t *testing.T, op string, err error, code string) {
	t.Helper()
	if got := herald.ErrorCode(err); got != code {
		t.Errorf("%s: error %v (code %q), want code %q", op, err, got, code)
	}
}

func topicNames(ts []*sns.Topic) []string {
	out := make([]string, len(ts))
	for i, tp := range ts {
		out[i] = tp.Name
	}
	return out
}

func subIDs(ss []*sns.Subscription) []uuid.UUID {
	out := make([]uuid.UUID, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}

// sortedIDs returns the IDs of ss in byte order.
func sortedIDs(ss []*sns.Subscription) []uuid.UUID {
	ids := subIDs(ss)
	slices.SortFunc(ids, compareIDs)
	return ids
}

func compareIDs(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }
