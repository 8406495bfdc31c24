package sqstest

import (
	"context"
	"errors"
	"slices"
	"strings"

	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// RunIndex runs the conformance suite of sqs.Index against indexes made by
// open, called once per subtest (engines on a shared server may return
// indexes on one database). Subtests run in parallel, each on fresh queue
// IDs.
//
// Times passed to the Index are explicit (ReceiveRequest.Now and the like)
// and never waited for: they start at the subtest's wall-clock start, in
// whole milliseconds, and move forward only. Rebuild leases and
// deduplication windows are wall-clock; their subtests wait about a second.
//
// Standard queues are only checked to hand out messages of distinct
// VisibleAt in that order: the order of ties is best effort.
func RunIndex(t *testing.T, open func(t *testing.T) sqs.Index) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(e *indexEnv)
	}{
		{"StandardOldestVisibleFirst", testStandardOrder},
		{"StandardReturnedBeforeNewer", testStandardReturnedFirst},
		{"ZeroVisibilityHandsOutOnce", testZeroVisibility},
		{"HideAReceivedMessage", testHide},
		{"DelayedNotBeforeVisibleAt", testDelayed},
		{"InvisibleUntilTimeoutThenAgain", testVisibilityTimeout},
		{"MaxBoundsAReceive", testMaxBounds},
		{"NextVisibleAt", testNextVisibleAt},
		{"Counts", testCounts},
		{"SetVisibleAt", testSetVisibleAt},
		{"SetVisibleAtNotInFlight", testSetVisibleAtNotInFlight},
		{"SetVisibleAtStaleReceipt", testSetVisibleAtStaleReceipt},
		{"Remove", testRemove},
		{"NotBuiltUntilMarkBuilt", testNotBuilt},
		{"DropForgetsTheQueue", testDrop},
		{"AddLeavesTrackedEntries", testAddDoesNotOverride},
		{"RebuiltEntriesKeepTheirState", testRebuiltEntries},
		{"UnknownQueue", testUnknownQueue},
		{"FIFOGroupsInOrderOfOldestMessage", testFIFOOrder},
		{"FIFOGroupBlockedWhileInFlight", testFIFOBlocked},
		{"FIFOGroupUnblockedByDelete", testFIFOUnblockedByDelete},
		{"FIFOGroupAgainFromHeadAfterTimeout", testFIFOAfterTimeout},
		{"FIFOConsecutiveVisibleFromHead", testFIFOConsecutive},
		{"FIFORebuiltInFlightBlocksGroup", testFIFORebuiltInFlight},
		{"FIFOGroupInSendOrderWhateverTheAddOrder", testFIFOSendOrder},
		{"FIFOLateAddHeadsTheGroup", testFIFOLateAdd},
		{"FIFOHeadBackWhileLaterInFlight", testFIFOHeadBackWhileLaterInFlight},
		{"FIFOHeadVisibilityIsTheBlock", testFIFOHeadVisibilityIsTheBlock},
		{"FIFOFreshGroupsFirst", testFIFOFreshGroupsFirst},
		{"LockRebuild", testLockRebuild},
		{"LockRebuildLeaseExpires", testLockRebuildExpiry},
		{"CommitUnderTheLeaseMarksBuilt", testCommitBuilds},
		{"MissingNamesUntrackedIDs", testMissing},
		{"RenewKeepsTheLease", testRenew},
		{"CommitAfterDropFails", testCommitAfterDrop},
		{"CommitAfterTheLeaseExpiredFails", testCommitAfterExpiry},
		{"RebuildProgressResumesAcrossLeases", testProgressResumes},
		{"RebuildProgressDroppedWithTheState", testProgressDropped},
		{"LeaseAddAfterTheLeaseEndedAddsNothing", testLeaseAddAfterLoss},
		{"EpochOlderStateIsDropped", testEpochOlderDrops},
		{"EpochNewerStateIsStale", testEpochNewerIsStale},
		{"EpochOfARebuild", testEpochRebuild},
		{"Deduplicate", testDeduplicate},
		{"ConcurrentReceiversShareNoMessage", testConcurrentReceivers},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x := open(t)
			if x == nil {
				t.Fatal("open returned a nil sqs.Index")
			}
			tc.fn(&indexEnv{t: t, x: x, ctx: t.Context(), base: NowMilli(), names: map[uuid.UUID]string{}, ids: map[string]uuid.UUID{}})
		})
	}
}

// indexEnv is what one subtest works with.
type indexEnv struct {
	t     *testing.T
	x     sqs.Index
	ctx   context.Context
	base  time.Time // the subtest's time zero
	names map[uuid.UUID]string
	ids   map[string]uuid.UUID
}

// at returns the subtest's time zero plus ms milliseconds.
func (e *indexEnv) at(ms int) time.Time { return e.base.Add(time.Duration(ms) * time.Millisecond) }

// queue returns a new built queue.
func (e *indexEnv) queue(fifo bool) sqs.IndexQueue {
	e.t.Helper()
	q := sqs.IndexQueue{ID: uuid.New(), FIFO: fifo}
	if err := e.x.MarkBuilt(e.ctx, q); err != nil {
		e.t.Fatalf("MarkBuilt: %v", err)
	}
	return q
}

// id returns the message ID named name, made on first use: names are
// "sent" in the order of their first use (each ID a microsecond after the
// one before), which is the order FIFO groups keep.
func (e *indexEnv) id(name string) uuid.UUID {
	id, ok := e.ids[name]
	if !ok {
		id = UUIDAt(e.base.Add(time.Duration(len(e.ids)) * time.Microsecond))
		e.ids[name], e.names[id] = id, name
	}
	return id
}

func (e *indexEnv) idsOf(names ...string) []uuid.UUID {
	out := make([]uuid.UUID, len(names))
	for i, n := range names {
		out[i] = e.id(n)
	}
	return out
}

// add adds new messages named names, in group, visible at ms.
func (e *indexEnv) add(q sqs.IndexQueue, group string, ms int, names ...string) {
	e.t.Helper()
	entries := make([]sqs.Entry, len(names))
	for i, n := range names {
		entries[i] = sqs.Entry{ID: e.id(n), Group: group, VisibleAt: e.at(ms)}
	}
	if err := e.x.Add(e.ctx, q, entries); err != nil {
		e.t.Fatalf("Add: %v", err)
	}
}

// receive receives up to max at now (ms), invisible until until (ms).
func (e *indexEnv) receive(q sqs.IndexQueue, now, max, until int) sqs.ReceiveResult {
	e.t.Helper()
	res, err := e.x.Receive(e.ctx, q, sqs.ReceiveRequest{Now: e.at(now), Max: max, Until: e.at(until)})
	if err != nil {
		e.t.Fatalf("Receive: %v", err)
	}
	return res
}

// expect receives and checks the names received, in order.
func (e *indexEnv) expect(q sqs.IndexQueue, now, max, until int, want ...string) sqs.ReceiveResult {
	e.t.Helper()
	res := e.receive(q, now, max, until)
	if got := e.claimNames(res.Claims); !slices.Equal(got, want) {
		e.t.Errorf("Receive at %d ms (max %d) = %v, want %v", now, max, got, want)
	}
	return res
}

// expectSet is expect for an order the contract leaves open.
func (e *indexEnv) expectSet(q sqs.IndexQueue, now, max, until int, want ...string) sqs.ReceiveResult {
	e.t.Helper()
	res := e.receive(q, now, max, until)
	got := e.claimNames(res.Claims)
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		e.t.Errorf("Receive at %d ms (max %d) = %v, want %v in any order", now, max, got, want)
	}
	return res
}

func (e *indexEnv) claimNames(cs []sqs.Claim) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		if n, ok := e.names[c.ID]; ok {
			out[i] = n
		} else {
			out[i] = c.ID.String()
		}
	}
	return out
}

func (e *indexEnv) remove(q sqs.IndexQueue, names ...string) {
	e.t.Helper()
	if err := e.x.Remove(e.ctx, q, e.idsOf(names...)); err != nil {
		e.t.Fatalf("Remove: %v", err)
	}
}

func (e *indexEnv) counts(q sqs.IndexQueue, now int, want sqs.Counts) {
	e.t.Helper()
	got, err := e.x.Counts(e.ctx, q, e.at(now))
	if err != nil {
		e.t.Fatalf("Counts: %v", err)
	}
	if got != want {
		e.t.Errorf("Counts at %d ms = %+v, want %+v", now, got, want)
	}
}

// claim returns the claim of name in res.
func (e *indexEnv) claim(res sqs.ReceiveResult, name string) sqs.Claim {
	e.t.Helper()
	for _, c := range res.Claims {
		if c.ID == e.id(name) {
			return c
		}
	}
	e.t.Fatalf("%s was not received; got %v", name, e.claimNames(res.Claims))
	return sqs.Claim{}
}

func wantErr(t *testing.T, op string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: error %v, want %v", op, err, want)
	}
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strings.Repeat("'", i/10) + string(rune('0'+i%10))
	}
	return out
}
