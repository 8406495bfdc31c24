package redisindex

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

func TestFIFOGroupOrderAndBlocking(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := builtQueue(t, ix, true)
	a, b := newIDs(3), newIDs(2)
	// Interleaved adds: group a is older than b.
	mustAdd(t, ix, q, "a", at(0), a[0])
	mustAdd(t, ix, q, "b", at(0), b[0])
	mustAdd(t, ix, q, "a", at(0), a[1], a[2])
	mustAdd(t, ix, q, "b", at(0), b[1])

	got, res := mustReceive(t, ix, q, at(1), 2, at(100))
	equalIDs(t, "first receive takes the oldest group's head", got, a[:2])
	for _, c := range res.Claims {
		if c.Group != "a" || c.ReceiveCount != 1 {
			t.Fatalf("claim %+v: want group a, receive count 1", c)
		}
	}
	// Group a is blocked while a[0] and a[1] are in flight: b is next.
	got, _ = mustReceive(t, ix, q, at(2), 10, at(100))
	equalIDs(t, "while a is in flight", got, b)
	got, res = mustReceive(t, ix, q, at(3), 10, at(100))
	equalIDs(t, "both groups in flight", got, nil)
	if !res.NextVisibleAt.Equal(at(100)) {
		t.Fatalf("NextVisibleAt = %v, want %v", res.NextVisibleAt, at(100))
	}

	// Deleting a[0] leaves a[1] in flight: a stays blocked.
	if err := ix.Remove(ctx, q, a[:1]); err != nil {
		t.Fatal(err)
	}
	got, _ = mustReceive(t, ix, q, at(4), 10, at(100))
	equalIDs(t, "a[1] still in flight", got, nil)
	// Deleting a[1] too unblocks a at once.
	if err := ix.Remove(ctx, q, a[1:2]); err != nil {
		t.Fatal(err)
	}
	got, _ = mustReceive(t, ix, q, at(5), 10, at(1000))
	equalIDs(t, "after deleting a's in-flight messages", got, a[2:])

	// b's timeout ends: b is receivable again from its head.
	got, res = mustReceive(t, ix, q, at(100), 10, at(200))
	equalIDs(t, "after b's timeout", got, b)
	if res.Claims[0].ReceiveCount != 2 {
		t.Fatalf("receive count %d, want 2", res.Claims[0].ReceiveCount)
	}
}

func TestFIFOStopsAtInvisibleMessage(t *testing.T) {
	ix := newIndex(t, Options{})
	q := builtQueue(t, ix, true)
	ids := newIDs(3)
	mustAdd(t, ix, q, "g", at(0), ids[0])
	mustAdd(t, ix, q, "g", at(50), ids[1]) // delayed
	mustAdd(t, ix, q, "g", at(0), ids[2])

	got, _ := mustReceive(t, ix, q, at(10), 10, at(20))
	equalIDs(t, "head up to the delayed message", got, ids[:1])
	got, _ = mustReceive(t, ix, q, at(60), 10, at(100))
	equalIDs(t, "after the delay, from the head", got, ids)
}

func TestFIFOGroupsOldestFirstAcrossMax(t *testing.T) {
	ix := newIndex(t, Options{})
	q := builtQueue(t, ix, true)
	groups := []string{"z", "y", "x", "w"}
	var want []uuid.UUID
	for _, g := range groups {
		ids := newIDs(2)
		mustAdd(t, ix, q, g, at(0), ids...)
		want = append(want, ids...)
	}
	got, _ := mustReceive(t, ix, q, at(1), 5, at(100))
	equalIDs(t, "5 of 4 groups", got, want[:5])
	// x's second message went to nobody, but x is blocked (x's head is in flight).
	got, _ = mustReceive(t, ix, q, at(2), 10, at(100))
	equalIDs(t, "the untouched group", got, want[6:])
}

func TestFIFOSetVisibleAtMovesBlock(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := builtQueue(t, ix, true)
	ids := newIDs(2)
	mustAdd(t, ix, q, "g", at(0), ids...)
	mustReceive(t, ix, q, at(1), 1, at(100))

	// Extending the timeout extends the group's block.
	if err := ix.SetVisibleAt(ctx, q, ids[0], 0, at(10), at(500)); err != nil {
		t.Fatal(err)
	}
	got, _ := mustReceive(t, ix, q, at(200), 10, at(600))
	equalIDs(t, "block extended", got, nil)
	// Ending it now makes the group receivable from its head.
	if err := ix.SetVisibleAt(ctx, q, ids[0], 0, at(210), at(210)); err != nil {
		t.Fatal(err)
	}
	got, _ = mustReceive(t, ix, q, at(220), 10, at(600))
	equalIDs(t, "block ended", got, ids)
}

func TestFIFORebuiltInFlightBlocksGroup(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := fifoQueue()
	ids := newIDs(2)
	err := ix.Add(ctx, q, []sqs.Entry{
		{ID: ids[0], Group: "g", VisibleAt: at(100), ReceiveCount: 1, FirstReceiveAt: at(-10), InFlight: true},
		{ID: ids[1], Group: "g", VisibleAt: at(0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.MarkBuilt(ctx, q); err != nil {
		t.Fatal(err)
	}
	got, _ := mustReceive(t, ix, q, at(1), 10, at(50))
	equalIDs(t, "group with a rebuilt in-flight head", got, nil)
	got, _ = mustReceive(t, ix, q, at(100), 10, at(200))
	equalIDs(t, "after its timeout", got, ids)
}
