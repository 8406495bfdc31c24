package cassandrastore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/rollup"
)

// testRollup stores a new rollup (channel scope, plays, city, all-time
// and day periods) in st and returns it.
func testRollup(t *testing.T, st *Store) *rollup.Definition {
	t.Helper()
	var d rollup.Definition
	if err := json.Unmarshal([]byte(`{"name": "r", "event": {"id": "id", "time": "time"}, "scopes": [["channel"]],
		"metrics": ["plays"], "dimensions": ["city"], "periods": [{"unit": "day"}, {"unit": "all"}]}`), &d); err != nil {
		t.Fatal(err)
	}
	if err := d.Normalize(); err != nil {
		t.Fatal(err)
	}
	d.Account, d.ID, d.Created = fmt.Sprintf("%012d", time.Now().UnixNano()%1e12), uuid.New(), time.Now()
	if err := st.Rollups().PutDefinition(t.Context(), &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// commitPlays commits one event per id, one play each, to channel c.
func commitPlays(ctx context.Context, s rollup.Store, d *rollup.Definition, c string, ids ...string) error {
	now := time.Now()
	b := rollup.NewBatch(d)
	for _, id := range ids {
		b.Add(rollup.Event{ID: id, Time: now, Values: map[string]string{"channel": c}, Deltas: []int64{1}}, now)
	}
	return s.Commit(ctx, d, b, now)
}

func allTime(t *testing.T, s rollup.Store, d *rollup.Definition, c string) int64 {
	t.Helper()
	got, err := s.ReadRows(t.Context(), d, []rollup.Row{{Key: c, Unit: rollup.All, Dim: rollup.Total}})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] == nil {
		return 0
	}
	return got[0][0]
}

// directPair opens two nodes on the shared keyspace that commit every
// batch themselves, by the protocol of rollup_commit.go, rather than
// through a lease holder: the cases of that protocol.
func directPair(t *testing.T) (*Store, *Store) {
	a, b := sharedNode(t), sharedNode(t)
	a.rollups.direct, b.rollups.direct = true, true
	return a, b
}

// sharedNode opens another node (a store of its own) on the shared
// keyspace, closed at the test's end.
func sharedNode(t *testing.T) *Store {
	t.Helper()
	addr := cassandraAddr(t)
	sharedStore(t)
	return openTest(t, addr, Options{Keyspace: shared.ks})
}

// TestRollupCommitDiedAfterItsTransaction: a node that dies between a
// commit's transaction and its writes leaves the record; the next commit,
// on another node, applies it first: its events count once, and a
// redelivery of them is a duplicate.
func TestRollupCommitDiedAfterItsTransaction(t *testing.T) {
	a, dying := directPair(t)
	d := testRollup(t, a)
	if err := commitPlays(t.Context(), dying.Rollups(), d, "c", "e1"); err != nil {
		t.Fatal(err)
	}
	dying.rollups.failApply = func() error { return errors.New("killed") }
	if err := commitPlays(t.Context(), dying.Rollups(), d, "c", "e2", "e3"); err == nil {
		t.Fatal("the dying commit succeeded")
	}
	if got := allTime(t, a.Rollups(), d, "c"); got != 1 {
		t.Fatalf("before the next commit: %d plays, want 1 (e2 and e3 committed, not yet written)", got)
	}
	err := commitPlays(t.Context(), a.Rollups(), d, "c", "e2", "e4")
	if dup, ok := rollup.IsDuplicate(err); !ok || !slices.Equal(dup.Committed, []string{"e2"}) {
		t.Fatalf("a redelivery of e2: %v, want ErrDuplicate{e2}", err)
	}
	if err := commitPlays(t.Context(), a.Rollups(), d, "c", "e4"); err != nil {
		t.Fatal(err)
	}
	if got := allTime(t, a.Rollups(), d, "c"); got != 4 {
		t.Fatalf("after the next commit: %d plays, want 4", got)
	}
}

// TestRollupStaleWriteLoses: the writes of an older commit landing after
// a newer one's (a paused node, a retried write) change nothing.
func TestRollupStaleWriteLoses(t *testing.T) {
	st := sharedStore(t)
	d := testRollup(t, st)
	rs := st.rollups
	for i := range 3 {
		if err := commitPlays(t.Context(), rs, d, "c", fmt.Sprintf("e%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := st.enter(t.Context(), "test")
	if err != nil {
		t.Fatal(err)
	}
	w := rs.writer(d, 0)
	first, err := rs.readBody(t.Context(), c, d.ID, 1, firstNonce(t, rs, c, d, w))
	if err != nil || first == nil {
		t.Fatalf("record of commit 1: %v, %v", first, err)
	}
	if err := rs.apply(t.Context(), c, d, d.ID, 1, first); err != nil {
		t.Fatal(err)
	}
	if got := allTime(t, st.Rollups(), d, "c"); got != 3 {
		t.Fatalf("after commit 1's writes landed again: %d plays, want 3", got)
	}
}

// firstNonce walks the records back from w's last commit to commit 1.
func firstNonce(t *testing.T, rs *rollupStore, c *conn, d *rollup.Definition, w *rollupWriter) uuid.UUID {
	t.Helper()
	seq, n := w.seq, w.nonce
	for seq > 1 {
		b, err := rs.readBody(t.Context(), c, d.ID, seq, n)
		if err != nil || b == nil {
			t.Fatalf("record %d: %v", seq, err)
		}
		seq, n = seq-1, b.prev
	}
	return n
}

// TestRollupLargeCommitRecord: a commit whose record spans several chunks
// is applied whole from it by the next committer.
func TestRollupLargeCommitRecord(t *testing.T) {
	a, dying := directPair(t)
	d := testRollup(t, a)
	now := time.Now()
	b := rollup.NewBatch(d)
	const n = 30000
	for i := range n {
		b.Add(rollup.Event{ID: fmt.Sprint(i), Time: now, Values: map[string]string{"channel": "c", "city": fmt.Sprintf("city-%06d", i)}, Deltas: []int64{1}}, now)
	}
	body := &rollupBody{}
	for r, sums := range b.Rows() {
		body.rows = append(body.rows, bodyRow{r, sums})
	}
	if enc, _ := body.encode(); len(enc) <= pendingChunk {
		t.Fatalf("the record is %d bytes, want more than one chunk", len(enc))
	}
	dying.rollups.failApply = func() error { return errors.New("killed") }
	if err := dying.Rollups().Commit(t.Context(), d, b, now); err == nil {
		t.Fatal("the dying commit succeeded")
	}
	if err := commitPlays(t.Context(), a.Rollups(), d, "c", "last"); err != nil {
		t.Fatal(err)
	}
	if got := allTime(t, a.Rollups(), d, "c"); got != n+1 {
		t.Fatalf("%d plays, want %d", got, n+1)
	}
	got, err := a.Rollups().ReadRows(t.Context(), d, []rollup.Row{{Key: "c", Unit: rollup.All, Dim: 0, Value: "city-029999"}})
	if err != nil || len(got[0]) != 1 || got[0][0] != 1 {
		t.Fatalf("the last city's row: %v, %v", got, err)
	}
}

// TestRollupEventsCommittedButNotLandedAreMadeVisibleWhenSentAgain: a
// commit whose writes landed in part (its event records, not its rows:
// the node's writes failed after its transaction, and the caller was
// told) leaves events that a redelivery finds committed; before they are
// reported committed, on any node, the commit's record is applied, so a
// source that then acknowledges them never leaves their counts unseen.
func TestRollupEventsCommittedButNotLandedAreMadeVisibleWhenSentAgain(t *testing.T) {
	a, b := directPair(t)
	d := testRollup(t, a)
	if err := commitPlays(t.Context(), a.Rollups(), d, "c", "e1"); err != nil {
		t.Fatal(err)
	}
	a.rollups.landEventsOnly = true
	at := time.Now() // the events' time, part of their identity
	batch := rollup.NewBatch(d)
	for _, id := range []string{"e2", "e3"} {
		batch.Add(rollup.Event{ID: id, Time: at, Values: map[string]string{"channel": "c"}, Deltas: []int64{1}}, at)
	}
	if err := a.Rollups().Commit(t.Context(), d, batch, at); err == nil {
		t.Fatal("the commit whose rows never landed succeeded")
	}
	a.rollups.landEventsOnly = false
	if got := allTime(t, b.Rollups(), d, "c"); got != 1 {
		t.Fatalf("%d plays before the redelivery, want 1 (the rows did not land)", got)
	}
	got, err := b.Rollups().Committed(t.Context(), d, 0, []rollup.EventKey{{ID: "e2", Time: at}, {ID: "e3", Time: at}}, at)
	if err != nil || !got["e2"] || !got["e3"] {
		t.Fatalf("Committed(e2, e3) = %v, %v; want both", got, err)
	}
	if got := allTime(t, b.Rollups(), d, "c"); got != 3 {
		t.Fatalf("%d plays once the redelivery found its events committed, want 3", got)
	}
}
