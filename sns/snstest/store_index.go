package snstest

import (
	"fmt"
	"maps"
	"slices"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sns"
)

// byKey pages through the subscriptions of topicID indexed under key with
// pages of size page, checking order and the limit.
func (e *env) byKey(topicID uuid.UUID, key string, page int) []*sns.Subscription {
	e.t.Helper()
	var out []*sns.Subscription
	after := uuid.Nil
	for range 100_000 {
		got, err := e.store.ListSubscriptionsByFilterKey(e.ctx, topicID, key, after, page)
		if err != nil {
			e.t.Fatalf("ListSubscriptionsByFilterKey(%q): %v", key, err)
		}
		if len(got) > page {
			e.t.Fatalf("ListSubscriptionsByFilterKey(%q) returned %d subscriptions, more than the limit %d", key, len(got), page)
		}
		for _, sub := range got {
			if after != uuid.Nil && compareIDs(sub.ID, after) <= 0 {
				e.t.Fatalf("ListSubscriptionsByFilterKey(%q, after %v) returned %v, not after it", key, after, sub.ID)
			}
			after = sub.ID
		}
		out = append(out, got...)
		if len(got) < page {
			return out
		}
	}
	e.t.Fatal("ListSubscriptionsByFilterKey never ended")
	return nil
}

// wantIndex checks every key's listing of topic tp against subs, whose
// index keys are sns.FilterIndexKeys of their attributes, and the copies
// listed against the records.
func (e *env) wantIndex(tp *sns.Topic, subs map[uuid.UUID]*sns.Subscription, keys []string) {
	e.t.Helper()
	for _, key := range keys {
		var want []*sns.Subscription
		for _, s := range subs {
			k := sns.FilterIndexKeys(s.Attributes)
			if key == "" && len(k) == 0 || key != "" && slices.Contains(k, key) {
				want = append(want, s)
			}
		}
		for _, page := range []int{1, 3, 1000} {
			got := e.byKey(tp.ID, key, page)
			if !slices.Equal(subIDs(got), sortedIDs(want)) {
				e.t.Fatalf("under %q (pages of %d): %v, want %v", key, page, subIDs(got), sortedIDs(want))
			}
			for _, g := range got {
				if d := SubscriptionDiff(subs[g.ID], g); d != "" {
					e.t.Fatalf("under %q, subscription %s: %s", key, g.ID, d)
				}
			}
		}
	}
}

// testFilterIndex: every subscription is listed under each of its filter
// index keys, or under "" without any, as its latest Put has it; a Delete
// or DeleteTopic takes it out of every key.
func testFilterIndex(e *env) {
	tp := e.create("indexed")
	other := e.create("other")
	policies := []string{
		"",                        // no policy: ""
		`{"state": ["CA"]}`,       // state=CA
		`{"state": ["CA", "NY"]}`, // both
		`{"$or": [{"state": ["NY"]}, {"zip": ["10001"]}]}`,
		`{"price": [{"numeric": [">", 1]}]}`, // nothing exact: ""
		`{"state": [{"prefix": "C"}]}`,       // nothing exact: ""
	}
	keys := []string{"", "state=CA", "state=NY", "zip=10001", "state=TX"}
	subs := map[uuid.UUID]*sns.Subscription{}
	for i := range 30 {
		s := NewSubscription(tp, sns.ProtocolSQS, fmt.Sprintf("arn:aws:sqs:us-east-1:%s:q%d", e.account, i))
		if p := policies[i%len(policies)]; p != "" {
			s.Attributes = map[string]string{sns.AttrFilterPolicy: p}
		}
		e.put(s)
		subs[s.ID] = s
		o := NewSubscription(other, sns.ProtocolSQS, s.Endpoint) // in another topic, never listed here
		o.Attributes = maps.Clone(s.Attributes)
		e.put(o)
	}
	e.wantIndex(tp, subs, keys)

	// Changing a policy moves the subscription; confirming one changes
	// its copies; deleting one takes it out.
	ids := slices.Collect(maps.Keys(subs))
	slices.SortFunc(ids, compareIDs)
	moved := subs[ids[0]]
	moved.Attributes = map[string]string{sns.AttrFilterPolicy: `{"state": ["TX"]}`}
	e.put(moved)
	cleared := subs[ids[1]]
	cleared.Attributes = nil
	e.put(cleared)
	confirmed := subs[ids[2]]
	confirmed.Pending, confirmed.Token = true, "t"
	e.put(confirmed)
	if err := e.store.DeleteSubscription(e.ctx, tp.ID, ids[3]); err != nil {
		e.t.Fatalf("DeleteSubscription: %v", err)
	}
	delete(subs, ids[3])
	e.wantIndex(tp, subs, keys)

	// A subscription's entries can be rewritten from its record.
	for after := uuid.Nil; ; {
		last, err := e.store.IndexSubscriptions(e.ctx, tp.ID, after, 7)
		if err != nil {
			e.t.Fatalf("IndexSubscriptions: %v", err)
		}
		if last == uuid.Nil {
			break
		}
		after = last
	}
	e.wantIndex(tp, subs, keys)

	if err := e.store.DeleteTopic(e.ctx, tp); err != nil {
		e.t.Fatalf("DeleteTopic: %v", err)
	}
	e.wantIndex(tp, nil, keys)
	if got := e.byKey(other.ID, "state=CA", 100); len(got) != 10 {
		e.t.Fatalf("the other topic lists %d subscriptions under state=CA, want 10", len(got))
	}
}
