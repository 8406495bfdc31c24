package sqstest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	herald "github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// RunStore runs the conformance suite of sqs.Store against stores made by
// open, which is called once per subtest (engines on a shared server may
// return stores on one keyspace). Subtests run in parallel; the expiry
// subtest waits about two seconds for messages to expire.
func RunStore(t *testing.T, open func(t *testing.T) sqs.Store) {
	t.Helper()
	s := &storeSuite{open: open}
	tests := []struct {
		name string
		fn   func(e *storeEnv)
	}{
		{"CreateThenGetReturnsEveryField", testCreateGetQueue},
		{"CreateExistingIsConflictWithTheExisting", testCreateExisting},
		{"GetMissingIsNotFound", testGetMissing},
		{"UpdateReplacesTheRecord", testUpdateQueue},
		{"UpdateMissingOrOtherIDIsNotFound", testUpdateMissing},
		{"DeleteQueue", testDeleteQueue},
		{"RecreatedQueueStartsEmpty", testRecreatedQueue},
		{"ListQueuesByteOrderPrefixAndAccount", testListQueues},
		{"ListQueuesPages", testListQueuesPaging},
		{"PutThenGetReturnsEveryField", testPutGetMessage},
		{"GetMessagesKeepsOrderAndLeavesOutMissing", testGetMessagesOrder},
		{"MessagesOfOtherQueuesAreApart", testMessagesApart},
		{"PutSameIDOverwrites", testPutOverwrites},
		{"DeleteMessages", testDeleteMessages},
		{"SaveStates", testSaveStates},
		{"ScanOrderByIDTimeThenBytes", testScanOrder},
		{"ScanPagesAfterAnID", testScanPaging},
		{"ScanIsPerShard", testScanShards},
		{"ManyShardsEachReached", testManyShards},
		{"QueueKeepsItsShardCount", testQueueKeepsItsShards},
		{"PurgeMessagesBefore", testPurgeMessages},
		{"PurgedAtDoesNotHideMessages", testPurgedAt},
		{"Expiry", testStoreExpiry},
		{"Unindexed", testUnindexed},
		{"DefaultShards", testDefaultShards},
		{"CancelledContextReturnsError", testStoreCancelled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(s.start(t))
		})
	}
}

type storeSuite struct {
	open func(t *testing.T) sqs.Store
}

// storeEnv is what one subtest works with: its store and an account of its
// own.
type storeEnv struct {
	t       *testing.T
	store   sqs.Store
	ctx     context.Context
	account string
	now     time.Time // when the subtest started, UTC, whole milliseconds
}

func (s *storeSuite) start(t *testing.T) *storeEnv {
	t.Helper()
	st := s.open(t)
	if st == nil {
		t.Fatal("open returned a nil sqs.Store")
	}
	return &storeEnv{t: t, store: st, ctx: t.Context(), account: NewAccount(), now: NowMilli()}
}

// create stores a new queue of the subtest's account.
func (e *storeEnv) create(name string) *sqs.Queue {
	e.t.Helper()
	q := NewQueue(e.account, name)
	if _, err := e.store.CreateQueue(e.ctx, q); err != nil {
		e.t.Fatalf("CreateQueue %s: %v", name, err)
	}
	return q
}

// createSharded stores a new queue of the subtest's account with shards
// message shards.
func (e *storeEnv) createSharded(name string, shards int) *sqs.Queue {
	e.t.Helper()
	q := NewQueue(e.account, name)
	q.Shards = shards
	if _, err := e.store.CreateQueue(e.ctx, q); err != nil {
		e.t.Fatalf("CreateQueue %s: %v", name, err)
	}
	return q
}

// Each message goes to its shard, ShardOf(ID), as the Service puts it.
func (e *storeEnv) put(q *sqs.Queue, msgs ...*sqs.Message) {
	e.t.Helper()
	for _, m := range msgs {
		m.Shard = sqs.ShardOf(m.ID, q.Shards)
	}
	if err := e.store.PutMessages(e.ctx, q, msgs); err != nil {
		e.t.Fatalf("PutMessages: %v", err)
	}
}

// msgs returns n messages sent a millisecond apart from at, named by
// their bodies prefix0, prefix1...
func msgs(at time.Time, prefix string, n int) []*sqs.Message {
	out := make([]*sqs.Message, n)
	for i := range out {
		out[i] = NewMessage(at.Add(time.Duration(i)*time.Millisecond), prefix+string(rune('0'+i%10))+string(rune('a'+i/10)))
	}
	return out
}

// get reads messages with GetMessages. A Store that is a RecordReader
// must give the same messages, states zero but for their IDs, from
// GetMessageRecords: every subtest that reads messages checks it.
func (e *storeEnv) get(q *sqs.Queue, ids ...uuid.UUID) []*sqs.Message {
	e.t.Helper()
	rr, isRR := e.store.(sqs.RecordReader)
	var records []*sqs.Message
	before := time.Now()
	if isRR {
		var err error
		if records, err = rr.GetMessageRecords(e.ctx, q, ids); err != nil {
			e.t.Fatalf("GetMessageRecords: %v", err)
		}
	}
	got, err := e.store.GetMessages(e.ctx, q, ids)
	if err != nil {
		e.t.Fatalf("GetMessages: %v", err)
	}
	if isRR {
		e.sameRecords(records, got, before, time.Now())
	}
	return got
}

// sameRecords checks that records, read from before, are got, read until
// after, with states zero but for their IDs. Only messages that expired
// between the two reads may be in records alone.
func (e *storeEnv) sameRecords(records, got []*sqs.Message, before, after time.Time) {
	e.t.Helper()
	n := 0 // of got matched
	for _, r := range records {
		if n < len(got) && r.ID == got[n].ID {
			m := *got[n]
			m.State = sqs.State{ID: m.ID}
			if d := MessageDiff(&m, r); d != "" {
				e.t.Errorf("GetMessageRecords: message %s: %s", r.Body, d)
			}
			n++
		} else if r.ExpiresAt.IsZero() || !r.ExpiresAt.After(before) || r.ExpiresAt.After(after) {
			e.t.Errorf("GetMessageRecords returned %s, which GetMessages left out", r.Body)
		}
	}
	if n != len(got) {
		e.t.Errorf("GetMessageRecords = %v, GetMessages %v", bodies(records), bodies(got))
	}
}

// scanAll pages through one shard with pages of size page.
func (e *storeEnv) scanAll(q *sqs.Queue, shard, page int) []*sqs.Message {
	e.t.Helper()
	var out []*sqs.Message
	after := uuid.Nil
	for range 10_000 {
		got, err := e.store.ScanMessages(e.ctx, q, shard, after, page)
		if err != nil {
			e.t.Fatalf("ScanMessages: %v", err)
		}
		if len(got) > page {
			e.t.Fatalf("ScanMessages returned %d messages, more than the limit %d", len(got), page)
		}
		out = append(out, got...)
		if len(got) < page {
			return out
		}
		after = got[len(got)-1].ID
	}
	e.t.Fatal("ScanMessages never ended")
	return nil
}

// bodies returns the bodies of msgs, which name them in the subtests.
func bodies(msgs []*sqs.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Body
	}
	return out
}

// wantCode fails the test unless err is a *herald.Error of code.
func wantCode(t *testing.T, op string, err error, code string) {
	t.Helper()
	if got := herald.ErrorCode(err); got != code {
		t.Errorf("%s: error %v (code %q), want code %q", op, err, got, code)
	}
}

func queueNames(qs []*sqs.Queue) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Name
	}
	return out
}

// sameMessages checks that got are want, field by field, in order.
func sameMessages(t *testing.T, op string, want, got []*sqs.Message) {
	t.Helper()
	if !slices.Equal(bodies(want), bodies(got)) {
		t.Errorf("%s = %v, want %v", op, bodies(got), bodies(want))
		return
	}
	for i := range want {
		if d := MessageDiff(want[i], got[i]); d != "" {
			t.Errorf("%s: message %s: %s", op, want[i].Body, d)
		}
	}
}
