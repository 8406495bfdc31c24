package sqstest

import (
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// Shards per queue. The Service gives a new queue a shard count of its own
// (the herald:shards tag, --sqs-shards, else DefaultShards) that the queue
// keeps for good; an engine must follow q.Shards in every call, whatever
// its DefaultShards.

// spread returns messages of q sent 1.3 s apart from at (so that they span
// a few minutes), each in its home shard, until every shard holds at least
// three, in send order; named prefix000, prefix001...
func (e *storeEnv) spread(q *sqs.Queue, at time.Time, prefix string) []*sqs.Message {
	e.t.Helper()
	shards := max(1, q.Shards)
	per := make([]int, shards)
	var out []*sqs.Message
	for i := 0; slices.Min(per) < 3; i++ {
		if i == 100*shards {
			e.t.Fatalf("%d messages left a shard of %d with fewer than three: %v", i, shards, per)
		}
		m := NewMessage(at.Add(time.Duration(i)*1300*time.Millisecond), fmt.Sprintf("%s%03d", prefix, i))
		m.Shard = sqs.ShardOf(m.ID, shards)
		per[m.Shard]++
		out = append(out, m)
	}
	return out
}

// byShard groups msgs by their Shard, keeping their order.
func byShard(q *sqs.Queue, msgs []*sqs.Message) [][]*sqs.Message {
	out := make([][]*sqs.Message, max(1, q.Shards))
	for _, m := range msgs {
		out[m.Shard] = append(out[m.Shard], m)
	}
	return out
}

// ids returns the IDs of msgs.
func ids(msgs []*sqs.Message) []uuid.UUID {
	out := make([]uuid.UUID, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

// exerciseShards puts messages in every shard of q, as the Service would
// (ten at a time, each in its home shard), and reads, updates, deletes,
// scans and purges them through q's own shard count.
func (e *storeEnv) exerciseShards(q *sqs.Queue) {
	e.t.Helper()
	ms := e.spread(q, e.now.Add(-time.Hour), "m")
	for i := 0; i < len(ms); i += 10 {
		if err := e.store.PutMessages(e.ctx, q, ms[i:min(i+10, len(ms))]); err != nil {
			e.t.Fatalf("PutMessages: %v", err)
		}
	}
	scanShards := func(op string, want []*sqs.Message) {
		e.t.Helper()
		for shard, of := range byShard(q, want) {
			sameMessages(e.t, fmt.Sprintf("%s: ScanMessages of shard %d of %d", op, shard, q.Shards), of, e.scanAll(q, shard, 3))
		}
	}
	scanShards("after PutMessages", ms)
	backwards := slices.Clone(ms)
	slices.Reverse(backwards)
	sameMessages(e.t, "GetMessages of every shard, newest first", backwards, e.get(q, ids(backwards)...))

	// A new state of the first message of each shard.
	var firsts, rest []*sqs.Message
	seen := make([]bool, max(1, q.Shards))
	for _, m := range ms {
		if seen[m.Shard] {
			rest = append(rest, m)
			continue
		}
		seen[m.Shard] = true
		c := *m
		c.State = sqs.State{ID: m.ID, ReceiveCount: 2, FirstReceiveAt: e.now.Add(-time.Minute), VisibleAt: e.now.Add(time.Minute)}
		firsts = append(firsts, &c)
	}
	states := make([]sqs.State, len(firsts))
	for i, m := range firsts {
		states[i] = m.State
	}
	if err := e.store.SaveStates(e.ctx, q, states); err != nil {
		e.t.Fatalf("SaveStates: %v", err)
	}
	// SaveStates may write behind (see testSaveStates).
	if problem := eventually(func() string {
		got := e.get(q, ids(firsts)...)
		if len(got) != len(firsts) {
			return fmt.Sprintf("GetMessages found %d of %d messages", len(got), len(firsts))
		}
		for i := range got {
			if d := MessageDiff(firsts[i], got[i]); d != "" {
				return fmt.Sprintf("message %s of shard %d: %s", got[i].Body, got[i].Shard, d)
			}
		}
		return ""
	}); problem != "" {
		e.t.Errorf("after SaveStates in every shard: %s", problem)
	}

	// Deleting the first message of each shard.
	if err := e.store.DeleteMessages(e.ctx, q, ids(firsts)); err != nil {
		e.t.Fatalf("DeleteMessages: %v", err)
	}
	sameMessages(e.t, "GetMessages after deleting a message of each shard", rest, e.get(q, ids(ms)...))
	scanShards("after DeleteMessages", rest)

	// Purging the older half of what is left, in every shard. Well clear
	// of the boundary (see testPurgeMessages).
	mid := rest[len(rest)/2]
	if err := e.store.PurgeMessages(e.ctx, q, mid.SentAt.Add(-650*time.Millisecond)); err != nil {
		e.t.Fatalf("PurgeMessages: %v", err)
	}
	kept := rest[len(rest)/2:]
	sameMessages(e.t, "GetMessages after PurgeMessages", kept, e.get(q, ids(ms)...))
	scanShards("after PurgeMessages", kept)
}

// testManyShards: a queue of 16 shards, as the herald:shards tag makes
// one, whatever the engine's DefaultShards.
func testManyShards(e *storeEnv) {
	q := e.createSharded("wide", 16)
	got, err := e.store.GetQueue(e.ctx, e.account, "wide")
	if err != nil {
		e.t.Fatal(err)
	}
	if got.Shards != 16 {
		e.t.Fatalf("GetQueue: %d shards, want 16", got.Shards)
	}
	e.exerciseShards(q)
}

// testQueueKeepsItsShards: a queue created with the engine's default count
// (as every queue was before the count was a setting) next to one created
// with another: each keeps its count in GetQueue, ListQueues and
// UpdateQueue, and its messages are stored, found, scanned and purged
// through the count read back with its record.
func testQueueKeepsItsShards(e *storeEnv) {
	before := e.store.DefaultShards()
	after := 16
	if before == after {
		after = 8
	}
	e.createSharded("before", before)
	e.createSharded("after", after)
	tagged, err := e.store.GetQueue(e.ctx, e.account, "before")
	if err != nil {
		e.t.Fatal(err)
	}
	tagged.Tags = map[string]string{"team": "a"}
	if err := e.store.UpdateQueue(e.ctx, tagged); err != nil {
		e.t.Fatalf("UpdateQueue: %v", err)
	}
	want := map[string]int{"before": before, "after": after}
	listed, err := e.store.ListQueues(e.ctx, e.account, "", "", 10)
	if err != nil {
		e.t.Fatal(err)
	}
	if len(listed) != 2 {
		e.t.Fatalf("ListQueues = %v, want [after before]", queueNames(listed))
	}
	for _, q := range listed {
		if q.Shards != want[q.Name] {
			e.t.Errorf("ListQueues: queue %s has %d shards, want %d", q.Name, q.Shards, want[q.Name])
		}
	}
	records := map[string]*sqs.Queue{}
	for name, shards := range want {
		q, err := e.store.GetQueue(e.ctx, e.account, name)
		if err != nil {
			e.t.Fatal(err)
		}
		if q.Shards != shards {
			e.t.Fatalf("GetQueue: queue %s has %d shards, want %d", name, q.Shards, shards)
		}
		records[name] = q
	}
	e.exerciseShards(records["before"])
	// The other queue's messages are its own.
	other := e.spread(records["after"], e.now.Add(-time.Hour), "o")
	e.put(records["after"], other...)
	if got := e.get(records["before"], ids(other)...); len(got) != 0 {
		e.t.Errorf("GetMessages of the queue of %d shards found messages of the one of %d: %v", before, after, bodies(got))
	}
	sameMessages(e.t, "GetMessages of the queue of "+fmt.Sprint(after)+" shards", other, e.get(records["after"], ids(other)...))
}
