package cassandrastore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// testSession returns a plain driver session on the shared keyspace, to
// look at what the store wrote.
func testSession(t testing.TB) *gocql.Session {
	t.Helper()
	sharedStore(t)
	c := gocql.NewCluster(shared.addr)
	c.Keyspace = shared.ks
	c.Timeout = 10 * time.Second
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func wantCode(t testing.TB, err error, code string) {
	t.Helper()
	if herald.ErrorCode(err) != code {
		t.Fatalf("error %v: want code %s", err, code)
	}
}

// TestSQSTablesCreatedOnOpen checks that opening a keyspace that lacks an
// SQS table (one made before queues existed) creates it.
func TestSQSTablesCreatedOnOpen(t *testing.T) {
	addr := cassandraAddr(t)
	ks := freshKeyspace(t, addr)
	st := openTest(t, addr, Options{Keyspace: ks})
	st.Close()
	s := testSession(t)
	if err := s.Query("DROP TABLE " + ks + ".sqs_unindexed").Exec(); err != nil {
		t.Fatal(err)
	}
	st = openTest(t, addr, Options{Keyspace: ks})
	if err := st.Queues().MarkUnindexed(context.Background(), uuid.New()); err != nil {
		t.Fatalf("MarkUnindexed after reopening: %v", err)
	}
	var n int
	iter := s.Query(`SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?`, ks).Iter()
	var name string
	for iter.Scan(&name) {
		if strings.HasPrefix(name, "sqs_") {
			n++
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if n != len(sqsTableDefs) {
		t.Fatalf("%d sqs_ tables, want %d", n, len(sqsTableDefs))
	}
}

// TestSQSCreateQueueRace creates one name from several goroutines at once,
// each with its own id: exactly one wins, the others get EConflict and the
// winner's record.
func TestSQSCreateQueueRace(t *testing.T) {
	qs := sharedStore(t).Queues()
	base := newTestQueue(4)
	const n = 6
	var wg sync.WaitGroup
	got := make([]*sqs.Queue, n)
	errs := make([]error, n)
	tried := make([]uuid.UUID, n)
	for i := range n {
		q := *base
		q.ID = uuid.New()
		tried[i] = q.ID
		wg.Go(func() { got[i], errs[i] = qs.CreateQueue(context.Background(), &q) })
	}
	wg.Wait()
	var winner uuid.UUID
	for i := range n {
		if errs[i] == nil {
			if winner != uuid.Nil {
				t.Fatalf("two creates succeeded: %s and %s", winner, tried[i])
			}
			winner = tried[i]
		}
	}
	if winner == uuid.Nil {
		t.Fatalf("no create succeeded: %v", errs)
	}
	for i := range n {
		if errs[i] == nil {
			continue
		}
		wantCode(t, errs[i], herald.EConflict)
		if got[i] == nil || got[i].ID != winner {
			t.Fatalf("losing create returned %+v, want the winner %s", got[i], winner)
		}
	}
	stored, err := qs.GetQueue(context.Background(), base.Account, base.Name)
	if err != nil || stored.ID != winner {
		t.Fatalf("GetQueue = %v, %v; want id %s", stored, err, winner)
	}
}

// TestSQSQueueRecord round-trips a record with every kind of field, and
// checks that updates and deletes are conditional on the id.
func TestSQSQueueRecord(t *testing.T) {
	ctx := context.Background()
	qs := sharedStore(t).Queues()
	q := newTestQueue(3)
	q.Account = "" // an empty account is a valid partition
	q.Tags = map[string]string{"team": "a", "env": "b"}
	q.Attributes.RedrivePolicy = &sqs.RedrivePolicy{DeadLetterTargetARN: "arn:aws:sqs:us-east-1:123456789012:dlq", MaxReceiveCount: 3}
	q.Attributes.RedriveAllowPolicy = &sqs.RedriveAllowPolicy{RedrivePermission: sqs.RedriveByQueue, SourceQueueARNs: []string{"arn:x"}}
	q.Attributes.Policy = `{"Version":"2012-10-17"}`
	q.PurgedAt = q.CreatedAt.Add(-time.Hour)
	if _, err := qs.CreateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	got, err := qs.GetQueue(ctx, "", q.Name)
	if err != nil {
		t.Fatal(err)
	}
	assertQueue(t, got, q)

	q.Attributes.VisibilityTimeout = 77
	q.Tags = nil
	q.ModifiedAt = q.ModifiedAt.Add(time.Second)
	if err := qs.UpdateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	got, _ = qs.GetQueue(ctx, "", q.Name)
	assertQueue(t, got, q)

	other := *q
	other.ID = uuid.New()
	wantCode(t, qs.UpdateQueue(ctx, &other), herald.ENotFound)
	wantCode(t, qs.DeleteQueue(ctx, &other), herald.ENotFound)
	if err := qs.DeleteQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	_, err = qs.GetQueue(ctx, "", q.Name)
	wantCode(t, err, herald.ENotFound)
	wantCode(t, qs.DeleteQueue(ctx, q), herald.ENotFound)
	wantCode(t, qs.UpdateQueue(ctx, q), herald.ENotFound)
	if _, err := qs.CreateQueue(ctx, &other); err != nil {
		t.Fatalf("create again after delete: %v", err)
	}
}

func assertQueue(t testing.TB, got, want *sqs.Queue) {
	t.Helper()
	g, w := *got, *want
	for _, p := range []*sqs.Queue{&g, &w} {
		p.CreatedAt, p.ModifiedAt, p.PurgedAt = p.CreatedAt.UTC(), p.ModifiedAt.UTC(), p.PurgedAt.UTC()
	}
	if fmt.Sprintf("%+v", g) != fmt.Sprintf("%+v", w) || fmt.Sprint(g.Attributes.RedrivePolicy, g.Attributes.RedriveAllowPolicy) !=
		fmt.Sprint(w.Attributes.RedrivePolicy, w.Attributes.RedriveAllowPolicy) {
		t.Fatalf("queue\n got %+v\nwant %+v", g, w)
	}
}

func TestSQSListQueues(t *testing.T) {
	ctx := context.Background()
	qs := sharedStore(t).Queues()
	account := fmt.Sprintf("acct%x", rand.Uint64())
	names := []string{"a", "ab", "abc", "abd", "b", "b-1", "b_2", "ba"}
	for _, n := range names {
		q := newTestQueue(1)
		q.Account, q.Name = account, n
		if _, err := qs.CreateQueue(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		prefix, after string
		limit         int
		want          []string
	}{
		{"", "", 100, names},
		{"", "", 3, []string{"a", "ab", "abc"}},
		{"ab", "", 100, []string{"ab", "abc", "abd"}},
		{"ab", "ab", 100, []string{"abc", "abd"}},
		{"ab", "abc", 1, []string{"abd"}},
		{"b", "a", 100, []string{"b", "b-1", "b_2", "ba"}},
		{"b", "b_2", 100, []string{"ba"}},
		{"c", "", 100, nil},
		{"", "ba", 100, nil},
		{"", "", 0, nil},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q after %q limit %d", tc.prefix, tc.after, tc.limit), func(t *testing.T) {
			got, err := qs.ListQueues(ctx, account, tc.prefix, tc.after, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var gotNames []string
			for _, q := range got {
				if q.Account != account {
					t.Fatalf("queue %s of account %q", q.Name, q.Account)
				}
				gotNames = append(gotNames, q.Name)
			}
			if !slices.Equal(gotNames, tc.want) {
				t.Fatalf("got %q, want %q", gotNames, tc.want)
			}
		})
	}
}

// TestSQSListQueuesAcrossSlots lists an account whose queues are spread
// over many partitions (sqs_queues is keyed by account and a slot of the
// name) in pages: every page continues where the last ended, in byte order
// of name, across slots, and a prefix selects its names only.
func TestSQSListQueuesAcrossSlots(t *testing.T) {
	ctx := context.Background()
	qs := sharedStore(t).Queues()
	s := testSession(t)
	account := fmt.Sprintf("acct%x", rand.Uint64())
	var names []string
	for i := range 250 {
		names = append(names, fmt.Sprintf("box-%04d", i))
	}
	for i := range 50 {
		names = append(names, fmt.Sprintf("tv-%03d", i))
	}
	slots := map[int]bool{}
	for _, n := range names {
		slots[queueSlot(n)] = true
	}
	if len(slots) < sqsQueueSlots/2 {
		t.Fatalf("%d names fall in %d slots of %d", len(names), len(slots), sqsQueueSlots)
	}
	err := parallel(len(names), 16, func(i int) error {
		q := newTestQueue(1)
		q.Account, q.Name = account, names[i]
		_, err := qs.CreateQueue(ctx, q)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each record is where its slot says.
	for _, n := range []string{names[0], names[len(names)-1]} {
		var got string
		err := s.Query(`SELECT name FROM sqs_queues WHERE account = ? AND slot = ? AND name = ?`, accountKey(account), queueSlot(n), n).Scan(&got)
		if err != nil || got != n {
			t.Fatalf("record of %s in slot %d: %q, %v", n, queueSlot(n), got, err)
		}
	}
	tests := []struct {
		prefix string
		page   int
		want   []string
	}{
		{"", 7, names},
		{"", 1000, names},
		{"box-01", 4, names[100:200]},
		{"tv-", 13, names[250:]},
		{"tv-0499", 5, nil},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q by %d", tc.prefix, tc.page), func(t *testing.T) {
			var got []string
			after := ""
			for {
				page, err := qs.ListQueues(ctx, account, tc.prefix, after, tc.page)
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range page {
					got = append(got, q.Name)
				}
				if len(page) < tc.page {
					break
				}
				after = page[len(page)-1].Name
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("listed %d names %q..., want %d", len(got), got[:min(len(got), 5)], len(tc.want))
			}
		})
	}
}

// TestSQSMessagesAcrossProcesses writes messages in one process and reads,
// updates and deletes them from another that has not seen them (each call
// by id finds its partition from the id alone), then checks from the
// first.
func TestSQSMessagesAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	hot := sharedStore(t).Queues()
	cold := coldQueues(t)
	q := mustCreateQueue(t, hot, 4)
	now := time.Now()
	var msgs []*sqs.Message
	for i := range 12 { // over 3 minutes of buckets and 4 shards
		m := newSQSMsg(now.Add(-time.Duration(i)*20*time.Second), 4, time.Hour, fmt.Sprintf("body %d", i))
		m.Attributes = map[string]sqs.MessageAttributeValue{"n": {DataType: "Number", StringValue: fmt.Sprint(i)}, "b": {DataType: "Binary", BinaryValue: []byte{0, byte(i)}}}
		m.SystemAttributes = map[string]sqs.MessageAttributeValue{"AWSTraceHeader": {DataType: "String", StringValue: "Root=1"}}
		m.SenderID, m.MessageGroupID, m.MessageDeduplicationID, m.SequenceNumber = "sender", "g", "d", fmt.Sprint(i)
		msgs = append(msgs, m)
	}
	mustPutMsgs(t, hot, q, msgs...)

	want := slices.Clone(msgs)
	rand.Shuffle(len(want), func(i, j int) { want[i], want[j] = want[j], want[i] })
	asked := append(ids(want), uuidAt(now), uuid.New()) // missing ids are left out
	got, err := cold.GetMessages(ctx, q, asked)
	if err != nil {
		t.Fatal(err)
	}
	assertMessages(t, got, want)

	states := []sqs.State{
		{ID: msgs[0].ID, ReceiveCount: 2, FirstReceiveAt: now.UTC(), VisibleAt: now.Add(time.Minute).UTC()},
		{ID: msgs[5].ID, ReceiveCount: 1, FirstReceiveAt: now.UTC(), VisibleAt: now.Add(30 * time.Second).UTC()},
		{ID: uuidAt(now), ReceiveCount: 9}, // unknown: not read back
		{ID: uuid.New(), ReceiveCount: 9},  // not a message ID: ignored
	}
	if err := cold.SaveStates(ctx, q, states); err != nil {
		t.Fatal(err)
	}
	msgs[0].State, msgs[5].State = states[0], states[1]
	got, err = hot.GetMessages(ctx, q, ids(msgs))
	if err != nil {
		t.Fatal(err)
	}
	assertMessages(t, got, msgs)

	if err := cold.DeleteMessages(ctx, q, []uuid.UUID{msgs[0].ID, msgs[7].ID, uuidAt(now), uuid.New()}); err != nil {
		t.Fatal(err)
	}
	left := slices.Delete(slices.Clone(msgs), 7, 8)[1:]
	got, err = hot.GetMessages(ctx, q, ids(msgs))
	if err != nil {
		t.Fatal(err)
	}
	assertMessages(t, got, left)
	if n := len(scanAll(t, cold, q, 5)); n != len(left) {
		t.Fatalf("scan found %d messages, want %d", n, len(left))
	}
}

// assertMessages compares messages field by field, in order.
func assertMessages(t testing.TB, got, want []*sqs.Message) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := fmt.Sprintf("%+v", *got[i]), fmt.Sprintf("%+v", *want[i])
		if g != w {
			t.Fatalf("message %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// TestSQSStateWritesOnlyState checks that saving a state leaves the body's
// cell alone and gives the state cells the message's remaining lifetime,
// which follows from its ID time and the queue's retention period.
func TestSQSStateWritesOnlyState(t *testing.T) {
	ctx := context.Background()
	qs := sharedStore(t).Queues()
	s := testSession(t)
	q := newTestQueue(1)
	q.Attributes.MessageRetentionPeriod = 600
	if _, err := qs.CreateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	m := newSQSMsg(time.Now(), 1, 10*time.Minute, "x")
	mustPutMsgs(t, qs, q, m)
	read := func() (bodyTS int64, stateTTL int) {
		t.Helper()
		err := s.Query(`SELECT WRITETIME(body), TTL(receive_count) FROM sqs_messages WHERE queue_id = ? AND shard = 0 AND bucket = ? AND pos = ?`,
			cqlUUID(q.ID), msgBucket(m.ID), msgPos(m.ID)).Scan(&bodyTS, &stateTTL)
		if err != nil {
			t.Fatal(err)
		}
		return bodyTS, stateTTL
	}
	ts0, _ := read()
	time.Sleep(1100 * time.Millisecond)
	if err := qs.SaveStates(ctx, q, []sqs.State{{ID: m.ID, ReceiveCount: 1, VisibleAt: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	ts1, ttl := read()
	if ts1 != ts0 {
		t.Fatalf("the body was rewritten: write time %d, then %d", ts0, ts1)
	}
	// Never before the message expires, and not much after.
	if left := time.Until(m.ExpiresAt); ttl < int(left.Seconds()) || ttl > int(left.Seconds())+4 {
		t.Fatalf("state TTL %d s, want %v to 4 s more", ttl, left)
	}
}

// TestSQSScanOrder scans shards whose messages span many buckets, written
// out of order, in small pages: each shard comes back oldest first by ID
// time, every message once.
func TestSQSScanOrder(t *testing.T) {
	qs := sharedStore(t).Queues()
	q := mustCreateQueue(t, qs, 2)
	now := time.Now()
	var msgs []*sqs.Message
	for i := range 40 {
		at := now.Add(-time.Duration(rand.IntN(600)) * time.Second)
		if i%10 == 0 && i > 0 { // same 100 ns tick as another message
			at = ticksTime(idTicks(msgs[i-1].ID))
		}
		msgs = append(msgs, newSQSMsg(at, 2, time.Hour, fmt.Sprint(i)))
	}
	for i := 0; i < len(msgs); i += 7 {
		mustPutMsgs(t, qs, q, msgs[i:min(i+7, len(msgs))]...)
	}
	got := scanAll(t, coldQueues(t), q, 3)
	var want []*sqs.Message
	for shard := range 2 {
		var of []*sqs.Message
		for _, m := range msgs {
			if m.Shard == shard {
				of = append(of, m)
			}
		}
		slices.SortFunc(of, func(a, b *sqs.Message) int { return strings.Compare(string(msgPos(a.ID)), string(msgPos(b.ID))) })
		want = append(want, of...)
	}
	assertMessages(t, got, want)
}

// TestSQSExpiry uses a clock of its own: expired messages are neither read
// nor scanned nor located, though Cassandra still holds them.
func TestSQSExpiry(t *testing.T) {
	ctx := context.Background()
	sharedStore(t)
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	qs := openTest(t, shared.addr, Options{Keyspace: shared.ks, Now: now}).Queues()
	q := mustCreateQueue(t, qs, 2)
	short := newSQSMsg(clock, 2, time.Minute, "short")
	long := newSQSMsg(clock, 2, time.Hour, "long")
	mustPutMsgs(t, qs, q, short, long)
	mu.Lock()
	clock = clock.Add(2 * time.Minute)
	mu.Unlock()
	got, err := qs.GetMessages(ctx, q, []uuid.UUID{short.ID, long.ID})
	if err != nil {
		t.Fatal(err)
	}
	assertMessages(t, got, []*sqs.Message{long})
	if n := len(scanAll(t, qs, q, 10)); n != 1 {
		t.Fatalf("scan found %d messages, want 1", n)
	}
	// An expired message is not located, so its state is not written.
	if err := qs.SaveStates(ctx, q, []sqs.State{{ID: short.ID, ReceiveCount: 5}}); err != nil {
		t.Fatal(err)
	}
	// Already expired when put: not written at all.
	mustPutMsgs(t, qs, q, newSQSMsg(clock.Add(-2*time.Minute), 2, time.Minute, "late"))
	if n := len(scanAll(t, qs, q, 10)); n != 1 {
		t.Fatalf("scan found %d messages, want 1", n)
	}
}

// TestSQSPurge purges a queue whose messages span old buckets (dropped as
// whole partitions) and the buckets around the purge time (row by row).
func TestSQSPurge(t *testing.T) {
	ctx := context.Background()
	qs := sharedStore(t).Queues()
	q := mustCreateQueue(t, qs, 2)
	now := time.Now()
	before := now.Add(-20 * time.Second)
	var keep, drop []*sqs.Message
	for _, age := range []time.Duration{10 * time.Minute, 5 * time.Minute, 90 * time.Second, 25 * time.Second, 21 * time.Second,
		19 * time.Second, 5 * time.Second, 0} {
		m := newSQSMsg(now.Add(-age), 2, time.Hour, fmt.Sprint(age))
		if m.SentAt.Before(before) {
			drop = append(drop, m)
		} else {
			keep = append(keep, m)
		}
		mustPutMsgs(t, qs, q, m)
	}
	if err := qs.PurgeMessages(ctx, q, before); err != nil {
		t.Fatal(err)
	}
	cold := coldQueues(t)
	got, err := cold.GetMessages(ctx, q, ids(append(slices.Clone(drop), keep...)))
	if err != nil {
		t.Fatal(err)
	}
	assertMessages(t, got, keep)
	if n := len(scanAll(t, cold, q, 10)); n != len(keep) {
		t.Fatalf("scan found %d messages, want %d", n, len(keep))
	}

	// A message sent before the purge but put after it (a dead-letter
	// move) is stored, even in a bucket whose partition was dropped.
	moved := drop[0]
	mustPutMsgs(t, qs, q, moved)
	got, err = cold.GetMessages(ctx, q, []uuid.UUID{moved.ID})
	if err != nil {
		t.Fatal(err)
	}
	assertMessages(t, got, []*sqs.Message{moved})
	// A scan (an Index rebuild) finds it too: no bucket is skipped for
	// being older than the purge.
	q.PurgedAt = now
	if n := len(scanAll(t, cold, q, 10)); n != len(keep)+1 {
		t.Fatalf("scan after the move found %d messages, want %d", n, len(keep)+1)
	}
}

// TestSQSPutSplitsLargeBatches puts more body bytes into one partition
// than one batch carries.
func TestSQSPutSplitsLargeBatches(t *testing.T) {
	qs := sharedStore(t).Queues()
	q := mustCreateQueue(t, qs, 1)
	body := strings.Repeat("x", 200<<10)
	var msgs []*sqs.Message
	now := time.Now()
	for i := range 10 {
		msgs = append(msgs, newSQSMsg(now.Add(time.Duration(i)*time.Microsecond), 1, time.Hour, body))
	}
	mustPutMsgs(t, qs, q, msgs...)
	if n := len(scanAll(t, qs, q, 100)); n != len(msgs) {
		t.Fatalf("scan found %d messages, want %d", n, len(msgs))
	}
}

// TestSQSPartitionsFollowTheQueuesShards: a queue of the engine's default
// count (every queue created before the count was a setting) and one of 16
// (the herald:shards tag) store each message in partition (queue,
// sqs.ShardOf(ID, the queue's own count), minute) and nowhere else, and
// register buckets of those shards only.
func TestSQSPartitionsFollowTheQueuesShards(t *testing.T) {
	ctx := context.Background()
	qs := sharedStore(t).Queues()
	s := testSession(t)
	const widest = 16
	for _, shards := range []int{sqsDefaultShards, widest} {
		t.Run(fmt.Sprint(shards, " shards"), func(t *testing.T) {
			created := mustCreateQueue(t, qs, shards)
			q, err := qs.GetQueue(ctx, created.Account, created.Name) // the count as stored
			if err != nil {
				t.Fatal(err)
			}
			if q.Shards != shards {
				t.Fatalf("GetQueue: %d shards, want %d", q.Shards, shards)
			}
			now := time.Now()
			var msgs []*sqs.Message
			buckets := map[int64]bool{}
			used := map[int]bool{}
			for i := range 64 {
				m := newSQSMsg(now.Add(-time.Duration(i)*time.Second), q.Shards, time.Hour, fmt.Sprint(i))
				msgs = append(msgs, m)
				buckets[msgBucket(m.ID)] = true
				used[m.Shard] = true
			}
			mustPutMsgs(t, qs, q, msgs...)
			at := map[string][]int{} // pos -> the shards holding it
			registered := map[int]bool{}
			for shard := range widest {
				for b := range buckets {
					it := s.Query(`SELECT pos FROM sqs_messages WHERE queue_id = ? AND shard = ? AND bucket = ?`, cqlUUID(q.ID), shard, b).Iter()
					var pos []byte
					for it.Scan(&pos) {
						at[string(pos)] = append(at[string(pos)], shard)
					}
					if err := it.Close(); err != nil {
						t.Fatal(err)
					}
				}
				var n int
				if err := s.Query(`SELECT COUNT(*) FROM sqs_buckets WHERE queue_id = ? AND shard = ?`, cqlUUID(q.ID), shard).Scan(&n); err != nil {
					t.Fatal(err)
				}
				registered[shard] = n > 0
			}
			if len(at) != len(msgs) {
				t.Errorf("%d rows in the queue's partitions, want %d", len(at), len(msgs))
			}
			for _, m := range msgs {
				if want := sqs.ShardOf(m.ID, shards); !slices.Equal(at[string(msgPos(m.ID))], []int{want}) {
					t.Errorf("message %s is in shards %v, want [%d]", m.Body, at[string(msgPos(m.ID))], want)
				}
			}
			for shard := range widest {
				if registered[shard] != used[shard] {
					t.Errorf("shard %d of %d: buckets registered %v, messages stored %v", shard, shards, registered[shard], used[shard])
				}
			}
			if len(used) < min(shards, 4) {
				t.Errorf("64 messages used shards %v of %d", used, shards)
			}
		})
	}
}

func TestSQSPutRejectsBadShard(t *testing.T) {
	qs := sharedStore(t).Queues()
	q := mustCreateQueue(t, qs, 2)
	m := newSQSMsg(time.Now(), 2, time.Hour, "x")
	m.Shard = 2
	err := qs.PutMessages(context.Background(), q, []*sqs.Message{m})
	wantCode(t, err, herald.EInvalid)
}

// TestSQSUnindexed marks and takes queues, and checks that a mark written
// again after a take read it survives that take's delete.
func TestSQSUnindexed(t *testing.T) {
	ctx := context.Background()
	qs := sharedStore(t).Queues()
	for { // start empty (other tests of the keyspace may have marked)
		got, err := qs.TakeUnindexed(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			break
		}
	}
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	for _, id := range []uuid.UUID{a, b, c, a} {
		if err := qs.MarkUnindexed(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	first, err := qs.TakeUnindexed(ctx, 2)
	if err != nil || len(first) != 2 {
		t.Fatalf("TakeUnindexed(2) = %v, %v", first, err)
	}
	rest, err := qs.TakeUnindexed(ctx, 10)
	if err != nil || len(rest) != 1 {
		t.Fatalf("TakeUnindexed(10) = %v, %v", rest, err)
	}
	all := append(first, rest...)
	slices.SortFunc(all, func(x, y uuid.UUID) int { return strings.Compare(x.String(), y.String()) })
	want := []uuid.UUID{a, b, c}
	slices.SortFunc(want, func(x, y uuid.UUID) int { return strings.Compare(x.String(), y.String()) })
	if !slices.Equal(all, want) {
		t.Fatalf("took %v, want %v", all, want)
	}

	// The race: a take reads a's mark, a is marked again, the take deletes.
	if err := qs.MarkUnindexed(ctx, a); err != nil {
		t.Fatal(err)
	}
	c0 := sharedStore(t).conn.Load()
	store := qs.(*queueStore)
	slot := store.unindexedSlot(a)
	var readTS int64
	if err := c0.s.Query(`SELECT WRITETIME(marked_ns) FROM `+shared.ks+`.sqs_unindexed WHERE slot = ? AND queue_id = ?`, slot, cqlUUID(a)).Scan(&readTS); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	if err := qs.MarkUnindexed(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := c0.s.Query(store.q.deleteUnindexed, readTS, slot, cqlUUID(a)).Exec(); err != nil {
		t.Fatal(err)
	}
	got, err := qs.TakeUnindexed(ctx, 10)
	if err != nil || !slices.Equal(got, []uuid.UUID{a}) {
		t.Fatalf("after a racing take: TakeUnindexed = %v, %v; want [%s]", got, err, a)
	}
}

// TestSQSUnavailable calls every method of a store that cannot connect:
// each fails with EUnavailable.
func TestSQSUnavailable(t *testing.T) {
	st, err := Open(context.Background(), Options{Hosts: []string{"127.0.0.1:1"}, Logger: quietLogger(), ConnectTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	qs := st.Queues()
	q := newTestQueue(2)
	id := []uuid.UUID{uuidAt(time.Now())}
	calls := map[string]func() error{
		"CreateQueue": func() error { _, err := qs.CreateQueue(ctx, q); return err },
		"GetQueue":    func() error { _, err := qs.GetQueue(ctx, q.Account, q.Name); return err },
		"UpdateQueue": func() error { return qs.UpdateQueue(ctx, q) },
		"DeleteQueue": func() error { return qs.DeleteQueue(ctx, q) },
		"ListQueues":  func() error { _, err := qs.ListQueues(ctx, q.Account, "", "", 10); return err },
		"PutMessages": func() error {
			return qs.PutMessages(ctx, q, []*sqs.Message{newSQSMsg(time.Now(), 0, time.Hour, "x")})
		},
		"GetMessages":    func() error { _, err := qs.GetMessages(ctx, q, id); return err },
		"DeleteMessages": func() error { return qs.DeleteMessages(ctx, q, id) },
		"SaveStates":     func() error { return qs.SaveStates(ctx, q, []sqs.State{{ID: id[0]}}) },
		"ScanMessages":   func() error { _, err := qs.ScanMessages(ctx, q, 0, uuid.Nil, 10); return err },
		"PurgeMessages":  func() error { return qs.PurgeMessages(ctx, q, time.Now()) },
		"MarkUnindexed":  func() error { return qs.MarkUnindexed(ctx, q.ID) },
		"TakeUnindexed":  func() error { _, err := qs.TakeUnindexed(ctx, 10); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call()
			var he *herald.Error
			if !errors.As(err, &he) || he.Code != herald.EUnavailable {
				t.Fatalf("error %v: want %s", err, herald.EUnavailable)
			}
		})
	}
}

// TestUnindexedSlotsPerDataCenter: each data center's marks are in slots
// of its own, within a CQL int; one data center keeps slots 0 to 7, those
// of marks written before data centers had their own.
func TestUnindexedSlotsPerDataCenter(t *testing.T) {
	if got := unindexedSlot0(""); got != 0 {
		t.Errorf("one data center's first slot: %d, want 0", got)
	}
	seen := map[int]string{}
	for _, dc := range []string{"dc1", "dc2", "eu-west", "us-east", "datacenter1"} {
		base := unindexedSlot0(dc)
		if base <= 0 || base%sqsUnindexedSlots != 0 || base+sqsUnindexedSlots-1 > math.MaxInt32 {
			t.Errorf("%s: first slot %d: want a positive multiple of %d within a CQL int", dc, base, sqsUnindexedSlots)
		}
		if other, ok := seen[base]; ok {
			t.Errorf("%s and %s share slots from %d", dc, other, base)
		}
		seen[base] = dc
	}
}

// TestUnindexedMarksStayInTheirDataCenter: a mark written by a node of one
// data center is taken only by that data center's nodes: its Redis missed
// the send, so another data center's rebuild would not repair it.
func TestUnindexedMarksStayInTheirDataCenter(t *testing.T) {
	addr := cassandraAddr(t)
	ks := freshKeyspace(t, addr)
	ctx := context.Background()
	// The test node's data center, as SimpleSnitch names it, against a
	// store of one data center (LocalDC unset).
	multi := openTest(t, addr, Options{Keyspace: ks, LocalDC: "datacenter1"}).Queues()
	single := openTest(t, addr, Options{Keyspace: ks}).Queues()
	mine, theirs := uuid.New(), uuid.New()
	if err := multi.MarkUnindexed(ctx, mine); err != nil {
		t.Fatal(err)
	}
	if err := single.MarkUnindexed(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		qs   sqs.Store
		want uuid.UUID
	}{{"datacenter1", multi, mine}, {"one data center", single, theirs}} {
		got, err := tc.qs.TakeUnindexed(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s took %v, want only its own mark %s", tc.name, got, tc.want)
		}
	}
}
