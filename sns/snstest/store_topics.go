package snstest

import (
	"slices"
	"sort"
	"time"

	"github.com/google/uuid"

	herald "github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// fullTopic returns a topic record with every field set.
func fullTopic(account, name string) *sns.Topic {
	tp := NewTopic(account, name)
	tp.Attributes = map[string]string{
		"DisplayName":    "Héraut ✉",
		"Policy":         `{"Version":"2012-10-17","Statement":[]}`,
		"DeliveryPolicy": `{"http":{"defaultHealthyRetryPolicy":{"numRetries":3}}}`,
		"Empty":          "",
	}
	tp.Tags = map[string]string{"team": "herald", "empty": ""}
	tp.CreatedAt = tp.CreatedAt.Add(-time.Hour)
	return tp
}

func testCreateGetTopic(e *env) {
	fifo := fullTopic(e.account, "full.fifo")
	fifo.Attributes["FifoTopic"] = "true"
	fifo.Attributes["ContentBasedDeduplication"] = "true"
	for _, tp := range []*sns.Topic{fullTopic(e.account, "full"), fifo, NewTopic(e.account, "plain")} {
		got, err := e.store.CreateTopic(e.ctx, tp)
		if err != nil {
			e.t.Fatalf("CreateTopic %s: %v", tp.Name, err)
		}
		if d := TopicDiff(tp, got); d != "" {
			e.t.Errorf("CreateTopic %s returned: %s", tp.Name, d)
		}
		if got, err = e.store.GetTopic(e.ctx, e.account, tp.Name); err != nil {
			e.t.Fatalf("GetTopic %s: %v", tp.Name, err)
		}
		if d := TopicDiff(tp, got); d != "" {
			e.t.Errorf("GetTopic %s: %s", tp.Name, d)
		}
	}
}

func testCreateExisting(e *env) {
	first := fullTopic(e.account, "t")
	if _, err := e.store.CreateTopic(e.ctx, first); err != nil {
		e.t.Fatal(err)
	}
	got, err := e.store.CreateTopic(e.ctx, NewTopic(e.account, "t"))
	wantCode(e.t, "CreateTopic of an existing name", err, herald.EConflict)
	if got == nil {
		e.t.Fatal("CreateTopic of an existing name returned no topic, want the existing one")
	}
	if d := TopicDiff(first, got); d != "" {
		e.t.Errorf("CreateTopic of an existing name returned: %s", d)
	}
	if stored, err := e.store.GetTopic(e.ctx, e.account, "t"); err != nil || stored.ID != first.ID {
		e.t.Errorf("after the conflict GetTopic = %v, %v; want the first topic %v", stored, err, first.ID)
	}
	// The same name in another account is another topic.
	other := NewTopic(NewAccount(), "t")
	if _, err := e.store.CreateTopic(e.ctx, other); err != nil {
		e.t.Errorf("CreateTopic of the same name in another account: %v", err)
	}
	if got, err := e.store.GetTopic(e.ctx, other.Account, "t"); err != nil || got.ID != other.ID {
		e.t.Errorf("GetTopic in the other account = %v, %v; want topic %v", got, err, other.ID)
	}
}

func testGetMissingTopic(e *env) {
	e.create("present")
	for _, c := range []struct{ what, account, name string }{
		{"a missing name", e.account, "absent"},
		{"a name of another account", NewAccount(), "present"},
		{"a prefix of a name", e.account, "pres"},
		{"an extension of a name", e.account, "presents"},
	} {
		_, err := e.store.GetTopic(e.ctx, c.account, c.name)
		wantCode(e.t, "GetTopic of "+c.what, err, herald.ENotFound)
	}
}

func testUpdateTopic(e *env) {
	tp := e.create("t")
	changed := fullTopic(e.account, "t")
	changed.ID = tp.ID
	if err := e.store.UpdateTopic(e.ctx, changed); err != nil {
		e.t.Fatalf("UpdateTopic: %v", err)
	}
	got, err := e.store.GetTopic(e.ctx, e.account, "t")
	if err != nil {
		e.t.Fatal(err)
	}
	if d := TopicDiff(changed, got); d != "" {
		e.t.Errorf("after UpdateTopic: %s", d)
	}
	// Clearing the maps clears them.
	cleared := NewTopic(e.account, "t")
	cleared.ID = tp.ID
	if err := e.store.UpdateTopic(e.ctx, cleared); err != nil {
		e.t.Fatal(err)
	}
	if got, err = e.store.GetTopic(e.ctx, e.account, "t"); err != nil {
		e.t.Fatal(err)
	}
	if d := TopicDiff(cleared, got); d != "" {
		e.t.Errorf("after UpdateTopic clearing fields: %s", d)
	}
}

func testUpdateMissing(e *env) {
	wantCode(e.t, "UpdateTopic of a missing topic", e.store.UpdateTopic(e.ctx, NewTopic(e.account, "absent")), herald.ENotFound)
	if _, err := e.store.GetTopic(e.ctx, e.account, "absent"); herald.ErrorCode(err) != herald.ENotFound {
		e.t.Errorf("UpdateTopic of a missing topic created it: GetTopic error %v", err)
	}
	tp := e.create("t")
	impostor := fullTopic(e.account, "t") // same name, another ID
	wantCode(e.t, "UpdateTopic with another ID", e.store.UpdateTopic(e.ctx, impostor), herald.ENotFound)
	if got, err := e.store.GetTopic(e.ctx, e.account, "t"); err != nil || TopicDiff(tp, got) != "" {
		e.t.Errorf("UpdateTopic with another ID changed the topic: %v, %v", got, err)
	}
}

func testDeleteTopic(e *env) {
	tp := e.create("t")
	kept := e.create("kept")
	subs := []*sns.Subscription{e.subscribe(tp, "http://a"), e.subscribe(tp, "http://b")}
	keptSub := e.subscribe(kept, "http://kept")
	if err := e.store.DeleteTopic(e.ctx, tp); err != nil {
		e.t.Fatalf("DeleteTopic: %v", err)
	}
	_, err := e.store.GetTopic(e.ctx, e.account, "t")
	wantCode(e.t, "GetTopic after DeleteTopic", err, herald.ENotFound)
	for _, s := range subs {
		_, err := e.store.GetSubscription(e.ctx, tp.ID, s.ID)
		wantCode(e.t, "GetSubscription of a deleted topic", err, herald.ENotFound)
	}
	if got, err := e.store.ListSubscriptions(e.ctx, tp.ID, uuid.Nil, 100); err != nil || len(got) != 0 {
		e.t.Errorf("ListSubscriptions of a deleted topic = %v, %v; want none", subIDs(got), err)
	}
	// Other topics keep their records and subscriptions.
	if got, err := e.store.GetTopic(e.ctx, e.account, "kept"); err != nil || TopicDiff(kept, got) != "" {
		e.t.Errorf("DeleteTopic changed another topic: %v, %v", got, err)
	}
	if got, err := e.store.GetSubscription(e.ctx, kept.ID, keptSub.ID); err != nil || SubscriptionDiff(keptSub, got) != "" {
		e.t.Errorf("DeleteTopic changed another topic's subscription: %v, %v", got, err)
	}
	if got := e.listAll(kept.ID, 10); !slices.Equal(subIDs(got), []uuid.UUID{keptSub.ID}) {
		e.t.Errorf("subscriptions of another topic after DeleteTopic = %v, want %v", subIDs(got), keptSub.ID)
	}
	if got := topicNames(e.listTopics(e.account, 10)); !slices.Equal(got, []string{"kept"}) {
		e.t.Errorf("ListTopics after DeleteTopic = %q, want [kept]", got)
	}
}

func testDeleteMissing(e *env) {
	gone := e.create("gone")
	if err := e.store.DeleteTopic(e.ctx, gone); err != nil {
		e.t.Fatal(err)
	}
	wantCode(e.t, "DeleteTopic of a deleted topic", e.store.DeleteTopic(e.ctx, gone), herald.ENotFound)
	wantCode(e.t, "DeleteTopic of a never created topic", e.store.DeleteTopic(e.ctx, NewTopic(e.account, "absent")), herald.ENotFound)
	// A stale record (same name, another ID) must not delete the topic now
	// holding the name.
	tp := e.create("t")
	s := e.subscribe(tp, "http://a")
	wantCode(e.t, "DeleteTopic with another ID", e.store.DeleteTopic(e.ctx, NewTopic(e.account, "t")), herald.ENotFound)
	if got, err := e.store.GetTopic(e.ctx, e.account, "t"); err != nil || got.ID != tp.ID {
		e.t.Errorf("DeleteTopic with another ID deleted the topic: %v, %v", got, err)
	}
	if _, err := e.store.GetSubscription(e.ctx, tp.ID, s.ID); err != nil {
		e.t.Errorf("DeleteTopic with another ID deleted a subscription: %v", err)
	}
}

func testRecreatedTopic(e *env) {
	old := e.create("t")
	e.subscribe(old, "http://old")
	if err := e.store.DeleteTopic(e.ctx, old); err != nil {
		e.t.Fatal(err)
	}
	fresh := NewTopic(e.account, "t")
	if _, err := e.store.CreateTopic(e.ctx, fresh); err != nil {
		e.t.Fatalf("CreateTopic after DeleteTopic: %v", err)
	}
	got, err := e.store.GetTopic(e.ctx, e.account, "t")
	if err != nil || TopicDiff(fresh, got) != "" {
		e.t.Fatalf("GetTopic of the re-created topic = %v, %v; want %v", got, err, fresh)
	}
	if subs := e.listAll(fresh.ID, 10); len(subs) != 0 {
		e.t.Errorf("re-created topic has subscriptions %v, want none", subIDs(subs))
	}
	if subs := e.listAll(old.ID, 10); len(subs) != 0 {
		e.t.Errorf("deleted topic ID still has subscriptions %v", subIDs(subs))
	}
}

func testListTopics(e *env) {
	// Byte order, not case-insensitive or locale order; names that are
	// prefixes of others; the characters AWS allows in names.
	names := []string{"b", "B", "a", "a-b", "a_b", "aa", "a.fifo", "Z9", "0", "_x", "a-"}
	for _, n := range names {
		e.create(n)
	}
	// Neighbouring accounts must not leak into the list.
	for _, acct := range []string{e.account + "0", e.account[:len(e.account)-1], NewAccount()} {
		if _, err := e.store.CreateTopic(e.ctx, NewTopic(acct, "a0")); err != nil {
			e.t.Fatal(err)
		}
	}
	want := slices.Clone(names)
	sort.Strings(want)
	got, err := e.store.ListTopics(e.ctx, e.account, "", 100)
	if err != nil {
		e.t.Fatal(err)
	}
	if !slices.Equal(topicNames(got), want) {
		e.t.Errorf("ListTopics = %q, want %q", topicNames(got), want)
	}
	for _, tp := range got {
		if tp.Account != e.account {
			e.t.Errorf("ListTopics returned topic %s of account %q", tp.Name, tp.Account)
		}
	}
	for _, c := range []struct {
		after string
		limit int
	}{
		{"a", 100}, {"a-", 3}, {"a.", 100}, {"ab", 100}, {"\x00", 2}, {"zzz", 100}, {"A", 1},
	} {
		var wantAfter []string
		for _, n := range want {
			if n > c.after && len(wantAfter) < c.limit {
				wantAfter = append(wantAfter, n)
			}
		}
		got, err := e.store.ListTopics(e.ctx, e.account, c.after, c.limit)
		if err != nil {
			e.t.Fatal(err)
		}
		if !slices.Equal(topicNames(got), wantAfter) {
			e.t.Errorf("ListTopics(after %q, limit %d) = %q, want %q", c.after, c.limit, topicNames(got), wantAfter)
		}
	}
	if got, err := e.store.ListTopics(e.ctx, NewAccount(), "", 10); err != nil || len(got) != 0 {
		e.t.Errorf("ListTopics of an account without topics = %q, %v; want none", topicNames(got), err)
	}
}

func testListTopicsPaging(e *env) {
	var want []*sns.Topic
	for i := range 23 {
		tp := fullTopic(e.account, "topic-"+string(rune('a'+i)))
		if _, err := e.store.CreateTopic(e.ctx, tp); err != nil {
			e.t.Fatal(err)
		}
		want = append(want, tp)
	}
	for _, page := range []int{1, 5, 23, 100} {
		got := e.listTopics(e.account, page)
		if !slices.Equal(topicNames(got), topicNames(want)) {
			e.t.Errorf("pages of %d: %q, want %q", page, topicNames(got), topicNames(want))
			continue
		}
		for i := range want {
			if d := TopicDiff(want[i], got[i]); d != "" {
				e.t.Errorf("pages of %d: topic %s: %s", page, want[i].Name, d)
			}
		}
	}
}
