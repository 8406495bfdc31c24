package pebblestore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/sqs"
)

// TestDeleteQueueBothPaths deletes a queue small enough for point deletes
// and one too large for them (range deletion) and checks that neither
// leaves a key under its prefix, that a neighbouring queue keeps its
// messages, and that a queue created again under the name is empty.
func TestDeleteQueueBothPaths(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs int // two keys each: record and state
	}{
		{"empty", 0},
		{"small", 3},
		{"at-limit", maxPointDeletes / 2},
		{"over-limit", maxPointDeletes/2 + 1},
		{"large", 3 * maxPointDeletes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db := openDB(t, newClock(t0), Options{})
			s := db.Queues()
			q := createQueue(t, s, "doomed", 2)
			keep := createQueue(t, s, "keep", 1)
			putMsgs(t, s, keep, sqsMsg(t0, 0, time.Hour))
			var ids []uuid.UUID
			for i := range tc.msgs {
				m := sqsMsg(t0.Add(time.Duration(i)*time.Millisecond), i%2, time.Hour)
				putMsgs(t, s, q, m)
				ids = append(ids, m.ID)
			}
			// Rewrite some states, as receives do.
			var states []sqs.State
			for _, id := range ids[:min(len(ids), 2)] {
				states = append(states, sqs.State{ID: id, ReceiveCount: 1, FirstReceiveAt: t0, VisibleAt: t0.Add(time.Minute)})
			}
			if err := s.SaveStates(ctx, q, states); err != nil {
				t.Fatal(err)
			}
			if n := prefixKeyCount(t, db, sqsQueuePrefix(q.ID)); n != 2*tc.msgs {
				t.Fatalf("%d keys under the queue before deleting, want %d", n, 2*tc.msgs)
			}
			if err := s.DeleteQueue(ctx, q); err != nil {
				t.Fatal(err)
			}
			if n := prefixKeyCount(t, db, sqsQueuePrefix(q.ID)); n != 0 {
				t.Errorf("%d keys under the queue after DeleteQueue, want 0", n)
			}
			if n := prefixKeyCount(t, db, queueKey(q.Account, q.Name)); n != 0 {
				t.Errorf("the queue record survived DeleteQueue")
			}
			if got := sqsIDs(scanAll(t, s, keep, 0)); len(got) != 1 {
				t.Errorf("the other queue holds %d messages, want 1", len(got))
			}
			again := createQueue(t, s, q.Name, 2)
			if n := len(scanAll(t, s, again, 0)) + len(scanAll(t, s, again, 1)); n != 0 {
				t.Errorf("the queue created again holds %d messages", n)
			}
			if got, err := s.GetMessages(ctx, q, ids); err != nil || len(got) != 0 {
				t.Errorf("GetMessages of the deleted queue = %d messages, %v; want none", len(got), err)
			}
		})
	}
}

// TestDeletePrefixChoosesPath checks which deletion deletePrefix writes:
// point deletes up to the limit, one range deletion beyond it.
func TestDeletePrefixChoosesPath(t *testing.T) {
	const limit = 4
	for n := 0; n <= limit+2; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			db := openDB(t, nil, Options{})
			prefix := []byte("zprefix/")
			for i := range n {
				if err := db.pdb.Set(fmt.Appendf(append([]byte(nil), prefix...), "%03d", i), nil, nil); err != nil {
					t.Fatal(err)
				}
			}
			outside := []byte("zprefix0")
			if err := db.pdb.Set(outside, nil, nil); err != nil {
				t.Fatal(err)
			}
			b := db.pdb.NewBatch()
			defer b.Close()
			if err := deletePrefix(context.Background(), db, b, prefix, limit); err != nil {
				t.Fatal(err)
			}
			wantPoints, wantRanges := uint32(n), uint32(0)
			if n > limit {
				wantPoints, wantRanges = 0, 1
			}
			if b.Count() != wantPoints+wantRanges {
				t.Errorf("batch of %d operations, want %d point and %d range deletions", b.Count(), wantPoints, wantRanges)
			}
			if err := b.Commit(nil); err != nil {
				t.Fatal(err)
			}
			if got := prefixKeyCount(t, db, prefix); got != 0 {
				t.Errorf("%d keys left under the prefix", got)
			}
			if got := prefixKeyCount(t, db, outside); got != 1 {
				t.Errorf("the key after the prefix is gone")
			}
		})
	}
}
