package cassandrastore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snstest"
)

// TestSubBucket checks that subscription buckets are in range and follow
// the byte order of ids, which ListSubscriptions relies on.
func TestSubBucket(t *testing.T) {
	tests := []struct {
		id   string
		want int
	}{
		{"00000000-0000-0000-0000-000000000000", 0},
		{"03ffffff-ffff-ffff-ffff-ffffffffffff", 0},
		{"04000000-0000-0000-0000-000000000000", 1},
		{"7fffffff-ffff-4fff-bfff-ffffffffffff", 31},
		{"80000000-0000-4000-8000-000000000000", 32},
		{"ffffffff-ffff-ffff-ffff-ffffffffffff", 63},
	}
	for _, tc := range tests {
		if got := subBucket(uuid.MustParse(tc.id)); got != tc.want {
			t.Errorf("subBucket(%s) = %d, want %d", tc.id, got, tc.want)
		}
	}
	ids := make([]uuid.UUID, 1000)
	for i := range ids {
		ids[i] = uuid.New()
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return strings.Compare(string(a[:]), string(b[:])) })
	for i := 1; i < len(ids); i++ {
		if subBucket(ids[i-1]) > subBucket(ids[i]) {
			t.Fatalf("ids %s < %s, buckets %d > %d", ids[i-1], ids[i], subBucket(ids[i-1]), subBucket(ids[i]))
		}
	}
}

// TestTopicSlot pins the slot function: it decides where stored records
// live, so it must never change.
func TestTopicSlot(t *testing.T) {
	tests := []struct {
		name string
		want int
	}{
		{"", 69}, // FNV-1a's offset basis, 0x811c9dc5, mod 128
		{"a", 44},
		{"orders", 108},
	}
	for _, tc := range tests {
		if got := topicSlot(tc.name); got != tc.want || got < 0 || got >= snsTopicSlots {
			t.Errorf("topicSlot(%q) = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestSNSSubscriptionPartitions checks the stored layout: each subscription
// lies in the bucket of its id, a topic's subscriptions spread over many
// buckets, and DeleteTopic empties every bucket while other topics keep
// theirs.
func TestSNSSubscriptionPartitions(t *testing.T) {
	st := sharedStore(t)
	ts, ctx := st.Topics(), t.Context()
	account := snstest.NewAccount()
	topics := []*sns.Topic{snstest.NewTopic(account, "a"), snstest.NewTopic(account, "b")}
	for _, tp := range topics {
		if _, err := ts.CreateTopic(ctx, tp); err != nil {
			t.Fatal(err)
		}
		for i := range 200 {
			if err := ts.PutSubscription(ctx, snstest.NewSubscription(tp, sns.ProtocolHTTP, fmt.Sprintf("http://h/%d", i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	c, err := st.enter(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	// rows returns the number of rows of each bucket of topic id, checking
	// that each lies in its own id's bucket.
	rows := func(id uuid.UUID) []int {
		t.Helper()
		counts := make([]int, snsSubBuckets)
		for b := range snsSubBuckets {
			iter := c.s.Query(fmt.Sprintf(`SELECT id FROM %s.sns_subscriptions WHERE topic_id = ? AND bucket = ?`, st.opts.Keyspace),
				cqlUUID(id), b).WithContext(ctx).Iter()
			var raw []byte
			for iter.Scan(&raw) {
				if got := subBucket(uuid.UUID(raw)); got != b {
					t.Errorf("subscription %x stored in bucket %d, its bucket is %d", raw, b, got)
				}
				counts[b]++
			}
			if err := iter.Close(); err != nil {
				t.Fatal(err)
			}
		}
		return counts
	}
	counts := rows(topics[0].ID)
	used := 0
	for _, n := range counts {
		if n > 0 {
			used++
		}
	}
	if used < snsSubBuckets/2 {
		t.Errorf("200 random subscriptions use %d of %d buckets: %v", used, snsSubBuckets, counts)
	}
	if err := ts.DeleteTopic(ctx, topics[0]); err != nil {
		t.Fatal(err)
	}
	for b, n := range rows(topics[0].ID) {
		if n != 0 {
			t.Errorf("after DeleteTopic, bucket %d holds %d rows", b, n)
		}
	}
	total := 0
	for _, n := range rows(topics[1].ID) {
		total += n
	}
	if total != 200 {
		t.Errorf("the other topic holds %d subscriptions after the delete, want 200", total)
	}
}

// TestSNSListSubscriptionsStatements counts the bucket reads of a
// ListSubscriptions call: a page of a topic whose first bucket holds more
// than the page is one read, and walking an empty topic takes few rounds
// but still reads every bucket once (it cannot know they are empty).
func TestSNSListSubscriptionsStatements(t *testing.T) {
	sharedStore(t)
	var log statementLog
	ts := openTest(t, shared.addr, Options{Keyspace: shared.ks, configure: func(c *gocql.ClusterConfig) {
		c.QueryObserver, c.BatchObserver = &log, &log
	}}).Topics()
	ctx := t.Context()
	tp := snstest.NewTopic(snstest.NewAccount(), "t")
	if _, err := ts.CreateTopic(ctx, tp); err != nil {
		t.Fatal(err)
	}
	empty := snstest.NewTopic(tp.Account, "empty")
	if _, err := ts.CreateTopic(ctx, empty); err != nil {
		t.Fatal(err)
	}
	// 20 subscriptions in bucket 0 (ids starting 0x00..0x03).
	for range 20 {
		s := snstest.NewSubscription(tp, sns.ProtocolHTTP, "http://h")
		s.ID[0] &= 0x03
		if err := ts.PutSubscription(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		topic     uuid.UUID
		limit     int
		wantSubs  int
		wantReads int
	}{
		{"page within the first bucket", tp.ID, 10, 10, 1},
		{"empty topic", empty.ID, 100, 0, snsSubBuckets},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			log.take()
			got, err := ts.ListSubscriptions(ctx, tc.topic, uuid.Nil, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.wantSubs {
				t.Errorf("got %d subscriptions, want %d", len(got), tc.wantSubs)
			}
			reads := 0
			for _, s := range log.take() {
				if strings.Contains(s, "sns_subscriptions") {
					reads++
				}
			}
			if reads != tc.wantReads {
				t.Errorf("%d bucket reads, want %d", reads, tc.wantReads)
			}
		})
	}
}

// TestSNSUnavailable calls every method of a store that cannot connect,
// and of a closed store: each fails with EUnavailable.
func TestSNSUnavailable(t *testing.T) {
	down, err := Open(context.Background(), Options{Hosts: []string{"127.0.0.1:1"}, Logger: quietLogger(), ConnectTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { down.Close() })
	closed, err := Open(context.Background(), Options{Hosts: []string{"127.0.0.1:1"}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	ctx := context.Background()
	tp := snstest.NewTopic(snstest.NewAccount(), "t")
	s := snstest.NewSubscription(tp, sns.ProtocolSQS, "arn:aws:sqs:us-east-1:000000000000:q")
	for _, store := range []struct {
		name string
		st   *Store
	}{{"unreachable", down}, {"closed", closed}} {
		ts := store.st.Topics()
		calls := map[string]func() error{
			"CreateTopic":        func() error { _, err := ts.CreateTopic(ctx, tp); return err },
			"GetTopic":           func() error { _, err := ts.GetTopic(ctx, tp.Account, tp.Name); return err },
			"UpdateTopic":        func() error { return ts.UpdateTopic(ctx, tp) },
			"DeleteTopic":        func() error { return ts.DeleteTopic(ctx, tp) },
			"ListTopics":         func() error { _, err := ts.ListTopics(ctx, tp.Account, "", 10); return err },
			"PutSubscription":    func() error { return ts.PutSubscription(ctx, s) },
			"GetSubscription":    func() error { _, err := ts.GetSubscription(ctx, tp.ID, s.ID); return err },
			"DeleteSubscription": func() error { return ts.DeleteSubscription(ctx, tp.ID, s.ID) },
			"ListSubscriptions":  func() error { _, err := ts.ListSubscriptions(ctx, tp.ID, uuid.Nil, 10); return err },
		}
		for name, call := range calls {
			t.Run(store.name+"/"+name, func(t *testing.T) {
				if err := call(); herald.ErrorCode(err) != herald.EUnavailable {
					t.Fatalf("error %v: want code %s", err, herald.EUnavailable)
				}
			})
		}
	}
}

// TestSNSListSubscriptionsRandomAfter pages from cursors that are not
// stored ids, in many buckets, against the byte order of a sorted list.
func TestSNSListSubscriptionsRandomAfter(t *testing.T) {
	ts, ctx := sharedStore(t).Topics(), t.Context()
	tp := snstest.NewTopic(snstest.NewAccount(), "t")
	if _, err := ts.CreateTopic(ctx, tp); err != nil {
		t.Fatal(err)
	}
	ids := make([]uuid.UUID, 150)
	for i := range ids {
		s := snstest.NewSubscription(tp, sns.ProtocolHTTP, "http://h")
		ids[i] = s.ID
		if err := ts.PutSubscription(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	cmp := func(a, b uuid.UUID) int { return strings.Compare(string(a[:]), string(b[:])) }
	slices.SortFunc(ids, cmp)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		var after uuid.UUID
		for i := range after {
			after[i] = byte(rng.UintN(256))
		}
		limit := 1 + rng.IntN(40)
		from, _ := slices.BinarySearchFunc(ids, after, cmp)
		want := ids[from:min(len(ids), from+limit)]
		got, err := ts.ListSubscriptions(ctx, tp.ID, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		gotIDs := make([]uuid.UUID, len(got))
		for i, s := range got {
			gotIDs[i] = s.ID
		}
		if !slices.Equal(gotIDs, want) {
			t.Fatalf("after %s limit %d: got %v, want %v", after, limit, gotIDs, want)
		}
	}
}
