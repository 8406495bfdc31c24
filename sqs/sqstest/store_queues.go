package sqstest

import (
	"fmt"
	"slices"
	"time"

	herald "github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// fullQueue returns a queue record with every field set to a value other
// than its default.
func fullQueue(account, name string) *sqs.Queue {
	q := NewQueue(account, name)
	q.Attributes.DelaySeconds = 7
	q.Attributes.MaximumMessageSize = 2048
	q.Attributes.MessageRetentionPeriod = 3600
	q.Attributes.ReceiveMessageWaitTimeSeconds = 3
	q.Attributes.VisibilityTimeout = 45
	q.Attributes.Policy = `{"Version":"2012-10-17","Statement":[]}`
	q.Attributes.RedrivePolicy = &sqs.RedrivePolicy{DeadLetterTargetARN: "arn:aws:sqs:us-east-1:" + account + ":dlq", MaxReceiveCount: 4}
	q.Attributes.RedriveAllowPolicy = &sqs.RedriveAllowPolicy{RedrivePermission: sqs.RedriveByQueue,
		SourceQueueARNs: []string{"arn:aws:sqs:us-east-1:" + account + ":a", "arn:aws:sqs:us-east-1:" + account + ":b"}}
	q.Attributes.KmsMasterKeyID = "alias/aws/sqs"
	q.Attributes.KmsDataKeyReusePeriodSeconds = 600
	q.Attributes.SqsManagedSseEnabled = !q.Attributes.SqsManagedSseEnabled
	q.Tags = map[string]string{"team": "herald", "empty": ""}
	q.Shards = 3
	q.CreatedAt = q.CreatedAt.Add(-time.Hour)
	q.ModifiedAt = q.CreatedAt.Add(time.Minute)
	q.PurgedAt = q.CreatedAt.Add(2 * time.Minute)
	return q
}

func testCreateGetQueue(e *storeEnv) {
	fifo := fullQueue(e.account, "full.fifo")
	fifo.Attributes.FifoQueue = true
	fifo.Attributes.ContentBasedDeduplication = true
	fifo.Attributes.DeduplicationScope = "messageGroup"
	fifo.Attributes.FifoThroughputLimit = "perMessageGroupId"
	for _, q := range []*sqs.Queue{fullQueue(e.account, "full"), fifo, NewQueue(e.account, "plain")} {
		if _, err := e.store.CreateQueue(e.ctx, q); err != nil {
			e.t.Fatalf("CreateQueue %s: %v", q.Name, err)
		}
		got, err := e.store.GetQueue(e.ctx, e.account, q.Name)
		if err != nil {
			e.t.Fatalf("GetQueue %s: %v", q.Name, err)
		}
		if d := QueueDiff(q, got); d != "" {
			e.t.Errorf("GetQueue %s: %s", q.Name, d)
		}
	}
}

func testCreateExisting(e *storeEnv) {
	first := e.create("q")
	second := NewQueue(e.account, "q")
	got, err := e.store.CreateQueue(e.ctx, second)
	wantCode(e.t, "CreateQueue of an existing name", err, herald.EConflict)
	if got == nil {
		e.t.Fatal("CreateQueue of an existing name returned no queue, want the existing one")
	}
	if d := QueueDiff(first, got); d != "" {
		e.t.Errorf("CreateQueue of an existing name returned: %s", d)
	}
	stored, err := e.store.GetQueue(e.ctx, e.account, "q")
	if err != nil || stored.ID != first.ID {
		e.t.Errorf("after the conflict GetQueue = %v, %v; want the first queue %v", stored, err, first.ID)
	}
	// The same name in another account is another queue.
	other := NewQueue(NewAccount(), "q")
	if _, err := e.store.CreateQueue(e.ctx, other); err != nil {
		e.t.Errorf("CreateQueue of the same name in another account: %v", err)
	}
}

func testGetMissing(e *storeEnv) {
	e.create("present")
	_, err := e.store.GetQueue(e.ctx, e.account, "absent")
	wantCode(e.t, "GetQueue of a missing name", err, herald.ENotFound)
	_, err = e.store.GetQueue(e.ctx, NewAccount(), "present")
	wantCode(e.t, "GetQueue of a name of another account", err, herald.ENotFound)
}

func testUpdateQueue(e *storeEnv) {
	q := e.create("q")
	changed := fullQueue(e.account, "q")
	changed.ID = q.ID
	if err := e.store.UpdateQueue(e.ctx, changed); err != nil {
		e.t.Fatalf("UpdateQueue: %v", err)
	}
	got, err := e.store.GetQueue(e.ctx, e.account, "q")
	if err != nil {
		e.t.Fatal(err)
	}
	if d := QueueDiff(changed, got); d != "" {
		e.t.Errorf("after UpdateQueue: %s", d)
	}
	// Clearing optional fields clears them.
	cleared := NewQueue(e.account, "q")
	cleared.ID = q.ID
	if err := e.store.UpdateQueue(e.ctx, cleared); err != nil {
		e.t.Fatal(err)
	}
	if got, err = e.store.GetQueue(e.ctx, e.account, "q"); err != nil {
		e.t.Fatal(err)
	}
	if d := QueueDiff(cleared, got); d != "" {
		e.t.Errorf("after UpdateQueue clearing fields: %s", d)
	}
}

func testUpdateMissing(e *storeEnv) {
	wantCode(e.t, "UpdateQueue of a missing queue", e.store.UpdateQueue(e.ctx, NewQueue(e.account, "absent")), herald.ENotFound)
	q := e.create("q")
	impostor := NewQueue(e.account, "q") // same name, another ID
	wantCode(e.t, "UpdateQueue with another ID", e.store.UpdateQueue(e.ctx, impostor), herald.ENotFound)
	if got, err := e.store.GetQueue(e.ctx, e.account, "q"); err != nil || got.ID != q.ID {
		e.t.Errorf("UpdateQueue with another ID changed the queue: %v, %v", got, err)
	}
}

func testDeleteQueue(e *storeEnv) {
	q := e.create("q")
	keep := e.create("keep")
	if err := e.store.DeleteQueue(e.ctx, q); err != nil {
		e.t.Fatalf("DeleteQueue: %v", err)
	}
	_, err := e.store.GetQueue(e.ctx, e.account, "q")
	wantCode(e.t, "GetQueue after DeleteQueue", err, herald.ENotFound)
	wantCode(e.t, "DeleteQueue again", e.store.DeleteQueue(e.ctx, q), herald.ENotFound)
	listed, err := e.store.ListQueues(e.ctx, e.account, "", "", 10)
	if err != nil {
		e.t.Fatal(err)
	}
	if names := queueNames(listed); !slices.Equal(names, []string{keep.Name}) {
		e.t.Errorf("ListQueues after DeleteQueue = %v, want [keep]", names)
	}
}

func testRecreatedQueue(e *storeEnv) {
	old := e.create("q")
	m := NewMessage(e.now.Add(-time.Second), "old")
	e.put(old, m)
	if err := e.store.DeleteQueue(e.ctx, old); err != nil {
		e.t.Fatal(err)
	}
	fresh := e.create("q")
	if fresh.ID == old.ID {
		e.t.Fatal("NewQueue reused an ID")
	}
	if got := e.get(fresh, m.ID); len(got) != 0 {
		e.t.Errorf("GetMessages of the recreated queue returned %v of the deleted one", bodies(got))
	}
	if got := e.scanAll(fresh, 0, 10); len(got) != 0 {
		e.t.Errorf("ScanMessages of the recreated queue returned %v of the deleted one", bodies(got))
	}
}

func testListQueues(e *storeEnv) {
	// Byte order: digits < upper case < '_' < lower case; '-' before all.
	names := []string{"b", "a-1", "A", "a_2", "a", "ab", "Z9", "0", "a.fifo"}
	for _, n := range names {
		e.create(n)
	}
	other := NewAccount()
	for _, n := range []string{"a", "a0", "b"} {
		if _, err := e.store.CreateQueue(e.ctx, NewQueue(other, n)); err != nil {
			e.t.Fatal(err)
		}
	}
	tests := []struct {
		prefix, after string
		limit         int
		want          []string
	}{
		{"", "", 100, []string{"0", "A", "Z9", "a", "a-1", "a.fifo", "a_2", "ab", "b"}},
		{"a", "", 100, []string{"a", "a-1", "a.fifo", "a_2", "ab"}},
		{"a", "a", 100, []string{"a-1", "a.fifo", "a_2", "ab"}},
		{"a", "a-", 2, []string{"a-1", "a.fifo"}},
		{"", "a_2", 100, []string{"ab", "b"}},
		{"", "", 3, []string{"0", "A", "Z9"}},
		{"ab", "", 100, []string{"ab"}},
		{"c", "", 100, []string{}},
		{"", "b", 100, []string{}},
	}
	for _, tc := range tests {
		got, err := e.store.ListQueues(e.ctx, e.account, tc.prefix, tc.after, tc.limit)
		if err != nil {
			e.t.Fatalf("ListQueues(%q, %q, %d): %v", tc.prefix, tc.after, tc.limit, err)
		}
		if names := queueNames(got); !slices.Equal(names, tc.want) {
			e.t.Errorf("ListQueues(prefix %q, after %q, limit %d) = %v, want %v", tc.prefix, tc.after, tc.limit, names, tc.want)
		}
		for _, q := range got {
			if q.Account != e.account {
				e.t.Errorf("ListQueues returned %s of account %s", q.Name, q.Account)
			}
		}
	}
	got, err := e.store.ListQueues(e.ctx, e.account, "b", "", 10)
	if err != nil || len(got) != 1 {
		e.t.Fatalf("ListQueues b = %v, %v", got, err)
	}
	want, _ := e.store.GetQueue(e.ctx, e.account, "b")
	if d := QueueDiff(want, got[0]); d != "" {
		e.t.Errorf("ListQueues returned a record unlike GetQueue's: %s", d)
	}
}

func testListQueuesPaging(e *storeEnv) {
	var want []string
	for i := range 23 {
		n := fmt.Sprintf("q%02d", i)
		e.create(n)
		want = append(want, n)
	}
	e.create("other")
	var got []string
	after := ""
	for page := 0; page < 10; page++ {
		qs, err := e.store.ListQueues(e.ctx, e.account, "q", after, 5)
		if err != nil {
			e.t.Fatal(err)
		}
		if len(qs) > 5 {
			e.t.Fatalf("ListQueues returned %d queues, more than the limit 5", len(qs))
		}
		got = append(got, queueNames(qs)...)
		if len(qs) < 5 {
			break
		}
		after = qs[len(qs)-1].Name
	}
	if !slices.Equal(got, want) {
		e.t.Errorf("paging through ListQueues = %v, want %v", got, want)
	}
}

func testDefaultShards(e *storeEnv) {
	if n := e.store.DefaultShards(); n < 1 || n > sqs.MaxShards {
		e.t.Errorf("DefaultShards = %d, want 1..%d", n, sqs.MaxShards)
	}
}
