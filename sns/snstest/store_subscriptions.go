package snstest

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	herald "github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// pendingSubscription returns an unconfirmed https subscription of tp,
// owned by another account, with every field set.
func pendingSubscription(tp *sns.Topic) *sns.Subscription {
	s := NewSubscription(tp, sns.ProtocolHTTPS, "https://example.com/hook?x=1&y=ü")
	s.Owner = NewAccount()
	s.Attributes = map[string]string{
		"RawMessageDelivery": "true",
		"FilterPolicy":       `{"store":["example_corp"],"price":[{"numeric":[">",0]}]}`,
		"FilterPolicyScope":  "MessageAttributes",
		"RedrivePolicy":      `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:` + tp.Account + `:dlq"}`,
		"Empty":              "",
	}
	s.Pending = true
	s.Token = "2336412f37fb687f5d51e6e2425f004aed8ef2c1b8f0f4f4c2d9c4b0a1f0e9d8"
	s.CreatedAt = s.CreatedAt.Add(-time.Minute)
	return s
}

func testPutGetSubscription(e *env) {
	tp := e.create("t")
	subs := []*sns.Subscription{
		pendingSubscription(tp),
		NewSubscription(tp, sns.ProtocolSQS, "arn:aws:sqs:us-east-1:"+e.account+":q"),
		NewSubscription(tp, sns.ProtocolPath, "orders.eu.created"),
		NewSubscription(tp, sns.ProtocolHTTP, "http://localhost:8080/"),
	}
	for _, s := range subs {
		e.put(s)
	}
	for _, s := range subs {
		got, err := e.store.GetSubscription(e.ctx, tp.ID, s.ID)
		if err != nil {
			e.t.Fatalf("GetSubscription %s (%s): %v", s.ID, s.Protocol, err)
		}
		if d := SubscriptionDiff(s, got); d != "" {
			e.t.Errorf("GetSubscription %s (%s): %s", s.ID, s.Protocol, d)
		}
	}
	got := e.listAll(tp.ID, 100)
	if !slices.Equal(subIDs(got), sortedIDs(subs)) {
		e.t.Fatalf("ListSubscriptions = %v, want %v", subIDs(got), sortedIDs(subs))
	}
	for _, g := range got {
		for _, s := range subs {
			if s.ID == g.ID {
				if d := SubscriptionDiff(s, g); d != "" {
					e.t.Errorf("ListSubscriptions: subscription %s: %s", s.ID, d)
				}
			}
		}
	}
}

func testPutReplaces(e *env) {
	tp := e.create("t")
	s := pendingSubscription(tp)
	e.put(s)
	// Confirming clears Pending and Token and changes attributes.
	confirmed := *s
	confirmed.Pending = false
	confirmed.Token = ""
	confirmed.Attributes = map[string]string{"RawMessageDelivery": "false"}
	e.put(&confirmed)
	got, err := e.store.GetSubscription(e.ctx, tp.ID, s.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	if d := SubscriptionDiff(&confirmed, got); d != "" {
		e.t.Errorf("after replacing: %s", d)
	}
	cleared := confirmed
	cleared.Attributes = nil
	e.put(&cleared)
	if got, err = e.store.GetSubscription(e.ctx, tp.ID, s.ID); err != nil {
		e.t.Fatal(err)
	}
	if d := SubscriptionDiff(&cleared, got); d != "" {
		e.t.Errorf("after clearing attributes: %s", d)
	}
	if all := e.listAll(tp.ID, 10); len(all) != 1 {
		e.t.Errorf("after replacing, the topic has %d subscriptions, want 1", len(all))
	}
}

func testGetMissingSubscription(e *env) {
	tp := e.create("t")
	other := e.create("other")
	s := e.subscribe(tp, "http://a")
	_, err := e.store.GetSubscription(e.ctx, tp.ID, uuid.New())
	wantCode(e.t, "GetSubscription of a missing ID", err, herald.ENotFound)
	_, err = e.store.GetSubscription(e.ctx, other.ID, s.ID)
	wantCode(e.t, "GetSubscription under another topic", err, herald.ENotFound)
	_, err = e.store.GetSubscription(e.ctx, uuid.New(), s.ID)
	wantCode(e.t, "GetSubscription under a missing topic", err, herald.ENotFound)
	if got, err := e.store.ListSubscriptions(e.ctx, uuid.New(), uuid.Nil, 10); err != nil || len(got) != 0 {
		e.t.Errorf("ListSubscriptions of a missing topic = %v, %v; want none", subIDs(got), err)
	}
}

func testDeleteSubscription(e *env) {
	tp := e.create("t")
	other := e.create("other")
	a, b := e.subscribe(tp, "http://a"), e.subscribe(tp, "http://b")
	if err := e.store.DeleteSubscription(e.ctx, tp.ID, a.ID); err != nil {
		e.t.Fatalf("DeleteSubscription: %v", err)
	}
	_, err := e.store.GetSubscription(e.ctx, tp.ID, a.ID)
	wantCode(e.t, "GetSubscription after DeleteSubscription", err, herald.ENotFound)
	wantCode(e.t, "DeleteSubscription again", e.store.DeleteSubscription(e.ctx, tp.ID, a.ID), herald.ENotFound)
	wantCode(e.t, "DeleteSubscription of a missing ID", e.store.DeleteSubscription(e.ctx, tp.ID, uuid.New()), herald.ENotFound)
	wantCode(e.t, "DeleteSubscription under another topic", e.store.DeleteSubscription(e.ctx, other.ID, b.ID), herald.ENotFound)
	if got, err := e.store.GetSubscription(e.ctx, tp.ID, b.ID); err != nil || SubscriptionDiff(b, got) != "" {
		e.t.Errorf("DeleteSubscription changed another subscription: %v, %v", got, err)
	}
	if got := e.listAll(tp.ID, 10); !slices.Equal(subIDs(got), []uuid.UUID{b.ID}) {
		e.t.Errorf("ListSubscriptions after DeleteSubscription = %v, want [%v]", subIDs(got), b.ID)
	}
	if got, err := e.store.GetTopic(e.ctx, e.account, "t"); err != nil || got.ID != tp.ID {
		e.t.Errorf("DeleteSubscription changed the topic: %v, %v", got, err)
	}
}

// idWith returns an ID whose bytes are all b except the last, last.
func idWith(b, last byte) uuid.UUID {
	var id uuid.UUID
	for i := range id {
		id[i] = b
	}
	id[len(id)-1] = last
	return id
}

func testListSubscriptions(e *env) {
	tp := e.create("t")
	var subs []*sns.Subscription
	for i := range 20 {
		subs = append(subs, e.subscribe(tp, fmt.Sprintf("http://h/%d", i)))
	}
	// IDs at the ends of the byte order.
	for _, id := range []uuid.UUID{idWith(0x00, 0x01), idWith(0xff, 0xff), idWith(0x7f, 0x80), idWith(0x80, 0x00)} {
		s := NewSubscription(tp, sns.ProtocolHTTP, "http://edge")
		s.ID = id
		e.put(s)
		subs = append(subs, s)
	}
	want := sortedIDs(subs)
	got, err := e.store.ListSubscriptions(e.ctx, tp.ID, uuid.Nil, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	if !slices.Equal(subIDs(got), want) {
		e.t.Fatalf("ListSubscriptions = %v, want byte order %v", subIDs(got), want)
	}
	afters := []uuid.UUID{want[0], want[5], want[len(want)-2], want[len(want)-1], idWith(0x7f, 0xff), uuid.New(), uuid.New()}
	for _, after := range afters {
		for _, limit := range []int{1, 3, 1000} {
			var wantAfter []uuid.UUID
			for _, id := range want {
				if compareIDs(id, after) > 0 && len(wantAfter) < limit {
					wantAfter = append(wantAfter, id)
				}
			}
			got, err := e.store.ListSubscriptions(e.ctx, tp.ID, after, limit)
			if err != nil {
				e.t.Fatal(err)
			}
			if !slices.Equal(subIDs(got), wantAfter) {
				e.t.Errorf("ListSubscriptions(after %v, limit %d) = %v, want %v", after, limit, subIDs(got), wantAfter)
			}
		}
	}
	for _, page := range []int{1, 7, 24} {
		if got := e.listAll(tp.ID, page); !slices.Equal(subIDs(got), want) {
			e.t.Errorf("pages of %d: %v, want %v", page, subIDs(got), want)
		}
	}
}

func testSubscriptionsApart(e *env) {
	// Topics whose IDs are neighbours in byte order, so that an engine
	// scanning one topic's range too far would see the other's.
	base := uuid.New()
	base[15] &^= 1
	next := base
	next[15] |= 1
	lo, hi := NewTopic(e.account, "lo"), NewTopic(e.account, "hi")
	lo.ID, hi.ID = base, next
	for _, tp := range []*sns.Topic{lo, hi} {
		if _, err := e.store.CreateTopic(e.ctx, tp); err != nil {
			e.t.Fatal(err)
		}
	}
	loLast := NewSubscription(lo, sns.ProtocolHTTP, "http://lo-last")
	loLast.ID = idWith(0xff, 0xff)
	hiFirst := NewSubscription(hi, sns.ProtocolHTTP, "http://hi-first")
	hiFirst.ID = idWith(0x00, 0x00)
	// The same subscription ID under both topics names two subscriptions.
	shared := uuid.New()
	loShared, hiShared := NewSubscription(lo, sns.ProtocolHTTP, "http://lo"), NewSubscription(hi, sns.ProtocolSQS, "arn:aws:sqs:us-east-1:1:q")
	loShared.ID, hiShared.ID = shared, shared
	for _, s := range []*sns.Subscription{loLast, hiFirst, loShared, hiShared} {
		e.put(s)
	}
	for _, c := range []struct {
		topic *sns.Topic
		want  []*sns.Subscription
	}{
		{lo, []*sns.Subscription{loShared, loLast}},
		{hi, []*sns.Subscription{hiFirst, hiShared}},
	} {
		got := e.listAll(c.topic.ID, 10)
		if !slices.Equal(subIDs(got), sortedIDs(c.want)) {
			e.t.Errorf("ListSubscriptions of %s = %v, want %v", c.topic.Name, subIDs(got), sortedIDs(c.want))
		}
		for _, g := range got {
			if g.TopicID != c.topic.ID {
				e.t.Errorf("ListSubscriptions of %s returned a subscription of topic %v", c.topic.Name, g.TopicID)
			}
		}
	}
	for _, s := range []*sns.Subscription{loShared, hiShared} {
		if got, err := e.store.GetSubscription(e.ctx, s.TopicID, shared); err != nil || SubscriptionDiff(s, got) != "" {
			e.t.Errorf("GetSubscription of a shared ID under %v = %v, %v; want %v", s.TopicID, got, err, s)
		}
	}
	if err := e.store.DeleteSubscription(e.ctx, lo.ID, shared); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.store.GetSubscription(e.ctx, hi.ID, shared); err != nil {
		e.t.Errorf("deleting a shared ID under one topic deleted it under the other: %v", err)
	}
	if err := e.store.DeleteTopic(e.ctx, lo); err != nil {
		e.t.Fatal(err)
	}
	if got := e.listAll(hi.ID, 10); len(got) != 2 {
		e.t.Errorf("after deleting a neighbouring topic, the topic has %d subscriptions, want 2", len(got))
	}
}

// manySubscriptions is the size of the topic testManySubscriptions pages
// through, and manyWriters how many goroutines store it.
const (
	manySubscriptions = 5000
	manyPage          = 1000
	manyWriters       = 32
)

func testManySubscriptions(e *env) {
	tp := e.create("big")
	subs := make([]*sns.Subscription, manySubscriptions)
	for i := range subs {
		subs[i] = NewSubscription(tp, sns.ProtocolSQS, fmt.Sprintf("arn:aws:sqs:us-east-1:%s:q%d", e.account, i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, manyWriters)
	for w := range manyWriters {
		wg.Go(func() {
			for i := w; i < len(subs); i += manyWriters {
				if err := e.store.PutSubscription(e.ctx, subs[i]); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.t.Fatalf("PutSubscription: %v", err)
	}
	got := e.listAll(tp.ID, manyPage)
	if want := sortedIDs(subs); !slices.Equal(subIDs(got), want) {
		e.t.Fatalf("paging through %d subscriptions returned %d, or in another order than by ID bytes", len(want), len(got))
	}
	byID := make(map[uuid.UUID]*sns.Subscription, len(subs))
	for _, s := range subs {
		byID[s.ID] = s
	}
	for _, g := range got {
		if d := SubscriptionDiff(byID[g.ID], g); d != "" {
			e.t.Fatalf("subscription %s: %s", g.ID, d)
		}
	}
}
