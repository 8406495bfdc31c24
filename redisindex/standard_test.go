package redisindex

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

func TestNotBuiltUntilMarked(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := standardQueue()
	ids := newIDs(2)
	mustAdd(t, ix, q, "", at(0), ids...)

	if _, err := ix.Receive(ctx, q, sqs.ReceiveRequest{Now: at(1), Max: 10, Until: at(100)}); !errors.Is(err, sqs.ErrNotBuilt) {
		t.Fatalf("Receive before MarkBuilt: err = %v, want ErrNotBuilt", err)
	}
	if _, err := ix.Counts(ctx, q, at(1)); !errors.Is(err, sqs.ErrNotBuilt) {
		t.Fatalf("Counts before MarkBuilt: err = %v, want ErrNotBuilt", err)
	}
	if err := ix.MarkBuilt(ctx, q); err != nil {
		t.Fatal(err)
	}
	if c := mustCounts(t, ix, q, at(1)); c != (sqs.Counts{Visible: 2}) {
		t.Fatalf("Counts after MarkBuilt = %+v, want 2 visible", c)
	}
	got, _ := mustReceive(t, ix, q, at(1), 10, at(100))
	equalIDs(t, "Receive after MarkBuilt", got, ids)
}

func TestStandardOrderByVisibleAtThenAddOrder(t *testing.T) {
	ix := newIndex(t, Options{})
	q := builtQueue(t, ix, false)
	ids := newIDs(5)
	// Added out of time order; ids[1] and ids[2] share a time.
	mustAdd(t, ix, q, "", at(30), ids[3])
	mustAdd(t, ix, q, "", at(10), ids[1], ids[2])
	mustAdd(t, ix, q, "", at(5), ids[0])
	mustAdd(t, ix, q, "", at(500), ids[4]) // delayed

	got, res := mustReceive(t, ix, q, at(100), 10, at(1000))
	equalIDs(t, "first receive", got, ids[:4])
	if !res.NextVisibleAt.Equal(at(500)) {
		t.Fatalf("NextVisibleAt = %v, want %v (the delayed message)", res.NextVisibleAt, at(500))
	}
	got, res = mustReceive(t, ix, q, at(600), 10, at(2000))
	equalIDs(t, "after the delay", got, ids[4:])
	if !res.NextVisibleAt.Equal(at(1000)) {
		t.Fatalf("NextVisibleAt = %v, want %v (end of the first timeouts)", res.NextVisibleAt, at(1000))
	}
}

func TestStandardMaxAndEmpty(t *testing.T) {
	ix := newIndex(t, Options{})
	q := builtQueue(t, ix, false)
	got, res := mustReceive(t, ix, q, at(0), 10, at(100))
	if len(got) != 0 || !res.NextVisibleAt.IsZero() {
		t.Fatalf("empty queue: got %v, next %v", got, res.NextVisibleAt)
	}
	ids := newIDs(7)
	mustAdd(t, ix, q, "", at(0), ids...)
	got, _ = mustReceive(t, ix, q, at(1), 3, at(100))
	equalIDs(t, "max 3", got, ids[:3])
	got, _ = mustReceive(t, ix, q, at(1), 10, at(100))
	equalIDs(t, "the rest", got, ids[3:])
}

func TestReceiveCountsAndVisibilityTimeout(t *testing.T) {
	ix := newIndex(t, Options{})
	q := builtQueue(t, ix, false)
	id := uuid.New()
	mustAdd(t, ix, q, "", at(0), id)

	for i, tc := range []struct {
		now, until int
	}{{10, 100}, {100, 200}, {250, 300}} {
		_, res := mustReceive(t, ix, q, at(tc.now), 1, at(tc.until))
		if len(res.Claims) != 1 {
			t.Fatalf("receive %d at %d: %d claims, want 1", i+1, tc.now, len(res.Claims))
		}
		c := res.Claims[0]
		if c.ID != id || c.ReceiveCount != i+1 || !c.FirstReceiveAt.Equal(at(10)) || c.Group != "" {
			t.Fatalf("receive %d: claim %+v, want count %d, first receive %v", i+1, c, i+1, at(10))
		}
		// Invisible until the timeout ends, visible from then on.
		if got, _ := mustReceive(t, ix, q, at(tc.until-1), 1, at(tc.until+1000)); len(got) != 0 {
			t.Fatalf("receive %d: handed out again before its timeout ended", i+1)
		}
	}
}

func TestCounts(t *testing.T) {
	ix := newIndex(t, Options{})
	q := builtQueue(t, ix, false)
	ids := newIDs(6)
	mustAdd(t, ix, q, "", at(0), ids[:3]...)
	mustAdd(t, ix, q, "", at(1000), ids[3:5]...)
	mustAdd(t, ix, q, "", at(2000), ids[5])
	mustReceive(t, ix, q, at(10), 2, at(500))

	for _, tc := range []struct {
		now  int
		want sqs.Counts
	}{
		{10, sqs.Counts{Visible: 1, InFlight: 2, Delayed: 3}},
		{500, sqs.Counts{Visible: 3, InFlight: 0, Delayed: 3}}, // timeouts over
		{1000, sqs.Counts{Visible: 5, InFlight: 0, Delayed: 1}},
		{3000, sqs.Counts{Visible: 6}},
	} {
		if got := mustCounts(t, ix, q, at(tc.now)); got != tc.want {
			t.Errorf("Counts at %d = %+v, want %+v", tc.now, got, tc.want)
		}
	}
}

func TestAddNeverOverridesTrackedEntry(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := builtQueue(t, ix, false)
	id := uuid.New()
	mustAdd(t, ix, q, "", at(0), id)
	mustReceive(t, ix, q, at(10), 1, at(1000))

	// A rebuild racing the receive re-adds the message as stored before it.
	if err := ix.Add(ctx, q, []sqs.Entry{{ID: id, VisibleAt: at(0)}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := mustReceive(t, ix, q, at(20), 1, at(1000)); len(got) != 0 {
		t.Fatal("re-adding an in-flight message made it receivable")
	}
	_, res := mustReceive(t, ix, q, at(1000), 1, at(2000))
	if len(res.Claims) != 1 || res.Claims[0].ReceiveCount != 2 {
		t.Fatalf("after the timeout: claims %+v, want receive count 2", res.Claims)
	}
}

func TestAddRebuiltState(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := standardQueue()
	inFlight, visible := uuid.New(), uuid.New()
	err := ix.Add(ctx, q, []sqs.Entry{
		{ID: inFlight, VisibleAt: at(500), ReceiveCount: 3, FirstReceiveAt: at(-100), InFlight: true},
		{ID: visible, VisibleAt: at(0), ReceiveCount: 1, FirstReceiveAt: at(-50)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.MarkBuilt(ctx, q); err != nil {
		t.Fatal(err)
	}
	if got := mustCounts(t, ix, q, at(10)); got != (sqs.Counts{Visible: 1, InFlight: 1}) {
		t.Fatalf("Counts = %+v, want 1 visible, 1 in flight", got)
	}
	if err := ix.SetVisibleAt(ctx, q, inFlight, 0, at(10), at(600)); err != nil {
		t.Fatalf("SetVisibleAt of a rebuilt in-flight entry: %v", err)
	}
	_, res := mustReceive(t, ix, q, at(600), 10, at(700))
	want := []sqs.Claim{
		{ID: visible, ReceiveCount: 2, FirstReceiveAt: at(-50)},
		{ID: inFlight, ReceiveCount: 4, FirstReceiveAt: at(-100)},
	}
	if len(res.Claims) != 2 {
		t.Fatalf("claims %+v, want %+v", res.Claims, want)
	}
	for i := range want {
		c := res.Claims[i]
		if c.ID != want[i].ID || c.ReceiveCount != want[i].ReceiveCount || !c.FirstReceiveAt.Equal(want[i].FirstReceiveAt) {
			t.Errorf("claim %d = %+v, want %+v", i, c, want[i])
		}
	}
}

func TestRemove(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := builtQueue(t, ix, false)
	ids := newIDs(4)
	mustAdd(t, ix, q, "", at(0), ids...)
	mustReceive(t, ix, q, at(1), 1, at(100)) // ids[0] in flight

	if err := ix.Remove(ctx, q, []uuid.UUID{ids[0], ids[2], uuid.New()}); err != nil {
		t.Fatal(err)
	}
	if got := mustCounts(t, ix, q, at(1)); got != (sqs.Counts{Visible: 2}) {
		t.Fatalf("Counts after Remove = %+v, want 2 visible", got)
	}
	got, _ := mustReceive(t, ix, q, at(200), 10, at(300))
	equalIDs(t, "after Remove", got, []uuid.UUID{ids[1], ids[3]})
	if err := ix.Remove(ctx, standardQueue(), ids); err != nil {
		t.Fatalf("Remove on an unknown queue: %v", err)
	}
}

func TestSetVisibleAt(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := builtQueue(t, ix, false)
	ids := newIDs(3)
	mustAdd(t, ix, q, "", at(0), ids...)
	mustReceive(t, ix, q, at(10), 2, at(100)) // ids[0], ids[1]

	// Extend ids[0], end ids[1]'s timeout now.
	if err := ix.SetVisibleAt(ctx, q, ids[0], 0, at(20), at(5000)); err != nil {
		t.Fatal(err)
	}
	if err := ix.SetVisibleAt(ctx, q, ids[1], 0, at(20), at(20)); err != nil {
		t.Fatal(err)
	}
	got, _ := mustReceive(t, ix, q, at(200), 10, at(300))
	equalIDs(t, "after SetVisibleAt", got, []uuid.UUID{ids[1], ids[2]}) // back from a receive first, as on AWS
	if got := mustCounts(t, ix, q, at(4000)); got != (sqs.Counts{Visible: 2, InFlight: 1}) {
		t.Fatalf("Counts = %+v, want ids[0] still in flight", got)
	}

	for _, tc := range []struct {
		name string
		q    sqs.IndexQueue
		id   uuid.UUID
		now  int
	}{
		{"timeout over", q, ids[1], 300},
		{"unknown message", q, uuid.New(), 20},
		{"unknown queue", standardQueue(), ids[0], 20},
	} {
		if err := ix.SetVisibleAt(ctx, tc.q, tc.id, 0, at(tc.now), at(9000)); !errors.Is(err, sqs.ErrNotInFlight) {
			t.Errorf("%s: err = %v, want ErrNotInFlight", tc.name, err)
		}
	}
	notReceived := uuid.New()
	mustAdd(t, ix, q, "", at(0), notReceived)
	if err := ix.SetVisibleAt(ctx, q, notReceived, 0, at(20), at(9000)); !errors.Is(err, sqs.ErrNotInFlight) {
		t.Errorf("never received: err = %v, want ErrNotInFlight", err)
	}
	if err := ix.Remove(ctx, q, ids[:1]); err != nil {
		t.Fatal(err)
	}
	if err := ix.SetVisibleAt(ctx, q, ids[0], 0, at(20), at(9000)); !errors.Is(err, sqs.ErrNotInFlight) {
		t.Errorf("removed: err = %v, want ErrNotInFlight", err)
	}
}

func TestDropForgetsQueue(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	for _, fifo := range []bool{false, true} {
		q := builtQueue(t, ix, fifo)
		mustAdd(t, ix, q, "g", at(0), newIDs(3)...)
		mustReceive(t, ix, q, at(1), 1, at(100))
		if err := ix.Drop(ctx, q); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Receive(ctx, q, sqs.ReceiveRequest{Now: at(1), Max: 1, Until: at(2)}); !errors.Is(err, sqs.ErrNotBuilt) {
			t.Fatalf("fifo %v: Receive after Drop: err = %v, want ErrNotBuilt", fifo, err)
		}
		if err := ix.MarkBuilt(ctx, q); err != nil {
			t.Fatal(err)
		}
		if got := mustCounts(t, ix, q, at(1)); got != (sqs.Counts{}) {
			t.Fatalf("fifo %v: Counts after Drop and MarkBuilt = %+v, want empty", fifo, got)
		}
		if keys, _ := keysMatching(ctx, ix.client, ix.prefix+"{"+q.ID.String()+"}*"); len(keys) != 1 {
			t.Fatalf("fifo %v: keys left after Drop and MarkBuilt: %v, want the marker only", fifo, keys)
		}
	}
}

func TestFlushedRedisIsNotBuilt(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := builtQueue(t, ix, false)
	mustAdd(t, ix, q, "", at(0), newIDs(2)...)
	deletePrefix(t, ix.client, ix.prefix) // what FLUSHALL does to this queue

	if _, err := ix.Receive(ctx, q, sqs.ReceiveRequest{Now: at(1), Max: 1, Until: at(2)}); !errors.Is(err, sqs.ErrNotBuilt) {
		t.Fatalf("Receive after a flush: err = %v, want ErrNotBuilt", err)
	}
	if _, err := ix.Counts(ctx, q, at(1)); !errors.Is(err, sqs.ErrNotBuilt) {
		t.Fatalf("Counts after a flush: err = %v, want ErrNotBuilt", err)
	}
}

func TestIdleEmptyQueueExpires(t *testing.T) {
	ix := newIndex(t, Options{IdleExpiry: 300 * time.Millisecond})
	ctx := context.Background()
	empty := builtQueue(t, ix, false)
	full := builtQueue(t, ix, false)
	mustAdd(t, ix, full, "", at(0), uuid.New())
	drained := builtQueue(t, ix, false)
	id := uuid.New()
	mustAdd(t, ix, drained, "", at(0), id)
	if err := ix.Remove(ctx, drained, []uuid.UUID{id}); err != nil {
		t.Fatal(err)
	}

	time.Sleep(500 * time.Millisecond)
	for _, tc := range []struct {
		name  string
		q     sqs.IndexQueue
		built bool
	}{{"empty", empty, false}, {"drained", drained, false}, {"with a message", full, true}} {
		_, err := ix.Counts(ctx, tc.q, at(1))
		if tc.built && err != nil || !tc.built && !errors.Is(err, sqs.ErrNotBuilt) {
			t.Errorf("%s queue after its idle expiry: err = %v, want built %v", tc.name, err, tc.built)
		}
		keys, _ := keysMatching(ctx, ix.client, ix.prefix+"{"+tc.q.ID.String()+"}*")
		if n := len(keys); !tc.built && n != 0 {
			t.Errorf("%s queue: %d keys left", tc.name, n)
		}
	}
}

func TestKeysShareHashTag(t *testing.T) {
	ix := newIndex(t, Options{})
	ctx := context.Background()
	q := builtQueue(t, ix, true)
	mustAdd(t, ix, q, "g1", at(0), newIDs(2)...)
	mustAdd(t, ix, q, "g2", at(0), newIDs(2)...)
	mustReceive(t, ix, q, at(1), 1, at(100))
	if _, _, err := ix.Deduplicate(ctx, q, "k", uuid.New(), time.Minute); err != nil {
		t.Fatal(err)
	}
	unlock, _, err := ix.LockRebuild(ctx, q, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock.Release()
	keys, _ := keysMatching(ctx, ix.client, ix.prefix+"*")
	if len(keys) < 8 {
		t.Fatalf("keys %v: want the queue's hashes, sets, lists, lock and deduplication record", keys)
	}
	for _, k := range keys {
		if tag := hashTag(k); tag != q.ID.String() {
			t.Errorf("key %q has hash tag %q, want the queue id %s", k, tag, q.ID)
		}
	}
}

// hashTag is what Redis Cluster hashes of key: the text between the first
// "{" and the next "}", when not empty.
func hashTag(key string) string {
	open := strings.IndexByte(key, '{')
	if open < 0 {
		return key
	}
	end := strings.IndexByte(key[open+1:], '}')
	if end <= 0 {
		return key
	}
	return key[open+1 : open+1+end]
}

// TestConcurrentReceiversClaimEachMessageOnce is the atomicity check: many
// receivers on two clients never get the same message twice.
func TestConcurrentReceiversClaimEachMessageOnce(t *testing.T) {
	ix := newIndex(t, Options{})
	other := testIndex{Index: New(newClient(t), Options{Prefix: ix.prefix}), prefix: ix.prefix}
	for _, fifo := range []bool{false, true} {
		q := builtQueue(t, ix, fifo)
		const n = 300
		ids := newIDs(n)
		for i := 0; i < n; i += 30 {
			// FIFO: 10 groups, so that receivers contend for groups.
			mustAdd(t, ix, q, string(rune('a'+i/30)), at(0), ids[i:i+30]...)
		}
		var mu sync.Mutex
		var got []uuid.UUID
		var wg sync.WaitGroup
		for r := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				idx := ix
				if r%2 == 1 {
					idx = other
				}
				for {
					res, err := idx.Receive(context.Background(), q, sqs.ReceiveRequest{Now: at(1), Max: 3, Until: at(1000)})
					if err != nil {
						t.Error(err)
						return
					}
					if len(res.Claims) == 0 && !fifo {
						return
					}
					ids := make([]uuid.UUID, len(res.Claims))
					for i, c := range res.Claims {
						ids[i] = c.ID
					}
					if fifo {
						// A group is receivable again once its claims are removed.
						if len(ids) == 0 {
							if c := mustCountsQuiet(idx, q); c.Visible == 0 && c.InFlight == 0 {
								return
							}
							continue
						}
						if err := idx.Remove(context.Background(), q, ids); err != nil {
							t.Error(err)
							return
						}
					}
					mu.Lock()
					got = append(got, ids...)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(got) != n {
			t.Fatalf("fifo %v: %d claims, want %d", fifo, len(got), n)
		}
		sort.Slice(got, func(i, j int) bool { return got[i].String() < got[j].String() })
		for i := 1; i < len(got); i++ {
			if got[i] == got[i-1] {
				t.Fatalf("fifo %v: %v handed out twice", fifo, got[i])
			}
		}
	}
}

func mustCountsQuiet(ix testIndex, q sqs.IndexQueue) sqs.Counts {
	c, _ := ix.Counts(context.Background(), q, at(1))
	return c
}
