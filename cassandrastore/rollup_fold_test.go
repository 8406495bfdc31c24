package cassandrastore

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/heraldmq/herald/rollup"
)

// overlappingIngest has writers on nodes post batches of which half the
// events are also in another writer's batch, each of them waiting for its
// answers; it returns the plays of the distinct events and the failures.
func overlappingIngest(t *testing.T, d *rollup.Definition, nodes []*Store, writers, batches int) (want int64, failures []error) {
	t.Helper()
	svcs := make([]*rollup.Service, len(nodes))
	for i, st := range nodes {
		svcs[i] = rollup.NewService(rollup.Config{Store: st.Rollups(), DefaultAccount: d.Account})
	}
	now := time.Now().UTC()
	eventsOf := func(w, k int) []map[string]any {
		var out []map[string]any
		for i := range 20 {
			owner := w
			if i%2 == 1 {
				owner = (w + 1) % writers
			}
			out = append(out, map[string]any{"id": fmt.Sprintf("w%d-b%d-%d", owner, k, i/2), "time": now.Format(time.RFC3339Nano), "channel": "c",
				"city": fmt.Sprint("city", i%3), "plays": 1})
		}
		rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	want = int64(writers * batches * 10)
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for w := range writers {
		wg.Go(func() {
			for k := range batches {
				body, _ := json.Marshal(eventsOf(w, k))
				if _, err := svcs[w%len(svcs)].Ingest(t.Context(), d.Name, body); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Errorf("writer %d batch %d: %w", w, k, err))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return want, failures
}

// TestRollupCommitsFromTwoNodesNeverRace: writers on two nodes committing
// overlapping batches to one rollup at once never make a node lose a
// commit transaction to the other (as every node committing for itself
// did, and then caught up and tried again): the lease holder commits for
// both, the other hands it its batches, and the totals are exact.
func TestRollupCommitsFromTwoNodesNeverRace(t *testing.T) {
	a, b := sharedNode(t), sharedNode(t)
	d := testRollup(t, a)
	want, failures := overlappingIngest(t, d, []*Store{a, b}, 8, 10)
	for _, err := range failures {
		t.Error(err)
	}
	if got := allTime(t, b.Rollups(), d, "c"); got != want {
		t.Errorf("%d plays, want %d", got, want)
	}
	if lost := a.rollups.Lost.Load() + b.rollups.Lost.Load(); lost != 0 {
		t.Errorf("%d commit transactions lost to the other node, want 0", lost)
	}
	holder, other := a.rollups, b.rollups
	if holder.Folds.Load() == 0 {
		holder, other = other, holder
	}
	if holder.Folds.Load() == 0 || other.Folds.Load() != 0 || other.Submitted.Load() == 0 {
		t.Errorf("folds %d and %d, batches handed over %d and %d: want one node folding for both",
			a.rollups.Folds.Load(), b.rollups.Folds.Load(), a.rollups.Submitted.Load(), b.rollups.Submitted.Load())
	}
	t.Logf("%d batches in %d commits on the holder; %d handed over", holder.Folded.Load(), holder.Folds.Load(), other.Submitted.Load())
}

// TestRollupLeaseHolderGoneAnotherTakesOver: when the lease holder stops
// (it hangs, then its node goes) with a batch of another node in its
// inbox, that node takes the lease once it ends and commits its batch
// itself, once.
func TestRollupLeaseHolderGoneAnotherTakesOver(t *testing.T) {
	a, b, d := shortLeasePair(t)
	if err := commitPlays(t.Context(), a.Rollups(), d, "c", "e1"); err != nil { // a takes the lease
		t.Fatal(err)
	}
	a.rollups.pauseFold.Store(true)
	done := make(chan error, 1)
	go func() { done <- commitPlays(t.Context(), b.Rollups(), d, "c", "e2", "e3") }()
	checkFor(t, 10*time.Second, 10*time.Millisecond, func() error {
		if b.rollups.Submitted.Load() == 0 {
			return fmt.Errorf("b has not handed its batch over yet")
		}
		return nil
	})
	a.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("b's commit: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("b's commit did not end within 30 s of the holder going")
	}
	if b.rollups.Folds.Load() == 0 {
		t.Error("b committed its batch without holding the lease")
	}
	if got := allTime(t, b.Rollups(), d, "c"); got != 3 {
		t.Errorf("%d plays, want 3", got)
	}
	err := commitPlays(t.Context(), b.Rollups(), d, "c", "e3")
	if dup, ok := rollup.IsDuplicate(err); !ok || len(dup.Committed) != 1 {
		t.Errorf("e3 again: %v, want a duplicate", err)
	}
}

// TestRollupInboxRecordFoldedTwiceCountsOnce: a record whose batch was
// committed by a holder that died before writing its outcome is folded
// again by the next: it is all duplicates then, and its events count
// once.
func TestRollupInboxRecordFoldedTwiceCountsOnce(t *testing.T) {
	st := sharedNode(t)
	rs := st.rollups
	d := testRollup(t, st)
	now := time.Now()
	b := rollup.NewBatch(d)
	for _, id := range []string{"x1", "x2"} {
		b.Add(rollup.Event{ID: id, Time: now, Values: map[string]string{"channel": "c"}, Deltas: []int64{1}}, now)
	}
	c, err := st.enter(t.Context(), "test")
	if err != nil {
		t.Fatal(err)
	}
	// The record, as another node wrote it, and its batch committed by
	// a holder that died before writing the outcome.
	enc, err := encodeBatch(b)
	if err != nil {
		t.Fatal(err)
	}
	rec := &inboxRec{rollup: d.ID, slot: slotOf(now), id: gocql.UUIDFromTime(now)}
	if err := c.write(rs.cql(`INSERT INTO %s.rollup_inbox (rollup_id, slot, id, chunk, chunks, metrics, now_ms, body) VALUES (?, ?, ?, 0, 1, 1, ?, ?)`),
		cqlUUID(d.ID), rec.slot, rec.id, now.UnixMilli(), enc).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := rs.commitDirect(t.Context(), c, d, b, now); err != nil {
		t.Fatal(err)
	}
	// The next holder: any commit takes the lease and starts the loop.
	if err := commitPlays(t.Context(), rs, d, "c", "y"); err != nil {
		t.Fatal(err)
	}
	checkFor(t, 10*time.Second, 10*time.Millisecond, func() error {
		var outcome string
		if err := c.s.Query(rs.cql(`SELECT outcome FROM %s.rollup_inbox WHERE rollup_id = ? AND slot = ? AND id = ? AND chunk = 0`),
			cqlUUID(d.ID), rec.slot, rec.id).Scan(&outcome); err != nil {
			return err
		}
		if err := errorOf(d, outcome); outcome == "" || err == nil {
			return fmt.Errorf("outcome %q", outcome)
		} else if dup, ok := rollup.IsDuplicate(err); !ok || len(dup.Committed) != 2 {
			return fmt.Errorf("outcome %q, want both events duplicates", outcome)
		}
		return nil
	})
	if got := allTime(t, st.Rollups(), d, "c"); got != 3 {
		t.Errorf("%d plays, want 3", got)
	}
}

// TestRollupLeaseHeldAcrossItsTTL: a holder with work keeps its lease
// past many lease periods (each renewal renews every cell of the lease,
// whose TTLs are per cell) and never hands its own batches to anyone.
func TestRollupLeaseHeldAcrossItsTTL(t *testing.T) {
	st := sharedNode(t)
	st.rollups.leaseTTL = 2 * time.Second // Cassandra's TTLs end on whole seconds: at least 1 s after each renewal
	d := testRollup(t, st)
	for i := range 50 { // 5 s of commits: two and a half lease periods
		if err := commitPlays(t.Context(), st.Rollups(), d, "c", fmt.Sprint("e", i)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond) // the pace of the commits, not a wait for a state
	}
	if n, s := st.rollups.Leases.Load(), st.rollups.Submitted.Load(); n != 1 || s != 0 {
		t.Errorf("%d leases taken and %d batches handed over in 2.5 lease periods; want 1 and 0", n, s)
	}
	if got := allTime(t, st.Rollups(), d, "c"); got != 50 {
		t.Errorf("%d plays, want 50", got)
	}
}

// TestRollupWriterCommitsItselfWhenNoOutcomeComes: a holder that renews
// its lease but never reads the inbox (as one would never see the record
// of a writer whose clock is far behind its own) does not stop the
// writer: after two lease periods it commits its batch itself; when the
// holder reads the record at last, its events are duplicates.
func TestRollupWriterCommitsItselfWhenNoOutcomeComes(t *testing.T) {
	a, b, d := shortLeasePair(t)
	if err := commitPlays(t.Context(), a.Rollups(), d, "c", "e1"); err != nil { // a holds the lease
		t.Fatal(err)
	}
	a.rollups.pauseFold.Store(true)
	if err := commitPlays(t.Context(), b.Rollups(), d, "c", "e2", "e3"); err != nil {
		t.Fatalf("b's commit: %v", err)
	}
	if n := b.rollups.Fallbacks.Load(); n != 1 || b.rollups.Submitted.Load() != 1 {
		t.Fatalf("b handed %d batches over and committed %d itself; want 1 and 1", b.rollups.Submitted.Load(), n)
	}
	if got := allTime(t, a.Rollups(), d, "c"); got != 3 {
		t.Fatalf("%d plays, want 3", got)
	}
	a.rollups.pauseFold.Store(false)
	c, err := a.enter(t.Context(), "test")
	if err != nil {
		t.Fatal(err)
	}
	checkFor(t, 10*time.Second, 20*time.Millisecond, func() error {
		var outcome string
		// The rollup's one record: b's, written within the last 10 s.
		slots := []int64{slotOf(time.Now().Add(-inboxSlot)), slotOf(time.Now())}
		err := c.s.Query(a.rollups.cql(`SELECT outcome FROM %s.rollup_inbox WHERE rollup_id = ? AND slot IN ? AND chunk = 0 ALLOW FILTERING`),
			cqlUUID(d.ID), slots).Scan(&outcome)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(outcome, outcomeDup) {
			return fmt.Errorf("the record's outcome %q, want its events duplicates", outcome)
		}
		return nil
	})
	if got := allTime(t, a.Rollups(), d, "c"); got != 3 {
		t.Errorf("after the holder read the record: %d plays, want 3", got)
	}
}

// shortLeasePair opens two nodes on the shared keyspace whose rollup
// leases last 2 s (Cassandra's TTLs end on whole seconds: at least 1 s
// after each renewal), and a rollup of its own defined through the first.
func shortLeasePair(t *testing.T) (a, b *Store, d *rollup.Definition) {
	t.Helper()
	a, b = sharedNode(t), sharedNode(t)
	a.rollups.leaseTTL, b.rollups.leaseTTL = 2*time.Second, 2*time.Second
	return a, b, testRollup(t, a)
}

// leasesOf counts the leases of rollup d's commit shards st holds.
func leasesOf(st *Store, d *rollup.Definition) int {
	n := 0
	for k := range d.Shards() {
		st.rollups.mu.Lock()
		f := st.rollups.folders[d.ShardID(k)]
		st.rollups.mu.Unlock()
		if f != nil && f.isLeading() {
			n++
		}
	}
	return n
}

// TestRollupShardsCommitOnTwoNodesAtOnce: a rollup of four commit shards
// fed from two nodes has its shards' committers on both nodes (the first
// node to take them all gives up those over its share), committing at
// once without ever losing a transaction to each other, and the totals
// are exact.
func TestRollupShardsCommitOnTwoNodesAtOnce(t *testing.T) {
	a, b, d := shortLeasePair(t)
	d.CommitShards = 4
	if err := a.Rollups().PutDefinition(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	svcs := []*rollup.Service{
		rollup.NewService(rollup.Config{Store: a.Rollups(), DefaultAccount: d.Account}),
		rollup.NewService(rollup.Config{Store: b.Rollups(), DefaultAccount: d.Account}),
	}
	const channels = 16
	var sent [channels]int64
	send := func(node, k int) {
		var evs []map[string]any
		for c := range channels {
			evs = append(evs, map[string]any{"id": fmt.Sprintf("n%d-b%d-c%d", node, k, c), "time": time.Now().UTC().Format(time.RFC3339Nano),
				"channel": fmt.Sprint("c", c), "city": fmt.Sprint("city", k%3), "plays": 1})
		}
		body, _ := json.Marshal(evs)
		if _, err := svcs[node].Ingest(t.Context(), d.Name, body); err != nil {
			t.Errorf("node %d batch %d: %v", node, k, err)
		}
	}
	// Node a alone first: it takes every shard's lease.
	send(0, 0)
	if got := leasesOf(a, d); got != 4 {
		t.Fatalf("node a holds %d leases after committing alone, want 4", got)
	}
	batches := [2]int{1, 0}
	checkFor(t, 30*time.Second, 0, func() error {
		var wg sync.WaitGroup
		for node := range 2 {
			wg.Go(func() { send(node, batches[node]); batches[node]++ })
		}
		wg.Wait()
		if la, lb := leasesOf(a, d), leasesOf(b, d); la != 2 || lb != 2 {
			return fmt.Errorf("leases held: a %d, b %d; want 2 and 2", la, lb)
		}
		return nil
	})
	for c := range channels {
		sent[c] = int64(batches[0] + batches[1])
		if got := allTime(t, b.Rollups(), d, fmt.Sprint("c", c)); got != sent[c] {
			t.Errorf("channel c%d: %d plays, want %d", c, got, sent[c])
		}
	}
	if lost := a.rollups.Lost.Load() + b.rollups.Lost.Load(); lost != 0 {
		t.Errorf("%d commit transactions lost between the nodes, want 0", lost)
	}
	if a.rollups.Handoffs.Load() < 2 || b.rollups.Folds.Load() == 0 {
		t.Errorf("node a gave up %d leases (want 2 or more), node b committed %d folds (want some)", a.rollups.Handoffs.Load(), b.rollups.Folds.Load())
	}
}

// TestRollupLeaseHeldThroughALongCommit: a holder whose commit takes
// longer than its lease and than a writer's patience (heavy events on a
// node of little CPU) keeps the lease, renewed on its own schedule, and
// the writer whose record it took waits for the outcome instead of
// committing the batch itself: no lease moves, no transaction is lost,
// no batch falls back, and the count is exact.
func TestRollupLeaseHeldThroughALongCommit(t *testing.T) {
	a, b, d := shortLeasePair(t)
	if err := commitPlays(t.Context(), a.Rollups(), d, "c", "e1"); err != nil { // a holds the lease
		t.Fatal(err)
	}
	long := func() { time.Sleep(5 * time.Second) } // 2.5 leases; past b's submitPatience (4 s)
	a.rollups.slowFold.Store(&long)
	if err := commitPlays(t.Context(), b.Rollups(), d, "c", "e2", "e3"); err != nil {
		t.Fatalf("b's commit: %v", err)
	}
	a.rollups.slowFold.Store(nil)
	if got := allTime(t, a.Rollups(), d, "c"); got != 3 {
		t.Errorf("%d plays, want 3", got)
	}
	if b.rollups.Submitted.Load() != 1 || b.rollups.Fallbacks.Load() != 0 || b.rollups.Leases.Load() != 0 {
		t.Errorf("b handed over %d batches, committed %d itself and took %d leases; want 1, 0, 0",
			b.rollups.Submitted.Load(), b.rollups.Fallbacks.Load(), b.rollups.Leases.Load())
	}
	if a.rollups.Leases.Load() != 1 || a.rollups.Lost.Load() != 0 || leasesOf(a, d) != 1 {
		t.Errorf("a took %d leases, lost %d transactions, holds %d leases; want 1, 0, 1", a.rollups.Leases.Load(), a.rollups.Lost.Load(), leasesOf(a, d))
	}
}
