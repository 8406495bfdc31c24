package pebblestore

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

func TestPutGetMessages(t *testing.T) {
	ctx := context.Background()
	s := openDB(t, newClock(t0), Options{}).Queues()
	q := createQueue(t, s, "q", 1)
	a, b := sqsMsg(t0, 0, time.Hour), sqsMsg(t0.Add(time.Millisecond), 0, time.Hour)
	a.Attributes = map[string]sqs.MessageAttributeValue{"n": {DataType: "Number", StringValue: "1"}}
	b.State.ReceiveCount = 2 // stored as given
	putMsgs(t, s, q, a, b)

	missing := uuid.New()
	got, err := s.GetMessages(ctx, q, []uuid.UUID{b.ID, missing, a.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got[0], b) || !reflect.DeepEqual(got[1], a) {
		t.Fatalf("GetMessages = %+v; want b then a", got)
	}

	other := createQueue(t, s, "other", 1)
	if got, _ := s.GetMessages(ctx, other, []uuid.UUID{a.ID}); len(got) != 0 {
		t.Error("a message was found in another queue")
	}
}

func TestPutOverwritesMessageAndState(t *testing.T) {
	ctx := context.Background()
	s := openDB(t, newClock(t0), Options{}).Queues()
	q := createQueue(t, s, "q", 1)
	m := sqsMsg(t0, 0, time.Hour)
	putMsgs(t, s, q, m)
	if err := s.SaveStates(ctx, q, []sqs.State{{ID: m.ID, ReceiveCount: 5}}); err != nil {
		t.Fatal(err)
	}
	m2 := *m
	m2.Body = "replaced"
	putMsgs(t, s, q, &m2)
	got, _ := s.GetMessages(ctx, q, []uuid.UUID{m.ID})
	if len(got) != 1 || got[0].Body != "replaced" || got[0].State.ReceiveCount != 0 {
		t.Errorf("after re-put: %+v; want the new body and state", got)
	}
}

func TestSaveStatesLeavesBody(t *testing.T) {
	ctx := context.Background()
	s := openDB(t, newClock(t0), Options{}).Queues()
	q := createQueue(t, s, "q", 1)
	m := sqsMsg(t0, 0, time.Hour)
	putMsgs(t, s, q, m)
	st := sqs.State{ID: m.ID, ReceiveCount: 1, FirstReceiveAt: t0.Add(time.Second), VisibleAt: t0.Add(31 * time.Second)}
	if err := s.SaveStates(ctx, q, []sqs.State{st, {ID: uuid.New(), ReceiveCount: 9}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetMessages(ctx, q, []uuid.UUID{m.ID})
	if err != nil || len(got) != 1 {
		t.Fatalf("GetMessages = %v, %v", got, err)
	}
	if !reflect.DeepEqual(got[0].State, st) {
		t.Errorf("state = %+v, want %+v", got[0].State, st)
	}
	if got[0].Body != m.Body {
		t.Errorf("body changed to %q", got[0].Body)
	}
	if n := len(scanAll(t, s, q, 0)); n != 1 {
		t.Errorf("scan finds %d messages after saving a state of an unknown one, want 1", n)
	}
}

func TestDeleteMessages(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, newClock(t0), Options{})
	s := db.Queues()
	q := createQueue(t, s, "q", 1)
	a, b := sqsMsg(t0, 0, time.Hour), sqsMsg(t0.Add(time.Second), 0, time.Hour)
	putMsgs(t, s, q, a, b)
	if err := s.DeleteMessages(ctx, q, []uuid.UUID{a.ID, uuid.New()}); err != nil {
		t.Fatal(err)
	}
	if got := sqsIDs(scanAll(t, s, q, 0)); !sameIDs(got, []uuid.UUID{b.ID}) {
		t.Errorf("after delete: %v, want only b", got)
	}
	if n := countKeys(t, db, prefixSQSMsg); n != 2 {
		t.Errorf("%d message keys left, want b's record and state", n)
	}
}

func TestScanMessagesPagesOldestFirst(t *testing.T) {
	ctx := context.Background()
	s := openDB(t, newClock(t0), Options{}).Queues()
	q := createQueue(t, s, "q", 2)
	var want []uuid.UUID
	for i := range 25 {
		m := sqsMsg(t0.Add(time.Duration(24-i)*time.Second), 0, time.Hour) // put newest first
		putMsgs(t, s, q, m, sqsMsg(t0, 1, time.Hour))
		want = append([]uuid.UUID{m.ID}, want...)
	}
	// Orphan states (a state saved after its message was deleted) between
	// records must not disturb paging.
	if err := s.DeleteMessages(ctx, q, want[3:4]); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveStates(ctx, q, []sqs.State{{ID: want[3], ReceiveCount: 1}}); err != nil {
		t.Fatal(err)
	}
	want = append(want[:3:3], want[4:]...)

	var got []uuid.UUID
	after := uuid.Nil
	for page := 0; ; page++ {
		ms, err := s.ScanMessages(ctx, q, 0, after, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) == 0 {
			break
		}
		if len(ms) > 7 || page > 10 {
			t.Fatalf("page %d has %d messages", page, len(ms))
		}
		for _, m := range ms {
			if m.Shard != 0 {
				t.Fatalf("message of shard %d in a scan of shard 0", m.Shard)
			}
			if m.State.ID != m.ID {
				t.Fatalf("state id %s of message %s", m.State.ID, m.ID)
			}
		}
		got = append(got, sqsIDs(ms)...)
		after = ms[len(ms)-1].ID
	}
	if !sameIDs(got, want) {
		t.Errorf("scan order\n%v\nwant\n%v", got, want)
	}
	if n := len(scanAll(t, s, q, 1)); n != 25 {
		t.Errorf("shard 1 holds %d messages, want 25", n)
	}
	if ms, _ := s.ScanMessages(ctx, q, 2, uuid.Nil, 10); len(ms) != 0 {
		t.Error("a shard past the queue's shards returned messages")
	}
}

func TestMessagesOfShardedQueue(t *testing.T) {
	ctx := context.Background()
	s := openDB(t, newClock(t0), Options{}).Queues()
	q := createQueue(t, s, "q", 4)
	var ms []*sqs.Message
	for shard := range 4 {
		ms = append(ms, sqsMsg(t0.Add(time.Duration(shard)*time.Millisecond), shard, time.Hour))
	}
	putMsgs(t, s, q, ms...)

	got, err := s.GetMessages(ctx, q, []uuid.UUID{ms[3].ID, ms[1].ID})
	if err != nil || len(got) != 2 || got[0].Shard != 3 || got[1].Shard != 1 {
		t.Fatalf("GetMessages = %+v, %v; want shards 3 and 1", got, err)
	}
	if err := s.SaveStates(ctx, q, []sqs.State{{ID: ms[2].ID, ReceiveCount: 4}}); err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, s, q, 2); len(got) != 1 || got[0].State.ReceiveCount != 4 {
		t.Errorf("shard 2 after SaveStates: %+v", got)
	}
	if err := s.DeleteMessages(ctx, q, []uuid.UUID{ms[0].ID, ms[3].ID}); err != nil {
		t.Fatal(err)
	}
	for shard, want := range []int{0, 1, 1, 0} {
		if n := len(scanAll(t, s, q, shard)); n != want {
			t.Errorf("shard %d holds %d messages, want %d", shard, n, want)
		}
	}
	bad := sqsMsg(t0, 4, time.Hour)
	if err := s.PutMessages(ctx, q, []*sqs.Message{bad}); herald.ErrorCode(err) != herald.EInvalid {
		t.Errorf("put to shard 4 of 4: err = %v, want EInvalid", err)
	}
}
