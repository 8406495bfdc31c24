package pebblestore

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/sqs"
)

func TestExpiredMessagesAreInvisibleAndReaped(t *testing.T) {
	ctx := context.Background()
	c := newClock(t0)
	db := openDB(t, c, Options{})
	s := db.Queues()
	q := createQueue(t, s, "q", 2)
	short := sqsMsg(t0, 0, time.Minute)
	long := sqsMsg(t0.Add(time.Millisecond), 0, time.Hour)
	other := sqsMsg(t0, 1, time.Minute)
	putMsgs(t, s, q, short, long, other)
	if err := s.SaveStates(ctx, q, []sqs.State{{ID: short.ID, ReceiveCount: 1}}); err != nil {
		t.Fatal(err)
	}

	c.Advance(time.Minute) // short and other expire now
	if got, _ := s.GetMessages(ctx, q, []uuid.UUID{short.ID, long.ID, other.ID}); !sameIDs(sqsIDs(got), []uuid.UUID{long.ID}) {
		t.Errorf("GetMessages after expiry = %v, want only long", sqsIDs(got))
	}
	if got := scanAll(t, s, q, 0); !sameIDs(sqsIDs(got), []uuid.UUID{long.ID}) {
		t.Errorf("scan after expiry = %v, want only long", sqsIDs(got))
	}

	n, err := s.ReapExpired(ctx)
	if err != nil || n != 2 {
		t.Fatalf("ReapExpired = %d, %v; want 2", n, err)
	}
	if keys := countKeys(t, db, prefixSQSMsg); keys != 2 {
		t.Errorf("%d message keys after reaping, want long's record and state", keys)
	}
	if entries := countKeys(t, db, prefixSQSExpiry); entries != 1 {
		t.Errorf("%d expiry entries left, want long's", entries)
	}

	c.Advance(time.Hour)
	if n, err := s.ReapExpired(ctx); err != nil || n != 1 {
		t.Fatalf("second ReapExpired = %d, %v; want 1", n, err)
	}
	if keys := countKeys(t, db, prefixSQSMsg) + countKeys(t, db, prefixSQSExpiry); keys != 0 {
		t.Errorf("%d keys left after everything expired", keys)
	}
}

func TestReapDropsEntriesOfDeletedMessages(t *testing.T) {
	ctx := context.Background()
	c := newClock(t0)
	db := openDB(t, c, Options{})
	s := db.Queues()
	q := createQueue(t, s, "q", 1)
	var ids []uuid.UUID
	for i := range 100 {
		// Sent within one second that expires within one bucket.
		m := sqsMsg(t0.Add(time.Second+time.Duration(i)*time.Millisecond), 0, time.Minute)
		putMsgs(t, s, q, m)
		ids = append(ids, m.ID)
	}
	if n := countKeys(t, db, prefixSQSExpiry); n != 1 {
		t.Errorf("100 messages of one minute made %d expiry entries, want 1", n)
	}
	if err := s.DeleteMessages(ctx, q, ids); err != nil {
		t.Fatal(err)
	}
	// A state saved after the delete: an orphan the reaper cleans up.
	if err := s.SaveStates(ctx, q, []sqs.State{{ID: ids[0], ReceiveCount: 1}}); err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Minute)
	if n, err := s.ReapExpired(ctx); err != nil || n != 0 {
		t.Fatalf("ReapExpired = %d, %v; want 0 (all were deleted)", n, err)
	}
	if keys := countKeys(t, db, prefixSQSMsg) + countKeys(t, db, prefixSQSExpiry); keys != 0 {
		t.Errorf("%d keys left", keys)
	}
}

func TestBackgroundReaperReclaimsQueueMessages(t *testing.T) {
	c := newClock(t0)
	db := openDB(t, c, Options{ReapInterval: 10 * time.Millisecond})
	s := db.Queues()
	q := createQueue(t, s, "q", 1)
	putMsgs(t, s, q, sqsMsg(t0, 0, time.Minute))
	c.Advance(time.Hour)
	deadline := time.Now().Add(5 * time.Second)
	for countKeys(t, db, prefixSQSMsg) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the background reaper did not reclaim an expired queue message")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPurgeMessages(t *testing.T) {
	// idOffset shifts the ids' clock against SentAt's: the Service takes
	// ids from the uuid package's clock and SentAt from its own.
	for _, tt := range []struct {
		name     string
		idOffset time.Duration
	}{
		{"same clocks", 0},
		{"ids a year ahead", 365 * 24 * time.Hour},
		{"ids a year behind", -365 * 24 * time.Hour},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := openDB(t, newClock(t0), Options{}).Queues()
			q := createQueue(t, s, "q", 2)
			var kept []uuid.UUID
			for i := range 200 {
				sent := t0.Add(time.Duration(i) * 7 * time.Millisecond)
				m := sqsMsg(sent, i%2, time.Hour)
				m.ID = v1(sent.Add(tt.idOffset))
				putMsgs(t, s, q, m)
				if i >= 100 && i%2 == 0 {
					kept = append(kept, m.ID)
				}
			}
			before := t0.Add(100 * 7 * time.Millisecond)
			if err := s.PurgeMessages(ctx, q, before); err != nil {
				t.Fatal(err)
			}
			if got := sqsIDs(scanAll(t, s, q, 0)); !sameIDs(got, kept) {
				t.Errorf("shard 0 keeps %d messages, want the %d sent from `before` on", len(got), len(kept))
			}
			for _, m := range scanAll(t, s, q, 1) {
				if m.SentAt.Before(before) {
					t.Errorf("message sent at %v survived a purge before %v", m.SentAt, before)
				}
			}
		})
	}
}

func TestPurgeAllKeepsLaterPuts(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, newClock(t0), Options{})
	s := db.Queues()
	q := createQueue(t, s, "q", 1)
	for i := range 50 {
		putMsgs(t, s, q, sqsMsg(t0.Add(time.Duration(i)*time.Millisecond), 0, time.Hour))
	}
	if err := s.PurgeMessages(ctx, q, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, db, prefixSQSMsg); n != 0 {
		t.Errorf("%d message keys after purging all", n)
	}
	// A message moved in after the purge keeps its old id and SentAt; the
	// purge must not hide it.
	late := sqsMsg(t0, 0, time.Hour)
	putMsgs(t, s, q, late)
	if got := sqsIDs(scanAll(t, s, q, 0)); !sameIDs(got, []uuid.UUID{late.ID}) {
		t.Errorf("after a later put: %v, want the new message", got)
	}
	empty := createQueue(t, s, "empty", 3)
	if err := s.PurgeMessages(ctx, empty, t0); err != nil {
		t.Errorf("purging an empty queue: %v", err)
	}
}

func TestDeleteQueueDropsMessages(t *testing.T) {
	ctx := context.Background()
	c := newClock(t0)
	db := openDB(t, c, Options{})
	s := db.Queues()
	q := createQueue(t, s, "q", 2)
	keep := createQueue(t, s, "keep", 1)
	for i := range 20 {
		putMsgs(t, s, q, sqsMsg(t0.Add(time.Duration(i)*time.Millisecond), i%2, time.Minute))
	}
	putMsgs(t, s, keep, sqsMsg(t0, 0, time.Hour))
	if err := s.MarkUnindexed(ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, db, prefixSQSMsg); n != 2 {
		t.Errorf("%d message keys after DeleteQueue, want the other queue's 2", n)
	}
	again := createQueue(t, s, "q", 2)
	if n := len(scanAll(t, s, again, 0)) + len(scanAll(t, s, again, 1)); n != 0 {
		t.Errorf("the queue created again holds %d messages", n)
	}
	if ids, _ := s.TakeUnindexed(ctx, 10); len(ids) != 0 {
		t.Errorf("a deleted queue is still marked unindexed: %v", ids)
	}
	c.Advance(2 * time.Minute)
	if _, err := s.ReapExpired(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, db, prefixSQSExpiry); n != 1 {
		t.Errorf("%d expiry entries after reaping, want the other queue's", n)
	}
}

func TestQueueStoreSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c := newClock(t0)
	db := openDBIn(t, dir, c, Options{})
	s := db.Queues()
	q := createQueue(t, s, "q", 2)
	q.Tags = map[string]string{"a": "b"}
	if err := s.UpdateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	ms := []*sqs.Message{sqsMsg(t0, 0, time.Hour), sqsMsg(t0.Add(time.Second), 1, time.Hour)}
	putMsgs(t, s, q, ms...)
	st := sqs.State{ID: ms[1].ID, ReceiveCount: 2, FirstReceiveAt: t0.Add(time.Minute), VisibleAt: t0.Add(2 * time.Minute)}
	if err := s.SaveStates(ctx, q, []sqs.State{st}); err != nil { // unsynced, made durable by Close
		t.Fatal(err)
	}
	if err := s.MarkUnindexed(ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s = openDBIn(t, dir, c, Options{}).Queues()
	got, err := s.GetQueue(ctx, testAccount, "q")
	if err != nil || got.ID != q.ID || got.Tags["a"] != "b" || got.Shards != 2 {
		t.Fatalf("queue after restart = %+v, %v", got, err)
	}
	msgs, err := s.GetMessages(ctx, got, []uuid.UUID{ms[0].ID, ms[1].ID})
	if err != nil || len(msgs) != 2 {
		t.Fatalf("messages after restart = %v, %v", msgs, err)
	}
	if msgs[0].Body != ms[0].Body || msgs[1].State != st {
		t.Errorf("after restart: body %q, state %+v; want %q, %+v", msgs[0].Body, msgs[1].State, ms[0].Body, st)
	}
	if ids, err := s.TakeUnindexed(ctx, 10); err != nil || !sameIDs(ids, []uuid.UUID{q.ID}) {
		t.Errorf("unindexed after restart = %v, %v", ids, err)
	}
}
