package sqsmem

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// t0 is the base of the explicit times the tests pass to the Index.
var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

// fixture is a built queue in a fresh Index, with named messages.
type fixture struct {
	t     *testing.T
	x     *Index
	q     sqs.IndexQueue
	ids   map[string]uuid.UUID
	names map[uuid.UUID]string
}

func newFixture(t *testing.T, fifo bool, opts IndexOptions) *fixture {
	t.Helper()
	f := &fixture{t: t, x: NewIndex(opts), q: sqs.IndexQueue{ID: uuid.New(), FIFO: fifo},
		ids: map[string]uuid.UUID{}, names: map[uuid.UUID]string{}}
	if err := f.x.MarkBuilt(t.Context(), f.q); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) id(name string) uuid.UUID {
	id, ok := f.ids[name]
	if !ok {
		id = uuid.Must(sqs.NewMessageID()) // version 1, in order: as Herald makes message IDs
		f.ids[name], f.names[id] = id, name
	}
	return id
}

// add adds messages named name visible at sec, in group group.
func (f *fixture) add(group string, sec float64, names ...string) {
	f.t.Helper()
	var es []sqs.Entry
	for _, n := range names {
		es = append(es, sqs.Entry{ID: f.id(n), Group: group, VisibleAt: at(sec)})
	}
	if err := f.x.Add(f.t.Context(), f.q, es); err != nil {
		f.t.Fatal(err)
	}
}

// receive receives up to max at now, invisible for timeout seconds, and
// returns the names received.
func (f *fixture) receive(now float64, max int, timeout float64) ([]string, sqs.ReceiveResult) {
	f.t.Helper()
	res, err := f.x.Receive(f.t.Context(), f.q, sqs.ReceiveRequest{Now: at(now), Max: max, Until: at(now + timeout)})
	if err != nil {
		f.t.Fatalf("Receive: %v", err)
	}
	names := make([]string, len(res.Claims))
	for i, c := range res.Claims {
		names[i] = f.names[c.ID]
	}
	return names, res
}

func (f *fixture) remove(names ...string) {
	f.t.Helper()
	ids := make([]uuid.UUID, len(names))
	for i, n := range names {
		ids[i] = f.id(n)
	}
	if err := f.x.Remove(f.t.Context(), f.q, ids); err != nil {
		f.t.Fatal(err)
	}
}

// step is one action of a scripted index test.
type step struct {
	add     []string // messages to add (in group, visible at addAt)
	group   string
	addAt   float64
	remove  []string
	recvAt  float64 // receive at this time when want is set
	max     int
	timeout float64
	want    []string // names received, in order; nil: no receive
	counts  *sqs.Counts
}

func runSteps(t *testing.T, fifo bool, steps []step) {
	t.Helper()
	f := newFixture(t, fifo, IndexOptions{})
	for i, s := range steps {
		if len(s.add) > 0 {
			f.add(s.group, s.addAt, s.add...)
		}
		if len(s.remove) > 0 {
			f.remove(s.remove...)
		}
		if s.want != nil {
			got, _ := f.receive(s.recvAt, max(s.max, 1), s.timeout)
			if !slices.Equal(got, s.want) && !(len(got) == 0 && len(s.want) == 0) {
				t.Errorf("step %d: receive at %vs = %v, want %v", i, s.recvAt, got, s.want)
			}
		}
		if s.counts != nil {
			c, err := f.x.Counts(t.Context(), f.q, at(s.recvAt))
			if err != nil {
				t.Fatal(err)
			}
			if c != *s.counts {
				t.Errorf("step %d: counts at %vs = %+v, want %+v", i, s.recvAt, c, *s.counts)
			}
		}
	}
}

var none = []string{}

func TestStandardOrderAndVisibility(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"OldestVisibleFirstThenAddOrder", []step{
			{add: []string{"b1", "b2"}, addAt: 2},
			{add: []string{"a"}, addAt: 1},
			{recvAt: 5, max: 10, timeout: 30, want: []string{"a", "b1", "b2"}},
		}},
		{"DelayedNotBeforeItsTime", []step{
			{add: []string{"later"}, addAt: 10},
			{recvAt: 9, max: 10, timeout: 30, want: none, counts: &sqs.Counts{Delayed: 1}},
			{recvAt: 10, max: 10, timeout: 30, want: []string{"later"}},
		}},
		{"InvisibleUntilTimeoutThenBack", []step{
			{add: []string{"m"}, addAt: 0},
			{recvAt: 1, timeout: 30, want: []string{"m"}},
			{recvAt: 30.9, timeout: 30, want: none, counts: &sqs.Counts{InFlight: 1}},
			{recvAt: 31, counts: &sqs.Counts{Visible: 1}},
			{recvAt: 31, timeout: 30, want: []string{"m"}},
		}},
		{"MaxBoundsTheBatch", []step{
			{add: []string{"1", "2", "3"}, addAt: 0},
			{recvAt: 1, max: 2, timeout: 30, want: []string{"1", "2"}},
			{recvAt: 1, max: 2, timeout: 30, want: []string{"3"}},
		}},
		{"RemovedNeverHandedOut", []step{
			{add: []string{"1", "2"}, addAt: 0},
			{remove: []string{"1", "unknown"}},
			{recvAt: 1, max: 10, timeout: 30, want: []string{"2"}},
		}},
		{"EarlierNowAfterLaterOne", []step{
			// Callers' clocks differ: a receive at an earlier now must not
			// hand out what becomes visible only after it.
			{add: []string{"early"}, addAt: 1},
			{add: []string{"late"}, addAt: 5},
			{recvAt: 6, max: 1, timeout: 30, want: []string{"early"}},
			{recvAt: 4, max: 10, timeout: 30, want: none, counts: &sqs.Counts{InFlight: 1, Delayed: 1}},
			{recvAt: 6, max: 10, timeout: 30, want: []string{"late"}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runSteps(t, false, tc.steps) })
	}
}

func TestFIFOGroups(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"GroupsInOrderOfOldestMessage", []step{
			{add: []string{"b1", "b2"}, group: "b", addAt: 0},
			{add: []string{"a1", "a2"}, group: "a", addAt: 0},
			{add: []string{"b3"}, group: "b", addAt: 0},
			{recvAt: 1, max: 10, timeout: 30, want: []string{"b1", "b2", "b3", "a1", "a2"}},
		}},
		{"GroupBlockedWhileInFlight", []step{
			{add: []string{"a1", "a2", "a3"}, group: "a", addAt: 0},
			{add: []string{"b1"}, group: "b", addAt: 0},
			{recvAt: 1, max: 2, timeout: 30, want: []string{"a1", "a2"}},
			{recvAt: 2, max: 10, timeout: 30, want: []string{"b1"}},
			{recvAt: 3, max: 10, timeout: 30, want: none,
				counts: &sqs.Counts{Visible: 1, InFlight: 3}},
		}},
		{"UnblockedByDeletingItsInFlight", []step{
			{add: []string{"a1", "a2", "a3"}, group: "a", addAt: 0},
			{recvAt: 1, max: 2, timeout: 30, want: []string{"a1", "a2"}},
			{remove: []string{"a1"}},
			{recvAt: 2, max: 10, timeout: 30, want: none},
			{remove: []string{"a2"}},
			{recvAt: 2, max: 10, timeout: 30, want: []string{"a3"}},
		}},
		{"UnblockedAfterTimeoutFromItsHead", []step{
			{add: []string{"a1", "a2", "a3"}, group: "a", addAt: 0},
			{recvAt: 1, max: 2, timeout: 30, want: []string{"a1", "a2"}},
			{recvAt: 30.5, max: 10, timeout: 30, want: none},
			{recvAt: 31, max: 10, timeout: 30, want: []string{"a1", "a2", "a3"}},
		}},
		{"StopsAtADelayedMessage", []step{
			{add: []string{"a1"}, group: "a", addAt: 0},
			{add: []string{"a2"}, group: "a", addAt: 10},
			{add: []string{"a3"}, group: "a", addAt: 0},
			{recvAt: 1, max: 10, timeout: 1, want: []string{"a1"}},
			{remove: []string{"a1"}},
			{recvAt: 5, max: 10, timeout: 1, want: none},
			{recvAt: 10, max: 10, timeout: 1, want: []string{"a2", "a3"}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runSteps(t, true, tc.steps) })
	}
}

func TestReceiveCountsAndNextVisibleAt(t *testing.T) {
	for _, fifo := range []bool{false, true} {
		t.Run(fmt.Sprintf("fifo=%v", fifo), func(t *testing.T) {
			f := newFixture(t, fifo, IndexOptions{})
			f.add("g", 0, "m")
			f.add("h", 50, "delayed")
			_, res := f.receive(1, 10, 30)
			if len(res.Claims) != 1 || res.Claims[0].ReceiveCount != 1 || !res.Claims[0].FirstReceiveAt.Equal(at(1)) {
				t.Fatalf("first receive = %+v", res.Claims)
			}
			if !res.NextVisibleAt.Equal(at(50)) {
				t.Errorf("NextVisibleAt = %v, want the delayed message's %v", res.NextVisibleAt, at(50))
			}
			_, res = f.receive(31, 1, 30)
			if len(res.Claims) != 1 || res.Claims[0].ReceiveCount != 2 || !res.Claims[0].FirstReceiveAt.Equal(at(1)) {
				t.Fatalf("second receive = %+v", res.Claims)
			}
			if fifo && res.Claims[0].Group != "g" {
				t.Errorf("Group = %q, want g", res.Claims[0].Group)
			}
			_, res = f.receive(32, 10, 30)
			if len(res.Claims) != 0 || !res.NextVisibleAt.Equal(at(50)) {
				t.Errorf("third receive = %+v, want nothing, next at 50s", res)
			}
		})
	}
}

func TestSetVisibleAt(t *testing.T) {
	f := newFixture(t, true, IndexOptions{})
	f.add("a", 0, "a1", "a2")
	ctx := t.Context()
	if err := f.x.SetVisibleAt(ctx, f.q, f.id("a1"), 0, at(1), at(5)); !errors.Is(err, sqs.ErrNotInFlight) {
		t.Errorf("SetVisibleAt of a message never received: %v, want ErrNotInFlight", err)
	}
	f.receive(1, 1, 30)
	if err := f.x.SetVisibleAt(ctx, f.q, f.id("a1"), 0, at(2), at(3)); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.receive(2.5, 10, 30); len(got) != 0 {
		t.Errorf("received %v before the new visible time", got)
	}
	if got, _ := f.receive(3, 10, 30); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Errorf("received %v after the new visible time, want [a1 a2]", got)
	}
	if err := f.x.SetVisibleAt(ctx, f.q, f.id("a1"), 0, at(40), at(50)); !errors.Is(err, sqs.ErrNotInFlight) {
		t.Errorf("SetVisibleAt after the timeout ended: %v, want ErrNotInFlight", err)
	}
	unknown := sqs.IndexQueue{ID: uuid.New()}
	if err := f.x.SetVisibleAt(ctx, unknown, f.id("a1"), 0, at(4), at(50)); !errors.Is(err, sqs.ErrNotInFlight) {
		t.Errorf("SetVisibleAt on an unknown queue: %v, want ErrNotInFlight", err)
	}
}

func TestNotBuiltAndDrop(t *testing.T) {
	x := NewIndex(IndexOptions{})
	ctx := t.Context()
	q := sqs.IndexQueue{ID: uuid.New()}
	if _, err := x.Receive(ctx, q, sqs.ReceiveRequest{Now: at(0), Max: 1, Until: at(1)}); !errors.Is(err, sqs.ErrNotBuilt) {
		t.Errorf("Receive of an unknown queue: %v, want ErrNotBuilt", err)
	}
	if x.Len() != 0 {
		t.Errorf("Receive of an unknown queue created state: Len = %d", x.Len())
	}
	x.Add(ctx, q, []sqs.Entry{{ID: uuid.New(), VisibleAt: at(0)}})
	if _, err := x.Counts(ctx, q, at(0)); !errors.Is(err, sqs.ErrNotBuilt) {
		t.Errorf("Counts before MarkBuilt: %v, want ErrNotBuilt", err)
	}
	x.MarkBuilt(ctx, q)
	if c, err := x.Counts(ctx, q, at(0)); err != nil || c.Visible != 1 {
		t.Errorf("Counts after MarkBuilt = %+v, %v; want 1 visible", c, err)
	}
	x.Drop(ctx, q)
	if _, err := x.Receive(ctx, q, sqs.ReceiveRequest{Now: at(0), Max: 1, Until: at(1)}); !errors.Is(err, sqs.ErrNotBuilt) {
		t.Errorf("Receive after Drop: %v, want ErrNotBuilt", err)
	}
	x.MarkBuilt(ctx, q)
	if c, _ := x.Counts(ctx, q, at(0)); c != (sqs.Counts{}) {
		t.Errorf("Counts after Drop and MarkBuilt = %+v, want none", c)
	}
}

func TestAddLeavesTrackedEntries(t *testing.T) {
	f := newFixture(t, false, IndexOptions{})
	f.add("", 0, "m")
	f.receive(1, 1, 30)
	// A rebuild re-adds the message as the store last saw it.
	f.x.Add(t.Context(), f.q, []sqs.Entry{{ID: f.id("m"), VisibleAt: at(0)}})
	if got, _ := f.receive(2, 10, 30); len(got) != 0 {
		t.Errorf("re-added in-flight message was received again: %v", got)
	}
}

func TestRebuiltInFlightEntryBlocksItsGroup(t *testing.T) {
	f := newFixture(t, true, IndexOptions{})
	f.x.Add(t.Context(), f.q, []sqs.Entry{
		{ID: f.id("a1"), Group: "a", VisibleAt: at(30), ReceiveCount: 1, FirstReceiveAt: at(0), InFlight: true},
		{ID: f.id("a2"), Group: "a", VisibleAt: at(0)},
	})
	if got, _ := f.receive(1, 10, 30); len(got) != 0 {
		t.Errorf("received %v from a group with a message in flight", got)
	}
	got, res := f.receive(30, 10, 30)
	if !slices.Equal(got, []string{"a1", "a2"}) || res.Claims[0].ReceiveCount != 2 {
		t.Errorf("after the timeout received %v (%+v), want [a1 a2] with a1 received twice", got, res.Claims)
	}
}

func TestLockRebuild(t *testing.T) {
	var clock time.Time = t0
	x := NewIndex(IndexOptions{Clock: func() time.Time { return clock }})
	ctx := t.Context()
	q := sqs.IndexQueue{ID: uuid.New()}
	unlock, ok, err := x.LockRebuild(ctx, q, time.Second)
	if err != nil || !ok {
		t.Fatalf("first LockRebuild: ok=%v err=%v", ok, err)
	}
	if _, ok, _ := x.LockRebuild(ctx, q, time.Second); ok {
		t.Error("second LockRebuild while held: ok")
	}
	clock = clock.Add(time.Second)
	unlock2, ok, _ := x.LockRebuild(ctx, q, time.Second)
	if !ok {
		t.Fatal("LockRebuild after the lease expired: not ok")
	}
	unlock.Release() // the expired holder must not release the new lease
	if _, ok, _ := x.LockRebuild(ctx, q, time.Second); ok {
		t.Error("the old holder's unlock released the new lease")
	}
	unlock2.Release()
	if _, ok, _ := x.LockRebuild(ctx, q, time.Second); !ok {
		t.Error("LockRebuild after unlock: not ok")
	}
}

func TestDeduplicate(t *testing.T) {
	clock := t0
	x := NewIndex(IndexOptions{Clock: func() time.Time { return clock }})
	ctx := t.Context()
	q, other := sqs.IndexQueue{ID: uuid.New(), FIFO: true}, sqs.IndexQueue{ID: uuid.New(), FIFO: true}
	first, second, third := uuid.New(), uuid.New(), uuid.New()
	steps := []struct {
		advance time.Duration
		q       sqs.IndexQueue
		key     string
		id      uuid.UUID
		want    uuid.UUID // uuid.Nil: not a duplicate
	}{
		{0, q, "k", first, uuid.Nil},
		{time.Minute, q, "k", second, first},
		{0, other, "k", second, uuid.Nil},                      // keys are per queue
		{0, q, "k2", second, uuid.Nil},                         // and per key
		{3*time.Minute + 59*time.Second, q, "k", third, first}, // window counts from the first
		{time.Second, q, "k", third, uuid.Nil},                 // 5 minutes after the first
		{time.Minute, q, "k", first, third},
	}
	for i, s := range steps {
		clock = clock.Add(s.advance)
		got, dup, err := x.Deduplicate(ctx, s.q, s.key, s.id, 5*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if dup != (s.want != uuid.Nil) || (dup && got != s.want) {
			t.Errorf("step %d: Deduplicate = %v, %v; want %v", i, got, dup, s.want)
		}
	}
	x.Drop(ctx, q)
	if _, dup, _ := x.Deduplicate(ctx, q, "k", first, 5*time.Minute); !dup {
		t.Error("Drop forgot the deduplication records")
	}
}

func TestEvictionBeyondMaxQueues(t *testing.T) {
	x := NewIndex(IndexOptions{MaxQueues: 2})
	ctx := t.Context()
	qs := []sqs.IndexQueue{{ID: uuid.New()}, {ID: uuid.New()}, {ID: uuid.New()}}
	for _, q := range qs[:2] {
		x.Add(ctx, q, []sqs.Entry{{ID: uuid.New()}})
		x.MarkBuilt(ctx, q)
	}
	x.Counts(ctx, qs[0], at(0)) // qs[1] is now the least recently used
	x.MarkBuilt(ctx, qs[2])
	if x.Len() != 2 {
		t.Errorf("Len = %d, want 2", x.Len())
	}
	for i, want := range []error{nil, sqs.ErrNotBuilt, nil} {
		if _, err := x.Counts(ctx, qs[i], at(0)); !errors.Is(err, want) {
			t.Errorf("queue %d: Counts error %v, want %v", i, err, want)
		}
	}
}

func TestEvictionSparesLeasedQueues(t *testing.T) {
	x := NewIndex(IndexOptions{MaxQueues: 1})
	ctx := t.Context()
	rebuilding := sqs.IndexQueue{ID: uuid.New()}
	unlock, ok, _ := x.LockRebuild(ctx, rebuilding, time.Minute)
	if !ok {
		t.Fatal("LockRebuild: not ok")
	}
	x.Add(ctx, rebuilding, []sqs.Entry{{ID: uuid.New()}})
	x.MarkBuilt(ctx, sqs.IndexQueue{ID: uuid.New()})
	x.MarkBuilt(ctx, rebuilding)
	unlock.Release()
	if c, err := x.Counts(ctx, rebuilding, at(0)); err != nil || c.Visible != 1 {
		t.Errorf("queue rebuilt while others came and went: Counts = %+v, %v; want 1 visible", c, err)
	}
}

func TestIdleEmptyQueuesAreEvicted(t *testing.T) {
	clock := t0
	// One shard (a small bound), so that the new queue lands beside the idle.
	x := NewIndex(IndexOptions{MaxQueues: 100, IdleAfter: time.Minute, Clock: func() time.Time { return clock }})
	ctx := t.Context()
	empty, busy := sqs.IndexQueue{ID: uuid.New()}, sqs.IndexQueue{ID: uuid.New()}
	x.MarkBuilt(ctx, empty)
	x.Add(ctx, busy, []sqs.Entry{{ID: uuid.New()}})
	x.MarkBuilt(ctx, busy)
	clock = clock.Add(2 * time.Minute)
	x.MarkBuilt(ctx, sqs.IndexQueue{ID: uuid.New()}) // a new queue makes room
	if _, err := x.Counts(ctx, empty, at(0)); !errors.Is(err, sqs.ErrNotBuilt) {
		t.Errorf("idle empty queue: Counts error %v, want ErrNotBuilt", err)
	}
	if _, err := x.Counts(ctx, busy, at(0)); err != nil {
		t.Errorf("idle queue with messages was evicted: %v", err)
	}
}

func TestNotifier(t *testing.T) {
	n := NewNotifier()
	id := uuid.New()
	ch1, cancel1 := n.Wait(id)
	ch2, cancel2 := n.Wait(id)
	n.Notify(context.Background(), uuid.New())
	select {
	case <-ch1:
		t.Fatal("woken by another queue's Notify")
	default:
	}
	n.Notify(context.Background(), id)
	for _, ch := range []<-chan struct{}{ch1, ch2} {
		select {
		case <-ch:
		case <-time.After(time.Second):
			t.Fatal("not woken by Notify")
		}
	}
	cancel1()
	cancel2()
	ch3, cancel3 := n.Wait(id)
	select {
	case <-ch3:
		t.Fatal("a wait after the Notify was already woken")
	default:
	}
	cancel3()
	cancel3()
	if w := n.waitingQueues(); w != 0 {
		t.Errorf("after every cancel %d queues still have waiters", w)
	}
}
