package sqs_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// storedByShard reads every stored message of queue name shard by shard,
// checking that each lies in its home shard, ShardOf(ID, the queue's
// count), and returns how many each shard holds.
func storedByShard(t *testing.T, e *env, name string) []int {
	t.Helper()
	q := storedQueue(t, e, name)
	counts := make([]int, q.Shards)
	for shard := range q.Shards {
		ms, err := e.store.ScanMessages(e.ctx, q, shard, uuid.Nil, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Shard != shard || sqs.ShardOf(m.ID, q.Shards) != shard {
				t.Errorf("message %s (%s) is in shard %d (scanned as %d), its home of %d is %d",
					m.ID, m.Body, m.Shard, shard, q.Shards, sqs.ShardOf(m.ID, q.Shards))
			}
		}
		counts[shard] = len(ms)
	}
	return counts
}

func sum(ns []int) int {
	n := 0
	for _, x := range ns {
		n += x
	}
	return n
}

// drain receives and deletes until the queue hands out nothing, and
// returns the bodies received.
func drain(t *testing.T, e *env, url string) []string {
	t.Helper()
	var got []string
	for range 1000 {
		msgs := e.receive(t, url, 10, nil)
		if len(msgs) == 0 {
			return got
		}
		for _, m := range msgs {
			got = append(got, m.Body)
			e.deleteMessage(t, url, m.ReceiptHandle)
		}
	}
	t.Fatal("the queue never emptied")
	return nil
}

// TestShardsOfANewQueue: a new queue has the shards its herald:shards tag
// names, else the deployment's default (Config.Shards, --sqs-shards),
// clamped to 1..MaxShards, else the Store's (1 in memory). The tag stays
// on the queue as an ordinary tag.
func TestShardsOfANewQueue(t *testing.T) {
	cases := []struct {
		name   string
		deploy int    // Config.Shards
		tag    string // herald:shards; "": none
		want   int
	}{
		{"the store's default", 0, "", 1},
		{"the deployment's default", 8, "", 8},
		{"a negative default is the store's", -3, "", 1},
		{"a default above the most is the most", 1000, "", sqs.MaxShards},
		{"the tag over the store's default", 0, "16", 16},
		{"the tag over the deployment's default", 8, "2", 2},
		{"the tag's least", 8, "1", 1},
		{"the tag's most", 0, "256", 256},
		{"the tag with leading zeros", 0, "016", 16},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, shards(tc.deploy))
			in := sqs.CreateQueueInput{QueueName: "q"}
			if tc.tag != "" {
				in.Tags = map[string]string{sqs.ShardsTag: tc.tag, "team": "a"}
			}
			url, err := e.svc.CreateQueue(e.ctx, caller, in)
			wantCode(t, err, "")
			if got := storedQueue(t, e, "q").Shards; got != tc.want {
				t.Errorf("queue has %d shards, want %d", got, tc.want)
			}
			tags, err := e.svc.ListQueueTags(e.ctx, caller, url)
			wantCode(t, err, "")
			if !maps.Equal(tags, in.Tags) {
				t.Errorf("ListQueueTags = %v, want %v", tags, in.Tags)
			}
		})
	}
}

// TestShardsTagOutOfRangeCreatesNothing: a herald:shards value that is not
// a whole number from 1 to 256 is InvalidParameterValue naming the tag and
// the range, and no queue is created.
func TestShardsTagOutOfRangeCreatesNothing(t *testing.T) {
	for _, v := range []string{"0", "257", "x", "4.5", "", "-1", "+4", " 4", "4 ", "1e1", "0x10", "99999999999999999999"} {
		t.Run(fmt.Sprintf("%q", v), func(t *testing.T) {
			e := newEnv(t, shards(8))
			_, err := e.svc.CreateQueue(e.ctx, caller, sqs.CreateQueueInput{QueueName: "q", Tags: map[string]string{sqs.ShardsTag: v}})
			wantCode(t, err, sqs.CodeInvalidParameterValue)
			if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("Value %q for tag herald:shards is invalid", v)) || !strings.Contains(msg, "from 1 to 256") {
				t.Errorf("error %q names neither the tag and its value nor the range", msg)
			}
			if _, err := e.store.GetQueue(e.ctx, account, "q"); herald.ErrorCode(err) != herald.ENotFound {
				t.Errorf("GetQueue after the refused CreateQueue: %v, want not found", err)
			}
		})
	}
}

// TestShardsTagIsFixedAtCreation: TagQueue may set herald:shards to the
// count the queue has (created with the tag or without), not to another;
// UntagQueue removes the tag and keeps the count. A refused TagQueue
// adds none of its tags.
func TestShardsTagIsFixedAtCreation(t *testing.T) {
	e := newEnv(t, shards(4))
	tagged, err := e.svc.CreateQueue(e.ctx, caller, sqs.CreateQueueInput{QueueName: "tagged", Tags: map[string]string{sqs.ShardsTag: "16"}})
	wantCode(t, err, "")
	plain := e.createQueue(t, "plain", nil)
	cases := []struct {
		name  string
		url   string
		value string
		code  string
	}{
		{"the count it was created with", tagged, "16", ""},
		{"another count", tagged, "8", sqs.CodeInvalidParameterValue},
		{"not a count", tagged, "x", sqs.CodeInvalidParameterValue},
		{"the default count of a queue created without the tag", plain, "4", ""},
		{"another count on a queue created without the tag", plain, "16", sqs.CodeInvalidParameterValue},
	}
	want := map[string]int{"tagged": 16, "plain": 4}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := tc.url[strings.LastIndex(tc.url, "/")+1:]
			err := e.svc.TagQueue(e.ctx, caller, sqs.TagQueueInput{QueueURL: tc.url, Tags: map[string]string{sqs.ShardsTag: tc.value, "case": tc.name}})
			wantCode(t, err, tc.code)
			if tc.code != "" && !strings.Contains(err.Error(), "herald:shards") {
				t.Errorf("error %q does not name the tag", err)
			}
			if tc.value == "8" && !strings.Contains(err.Error(), "fixed when it is created; this queue has 16") {
				t.Errorf("error %q does not say the count is fixed, and what it is", err)
			}
			q := storedQueue(t, e, name)
			if q.Shards != want[name] {
				t.Errorf("queue %s has %d shards, want %d", name, q.Shards, want[name])
			}
			if added := q.Tags["case"] == tc.name; added != (tc.code == "") {
				t.Errorf("tags after TagQueue (error %v): %v", err, q.Tags)
			}
		})
	}
	wantCode(t, e.svc.UntagQueue(e.ctx, caller, sqs.UntagQueueInput{QueueURL: tagged, TagKeys: []string{sqs.ShardsTag}}), "")
	tags, err := e.svc.ListQueueTags(e.ctx, caller, tagged)
	wantCode(t, err, "")
	if _, ok := tags[sqs.ShardsTag]; ok {
		t.Errorf("tags after UntagQueue %s: %v", sqs.ShardsTag, tags)
	}
	if got := storedQueue(t, e, "tagged").Shards; got != 16 {
		t.Errorf("after UntagQueue the queue has %d shards, want 16", got)
	}
	wantCode(t, e.svc.TagQueue(e.ctx, caller, sqs.TagQueueInput{QueueURL: tagged, Tags: map[string]string{sqs.ShardsTag: "16"}}), "")
}

// TestMessagesOfATaggedQueueUseEveryShard: a queue of 16 shards (the tag)
// stores each message in its home shard, delivers and deletes every one,
// and a purge empties every shard.
func TestMessagesOfATaggedQueueUseEveryShard(t *testing.T) {
	e := newEnv(t)
	url, err := e.svc.CreateQueue(e.ctx, caller, sqs.CreateQueueInput{QueueName: "wide", Tags: map[string]string{sqs.ShardsTag: "16"}})
	wantCode(t, err, "")
	const n = 64
	for i := range n {
		e.send(t, url, fmt.Sprint(i))
	}
	counts := storedByShard(t, e, "wide")
	if sum(counts) != n {
		t.Fatalf("shards hold %v messages, %d in all, want %d", counts, sum(counts), n)
	}
	if used := len(counts) - countZero(counts); used < 8 {
		t.Errorf("64 messages used %d of 16 shards (%v)", used, counts)
	}
	if got := drain(t, e, url); len(got) != n {
		t.Fatalf("received %d messages, want %d", len(got), n)
	}
	if counts := storedByShard(t, e, "wide"); sum(counts) != 0 {
		t.Fatalf("after deleting every message the shards hold %v", counts)
	}
	for i := range n {
		e.send(t, url, fmt.Sprint("purged ", i))
	}
	e.advance(time.Millisecond)
	wantCode(t, e.svc.PurgeQueue(e.ctx, caller, url), "")
	if counts := storedByShard(t, e, "wide"); sum(counts) != 0 {
		t.Fatalf("after PurgeQueue the shards hold %v", counts)
	}
}

func countZero(ns []int) int {
	n := 0
	for _, x := range ns {
		if x == 0 {
			n++
		}
	}
	return n
}

// TestQueueKeepsItsShardsWhenTheDefaultChanges: a queue created under one
// deployment default keeps its count once the Service runs with another,
// and its messages go to shards of its own count. CreateQueue of its name
// with a herald:shards tag returns it unchanged, as AWS leaves an existing
// queue's tags alone there.
func TestQueueKeepsItsShardsWhenTheDefaultChanges(t *testing.T) {
	before := newEnv(t, shards(4))
	oldURL := before.createQueue(t, "old", nil)
	e := before.redeploy(t, shards(16))
	e.createQueue(t, "new", nil)
	url, err := e.svc.CreateQueue(e.ctx, caller, sqs.CreateQueueInput{QueueName: "old", Tags: map[string]string{sqs.ShardsTag: "32"}})
	wantCode(t, err, "")
	if url != oldURL {
		t.Errorf("CreateQueue of the existing queue = %s, want %s", url, oldURL)
	}
	for name, want := range map[string]int{"old": 4, "new": 16} {
		if q := storedQueue(t, e, name); q.Shards != want || len(q.Tags) != 0 {
			t.Errorf("queue %s: %d shards, tags %v; want %d shards, no tags", name, q.Shards, q.Tags, want)
		}
	}
	const n = 40
	for i := range n {
		e.send(t, oldURL, fmt.Sprint(i))
	}
	if counts := storedByShard(t, e, "old"); len(counts) != 4 || sum(counts) != n {
		t.Fatalf("the old queue's shards hold %v, want %d messages over 4", counts, n)
	}
	if got := drain(t, e, oldURL); len(got) != n {
		t.Fatalf("received %d messages of the old queue, want %d", len(got), n)
	}
	for i := range n {
		e.send(t, oldURL, fmt.Sprint("purged ", i))
	}
	e.advance(time.Millisecond)
	wantCode(t, e.svc.PurgeQueue(e.ctx, caller, oldURL), "")
	if counts := storedByShard(t, e, "old"); sum(counts) != 0 {
		t.Fatalf("after PurgeQueue the old queue's shards hold %v", counts)
	}
}
