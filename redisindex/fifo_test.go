package redisindex

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

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

// TestOlderLayoutIsForgotten: a queue marked built by the layout that kept
// FIFO groups as lists in add order (b = "1", P{Q}:g:GROUP) is forgotten
// when first seen, so that its rebuild puts every message in the current
// layout instead of skipping the ones it already tracks (which would leave
// them stranded in the old lists).
func TestOlderLayoutIsForgotten(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := fifoQueue()
	base := keysOf(ix.prefix, q.ID).base
	id := newIDs(1)[0]
	m := "000000000001" + string(id[:])
	_, err := ix.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, base+"m", "b", "1", "s", 1)
		p.HSet(ctx, base+"d", string(id[:]), "000000000001:0:0:a")
		p.ZAdd(ctx, base+"v", redis.Z{Score: float64(at(0).UnixMilli()), Member: m})
		p.ZAdd(ctx, base+"gs", redis.Z{Score: 1, Member: "a"})
		p.RPush(ctx, base+"g:a", m)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Receive(ctx, q, sqs.ReceiveRequest{Now: at(1), Max: 10, Until: at(100)}); !errors.Is(err, sqs.ErrNotBuilt) {
		t.Fatalf("Receive on the older layout: %v, want ErrNotBuilt", err)
	}
	if keys, err := keysMatching(ctx, ix.client, base+"*"); err != nil || len(keys) > 0 {
		t.Fatalf("keys left of the older layout: %q (%v)", keys, err)
	}
	// The rebuild adds the message again, into the current layout.
	mustAdd(t, ix, q, "a", at(0), id)
	if err := ix.MarkBuilt(ctx, q); err != nil {
		t.Fatal(err)
	}
	got, _ := mustReceive(t, ix, q, at(1), 10, at(100))
	equalIDs(t, "after the rebuild", got, []uuid.UUID{id})
}

// TestFIFOGroupKeptInSendOrderAtScale adds a group's 2,000 messages in a
// shuffled order, in batches as a rebuild racing new sends would, and
// receives them all in send order.
func TestFIFOGroupKeptInSendOrderAtScale(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := builtQueue(t, ix, true)
	ids := newIDs(2000)
	shuffled := slices.Clone(ids)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for chunk := range slices.Chunk(shuffled, 37) {
		mustAdd(t, ix, q, "g", at(0), chunk...)
	}
	var got []uuid.UUID
	for now := 1; len(got) < len(ids) && now < 1000; now++ {
		ids, _ := mustReceive(t, ix, q, at(now), 10, at(1_000_000))
		if err := ix.Remove(ctx, q, ids); err != nil {
			t.Fatal(err)
		}
		got = append(got, ids...)
	}
	equalIDs(t, "received", got, ids)
}
