// Package rolluptest is the conformance suite of rollup.Store: every engine
// runs RunStore against a real instance of itself.
package rolluptest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/rollup"
)

// RunStore runs the suite; open returns an empty store (or one shared by
// subtests: every subtest uses accounts and rollups of its own).
func RunStore(t *testing.T, open func(t *testing.T) rollup.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(e *env)
	}{
		{"DefinitionsPutGetListDelete", testDefinitions},
		{"ComputedMembersAreStoredWithTheDefinition", testComputedDefinition},
		{"CommitAddsToRows", testCommit},
		{"DuplicateEventRefusesTheWholeBatch", testDuplicate},
		{"EventCommittedOnlyWithinTheDedupWindow", testDedupWindow},
		{"ConcurrentCommitsOnOneRowAreExact", testConcurrent},
		{"ReadPartitionInValueOrderWithPaging", testPartition},
		{"DeleteForgetsRowsAndEvents", testDelete},
		{"SourcesListsTheDefinitionsNamingAQueue", testSources},
		{"TriggerFiresOncePerRowAndBucket", testTriggerFiresOnce},
		{"TriggerCrossedByConcurrentWritersFiresOnce", testTriggerConcurrent},
		{"WindowTriggerFiresWhenTheWindowSumCrosses", testWindowTrigger},
		{"LastFiringIsRecordedWithTheFiring", testLastFiring},
		{"LastFiringTellsWhatBecameOfItsNotification", testLastFiringOutcome},
		{"LastFiringGoesWithItsTriggerAndItsRollup", testLastFiringForgotten},
		{"DistinctAndFirstSeenCountEachValueOnce", testDistinctCounts},
		{"DistinctAndFirstSeenCountEachValueOnceInCommitShards", sharded(testDistinctCounts)},
		{"TriggersOfCommitShardsFireOnceAndKeepTheLastFiring", testShardTriggers},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			tc.fn(&env{t: t, s: s, ctx: t.Context(), account: fmt.Sprintf("%012d", time.Now().UnixNano()%1e12)})
		})
	}
}

type env struct {
	t       *testing.T
	s       rollup.Store
	ctx     context.Context
	account string
	// shards is the commit shards of the rollups the cases' services
	// define (service); 0 is one.
	shards int
}

// suiteShards is the commit shards of the cases run sharded.
const suiteShards = 4

// sharded runs case fn with rollups of suiteShards commit shards.
func sharded(fn func(e *env)) func(e *env) {
	return func(e *env) {
		e.shards = suiteShards
		fn(e)
	}
}

// shardedPair is sharded for a case of two nodes.
func shardedPair(fn func(e *env, other rollup.Store)) func(e *env, other rollup.Store) {
	return func(e *env, other rollup.Store) {
		e.shards = suiteShards
		fn(e, other)
	}
}

// service returns a Service over st at the suite's clock, for e's
// account, defining rollups of e.shards commit shards.
func (e *env) service(st rollup.Store) *rollup.Service {
	return rollup.NewService(rollup.Config{Store: st, Clock: func() time.Time { return now }, DefaultAccount: e.account, CommitShards: e.shards})
}

// now is the suite's clock: commits pass it explicitly.
var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

const definitionJSON = `{"name": %q, "event": {"id": "id", "time": "time"}, "scopes": [["channel"]],
	"metrics": ["plays", "viewers"], "dimensions": ["city"], "periods": [{"unit": "day"}, {"unit": "all"}]}`

// define stores a new definition named name.
func (e *env) define(name string) *rollup.Definition { return e.defineWith(name, nil) }

// defineWith stores a new definition named name, changed by edit first.
func (e *env) defineWith(name string, edit func(d *rollup.Definition)) *rollup.Definition {
	e.t.Helper()
	var d rollup.Definition
	if err := json.Unmarshal(fmt.Appendf(nil, definitionJSON, name), &d); err != nil {
		e.t.Fatal(err)
	}
	if edit != nil {
		edit(&d)
	}
	if err := d.Normalize(); err != nil {
		e.t.Fatal(err)
	}
	d.Account, d.ID, d.Created = e.account, uuid.New(), now
	if err := e.s.PutDefinition(e.ctx, &d); err != nil {
		e.t.Fatalf("PutDefinition: %v", err)
	}
	return &d
}

// event is an event of channel c in city (none if ""), plays and viewers.
func event(id, c, city string, plays, viewers int64) rollup.Event {
	v := map[string]string{"channel": c}
	if city != "" {
		v["city"] = city
	}
	return rollup.Event{ID: id, Time: now.Add(-time.Hour), Values: v, Deltas: []int64{plays, viewers}}
}

// keys are the keys of events with these IDs (as event makes them).
func keys(ids ...string) []rollup.EventKey {
	out := make([]rollup.EventKey, len(ids))
	for i, id := range ids {
		out[i] = rollup.EventKey{ID: id, Time: now.Add(-time.Hour)}
	}
	return out
}

func (e *env) batch(d *rollup.Definition, events ...rollup.Event) *rollup.Batch {
	b := rollup.NewBatch(d)
	for _, ev := range events {
		b.Add(ev, now)
	}
	return b
}

func (e *env) commit(d *rollup.Definition, events ...rollup.Event) {
	e.t.Helper()
	if err := e.s.Commit(e.ctx, d, e.batch(d, events...), now); err != nil {
		e.t.Fatalf("Commit: %v", err)
	}
}

// allRow is the all-time row of channel c, for city ("" for the total).
func allRow(d *rollup.Definition, c, city string) rollup.Row {
	r := rollup.Row{Scope: 0, Key: c, Unit: rollup.All, Dim: rollup.Total}
	if city != "" {
		r.Dim, r.Value = 0, city
	}
	return r
}

func (e *env) wantRow(d *rollup.Definition, r rollup.Row, want []int64) {
	e.t.Helper()
	got, err := e.s.ReadRows(e.ctx, d, []rollup.Row{r})
	if err != nil {
		e.t.Fatalf("ReadRows: %v", err)
	}
	if !slices.Equal(got[0], want) {
		e.t.Fatalf("row %+v = %v, want %v", r, got[0], want)
	}
}

func testDefinitions(e *env) {
	a := e.define("a")
	e.define("c")
	e.define("b")
	got, err := e.s.GetDefinition(e.ctx, e.account, "a")
	if err != nil || got.ID != a.ID || !got.SameShape(a) || got.DedupWindow != a.DedupWindow {
		e.t.Fatalf("GetDefinition = %+v, %v; want %+v", got, err, a)
	}
	if _, err := e.s.GetDefinition(e.ctx, "999999999999", "a"); herald.ErrorCode(err) != herald.ENotFound {
		e.t.Fatalf("another account's rollup: %v, want not_found", err)
	}
	names := func(after string, limit int) []string {
		ds, err := e.s.ListDefinitions(e.ctx, e.account, after, limit)
		if err != nil {
			e.t.Fatal(err)
		}
		var out []string
		for _, d := range ds {
			out = append(out, d.Name)
		}
		return out
	}
	if got := names("", 10); !slices.Equal(got, []string{"a", "b", "c"}) {
		e.t.Fatalf("list = %v", got)
	}
	if got := names("a", 1); !slices.Equal(got, []string{"b"}) {
		e.t.Fatalf("list after a, 1 = %v", got)
	}
	// Replace: same name, new retention.
	a2 := a.Clone()
	a2.Periods[0].Retention = rollup.Duration(30 * 24 * time.Hour)
	if err := e.s.PutDefinition(e.ctx, a2); err != nil {
		e.t.Fatal(err)
	}
	if got, _ := e.s.GetDefinition(e.ctx, e.account, "a"); got.Periods[0].Retention != a2.Periods[0].Retention {
		e.t.Fatalf("replaced retention = %s", got.Periods[0].Retention)
	}
	if err := e.s.DeleteDefinition(e.ctx, e.account, "b"); err != nil {
		e.t.Fatal(err)
	}
	if err := e.s.DeleteDefinition(e.ctx, e.account, "b"); herald.ErrorCode(err) != herald.ENotFound {
		e.t.Fatalf("second delete: %v, want not_found", err)
	}
	if got := names("", 10); !slices.Equal(got, []string{"a", "c"}) {
		e.t.Fatalf("list after delete = %v", got)
	}
}

// testComputedDefinition: a definition's computed members come back from
// GetDefinition and ListDefinitions as they were put, and parse events
// alike.
func testComputedDefinition(e *env) {
	d := e.defineWith("computed", func(d *rollup.Definition) {
		d.Dimensions = append(d.Dimensions, "hour", "continent")
		d.Computed = []rollup.Computed{
			{Name: "hour", Fn: rollup.FnHourOfDay},
			{Name: "continent", Fn: rollup.FnLookup, Member: "country", Table: map[string]string{"FR": "Europe", "JP": "Asia"}, Default: "other"},
		}
	})
	got, err := e.s.GetDefinition(e.ctx, e.account, "computed")
	if err != nil || !got.SameShape(d) {
		e.t.Fatalf("GetDefinition = %+v, %v; want the computed members of %+v", got, err, d.Computed)
	}
	listed, err := e.s.ListDefinitions(e.ctx, e.account, "", 10)
	if err != nil || len(listed) != 1 || !listed[0].SameShape(d) {
		e.t.Fatalf("ListDefinitions = %v, %v", listed, err)
	}
	body := []byte(`{"id": "1", "time": "2026-12-01T10:30:00Z", "channel": "c", "country": "JP", "plays": 1}`)
	want, _, _ := d.ParseEvents(body)
	events, _, err := got.ParseEvents(body)
	if err != nil || len(events) != 1 || !maps.Equal(events[0].Values, want[0].Values) || events[0].Values["continent"] != "Asia" {
		e.t.Fatalf("the stored definition parses %+v, %v; want %+v", events, err, want)
	}
}

func testCommit(e *env) {
	d := e.define("r")
	e.commit(d, event("e1", "c1", "Paris", 1, 1), event("e2", "c1", "Oslo", 2, 0), event("e3", "c2", "", 5, -1))
	e.wantRow(d, allRow(d, "c1", ""), []int64{3, 1})
	e.wantRow(d, allRow(d, "c1", "Paris"), []int64{1, 1})
	e.wantRow(d, allRow(d, "c2", ""), []int64{5, -1})
	e.commit(d, event("e4", "c1", "Paris", 10, -1))
	e.wantRow(d, allRow(d, "c1", ""), []int64{13, 0})
	e.wantRow(d, allRow(d, "c1", "Paris"), []int64{11, 0})
	e.wantRow(d, allRow(d, "c9", ""), nil)
}

func testDuplicate(e *env) {
	d := e.define("r")
	e.commit(d, event("a", "c", "", 1, 0), event("b", "c", "", 1, 0))
	err := e.s.Commit(e.ctx, d, e.batch(d, event("b", "c", "", 1, 0), event("c", "c", "", 1, 0)), now)
	dup, ok := rollup.IsDuplicate(err)
	if !ok || !slices.Equal(dup.Committed, []string{"b"}) {
		e.t.Fatalf("Commit of a batch holding b again: %v, want ErrDuplicate{b}", err)
	}
	e.wantRow(d, allRow(d, "c", ""), []int64{2, 0})
	got, err := e.s.Committed(e.ctx, d, 0, keys("a", "b", "c"), now)
	if err != nil || len(got) != 2 || !got["a"] || !got["b"] {
		e.t.Fatalf("Committed = %v, %v; want a and b", got, err)
	}
	e.commit(d, event("c", "c", "", 1, 0))
	e.wantRow(d, allRow(d, "c", ""), []int64{3, 0})
}

func testDedupWindow(e *env) {
	d := e.define("r")
	e.commit(d, event("a", "c", "", 1, 0))
	window := time.Duration(d.DedupWindow)
	for _, tc := range []struct {
		at   time.Time
		want bool
	}{{now, true}, {now.Add(window - time.Millisecond), true}, {now.Add(window), false}} {
		got, err := e.s.Committed(e.ctx, d, 0, keys("a"), tc.at)
		if err != nil || got["a"] != tc.want {
			e.t.Fatalf("Committed at +%s = %v, %v; want %v", tc.at.Sub(now), got, err, tc.want)
		}
	}
}

// commitConcurrently has ten writers commit 100 events each, one event a
// commit, all to channel "hot" (in city, if not ""), one play each; the
// writers take turns among stores (e's own when none).
func (e *env) commitConcurrently(d *rollup.Definition, city string, stores ...rollup.Store) {
	e.t.Helper()
	if len(stores) == 0 {
		stores = []rollup.Store{e.s}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for w := range 10 {
		s := stores[w%len(stores)]
		wg.Go(func() {
			for i := range 100 {
				b := rollup.NewBatch(d)
				b.Add(event(fmt.Sprintf("w%d-%d", w, i), "hot", city, 1, 0), now)
				if err := s.Commit(e.ctx, d, b, now); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		e.t.Fatalf("Commit: %v", err)
	}
}

// testConcurrent: ten writers, each committing 100 events one at a time on
// the same row (the non-atomic increment LoopLogic shipped): exactly 1000.
func testConcurrent(e *env) {
	d := e.define("r")
	e.commitConcurrently(d, "Paris")
	e.wantRow(d, allRow(d, "hot", ""), []int64{1000, 0})
	e.wantRow(d, allRow(d, "hot", "Paris"), []int64{1000, 0})
}

func testPartition(e *env) {
	d := e.define("r")
	var events []rollup.Event
	for i, city := range []string{"Oslo", "Paris", "Athens", "Zurich", "Lima"} {
		events = append(events, event(city, "c", city, int64(i+1), 0))
	}
	events = append(events, event("other", "d", "Berlin", 9, 0)) // another channel's partition
	e.commit(d, events...)
	p := rollup.Partition{Scope: 0, Key: "c", Unit: rollup.All, Dim: 0}
	read := func(after string, limit int) []string {
		var out []string
		err := e.s.ReadPartition(e.ctx, d, p, after, func(v string, sums []int64) bool {
			out = append(out, fmt.Sprintf("%s=%d", v, sums[0]))
			return len(out) < limit
		})
		if err != nil {
			e.t.Fatal(err)
		}
		return out
	}
	if got := read("", 10); !slices.Equal(got, []string{"Athens=3", "Lima=5", "Oslo=1", "Paris=2", "Zurich=4"}) {
		e.t.Fatalf("partition = %v", got)
	}
	if got := read("Lima", 2); !slices.Equal(got, []string{"Oslo=1", "Paris=2"}) {
		e.t.Fatalf("partition after Lima, 2 = %v", got)
	}
}

func testDelete(e *env) {
	d := e.define("r")
	e.commit(d, event("a", "c", "Paris", 1, 0))
	if err := e.s.DeleteDefinition(e.ctx, e.account, "r"); err != nil {
		e.t.Fatal(err)
	}
	e.wantRow(d, allRow(d, "c", ""), nil)
	if got, err := e.s.Committed(e.ctx, d, 0, keys("a"), now); err != nil || got["a"] {
		e.t.Fatalf("Committed after delete = %v, %v", got, err)
	}
	d2 := e.define("r")
	e.wantRow(d2, allRow(d2, "c", ""), nil)
	e.commit(d2, event("a", "c", "", 1, 0)) // a new rollup: "a" was never committed to it
	e.wantRow(d2, allRow(d2, "c", ""), []int64{1, 0})
}

func testSources(e *env) {
	d := e.define("plain")
	withQueue := e.defineWith("fed", func(d *rollup.Definition) { d.Sources.Queue = "http://localhost/" + e.account + "/events" })
	defs, err := e.s.Sources(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	var found bool
	for _, x := range defs {
		if x.ID == d.ID {
			e.t.Fatalf("Sources lists %s, which names no queue", d.Name)
		}
		found = found || (x.ID == withQueue.ID && x.Sources.Queue == withQueue.Sources.Queue)
	}
	if !found {
		e.t.Fatalf("Sources = %d definitions, without the one naming a queue", len(defs))
	}
}

// defineWithTrigger stores a definition whose trigger fires when a
// channel's all-time plays reach threshold.
func (e *env) defineWithTrigger(name string, threshold int64) *rollup.Definition {
	return e.defineWith(name, func(d *rollup.Definition) {
		d.Triggers = []rollup.Trigger{{ID: "hot", Metric: "plays", Scope: map[string]string{"channel": "*"}, Unit: rollup.All,
			Threshold: threshold, TopicARN: "arn:aws:sns:us-east-1:" + e.account + ":alerts"}}
	})
}

// pending returns the pending firings of rollup d.
func (e *env) pending(d *rollup.Definition) []rollup.Firing {
	e.t.Helper()
	all, err := e.s.PendingFirings(e.ctx, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []rollup.Firing
	for _, f := range all {
		if f.Rollup == d.Name && f.Account == d.Account {
			out = append(out, f)
		}
	}
	return out
}

// testTriggerFiresOnce: a trigger fires when a commit crosses its
// threshold, once per row and bucket: not again when the count falls
// back and crosses again, nor for replayed events.
func testTriggerFiresOnce(e *env) {
	d := e.defineWithTrigger("r", 3)
	e.commit(d, event("a", "c", "", 1, 0), event("b", "c", "", 1, 0))
	if got := e.pending(d); len(got) != 0 {
		e.t.Fatalf("fired below the threshold: %+v", got)
	}
	e.commit(d, event("c", "c", "", 2, 0))
	got := e.pending(d)
	if len(got) != 1 || got[0].Total != 4 || got[0].Threshold != 3 || got[0].Trigger != "hot" || got[0].Scope[0] != "c" || got[0].ID == "" {
		e.t.Fatalf("firings after the crossing: %+v", got)
	}
	e.commit(d, event("d", "c", "", -3, 0)) // back under
	e.commit(d, event("e", "c", "", 5, 0))  // and over again
	if got := e.pending(d); len(got) != 1 {
		e.t.Fatalf("%d firings pending after a second crossing, want still 1", len(got))
	}
	if err := e.s.FiringDone(e.ctx, got[0], now); err != nil {
		e.t.Fatal(err)
	}
	e.commit(d, event("f", "c", "", -10, 0), event("g", "c", "", 10, 0))
	if got := e.pending(d); len(got) != 0 {
		e.t.Fatalf("fired again after it was published: %+v", got)
	}
	// Another channel is another row: it fires on its own.
	e.commit(d, event("h", "other", "", 3, 0))
	if got := e.pending(d); len(got) != 1 || got[0].Scope[0] != "other" {
		e.t.Fatalf("other channel: %+v", got)
	}
}

// testTriggerConcurrent: ten writers cross one threshold together: one
// firing.
func testTriggerConcurrent(e *env) {
	d := e.defineWithTrigger("r", 500)
	e.commitConcurrently(d, "")
	e.wantOneFiringCrossing500(d)
}

// wantOneFiringCrossing500 checks that the 500 plays threshold of
// commitConcurrently's writers fired once, with the total of the commit
// that crossed it: 500 when every batch is its own commit, up to 509 when
// a store combines the ten writers' waiting batches (one play each) in
// one commit.
func (e *env) wantOneFiringCrossing500(d *rollup.Definition) {
	e.t.Helper()
	if got := e.pending(d); len(got) != 1 || got[0].Total < 500 || got[0].Total >= 510 {
		e.t.Fatalf("firings: %+v, want one, at 500 to 509", got)
	}
}

// RunStorePair runs the cases of several nodes sharing one store: open
// returns two stores over the same data (on the embedded engine, whose
// one process owns its data, the same store twice).
func RunStorePair(t *testing.T, open func(t *testing.T) (rollup.Store, rollup.Store)) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(e *env, other rollup.Store)
	}{
		{"CommitsFromTwoNodesOnOneRowAreExact", testPairConcurrent},
		{"EventCommittedOnOneNodeIsADuplicateOnTheOther", testPairDuplicate},
		{"TriggerCrossedFromTwoNodesFiresOnce", testPairTrigger},
		{"OverlappingIngestOnTwoNodesNeverFails", testPairOverlappingIngest},
		{"RollupThatGainedPartsKeepsThemFromANodeHoldingTheOldVersion", testPairEvolved},
		{"DistinctCountsFromTwoNodesEqualABruteForce", testPairDistinctExact},
		{"OverlappingIngestOnTwoNodesNeverFailsInCommitShards", shardedPair(testPairOverlappingIngest)},
		{"DistinctCountsFromTwoNodesEqualABruteForceInCommitShards", shardedPair(testPairDistinctExact)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, b := open(t)
			tc.fn(&env{t: t, s: a, ctx: t.Context(), account: fmt.Sprintf("%012d", time.Now().UnixNano()%1e12)}, b)
		})
	}
}

func testPairConcurrent(e *env, other rollup.Store) {
	d := e.define("r")
	e.commitConcurrently(d, "Paris", e.s, other)
	e.wantRow(d, allRow(d, "hot", ""), []int64{1000, 0})
	e.wantRow(d, allRow(d, "hot", "Paris"), []int64{1000, 0})
	got, err := other.ReadRows(e.ctx, d, []rollup.Row{allRow(d, "hot", "Paris")})
	if err != nil || !slices.Equal(got[0], []int64{1000, 0}) {
		e.t.Fatalf("the other node reads %v, %v; want [1000 0]", got, err)
	}
}

func testPairDuplicate(e *env, other rollup.Store) {
	d := e.define("r")
	e.commit(d, event("a", "c", "", 1, 0))
	err := other.Commit(e.ctx, d, e.batch(d, event("a", "c", "", 1, 0), event("b", "c", "", 1, 0)), now)
	if dup, ok := rollup.IsDuplicate(err); !ok || !slices.Equal(dup.Committed, []string{"a"}) {
		e.t.Fatalf("the other node's Commit of a again: %v, want ErrDuplicate{a}", err)
	}
	if err := other.Commit(e.ctx, d, e.batch(d, event("b", "c", "", 1, 0)), now); err != nil {
		e.t.Fatal(err)
	}
	e.commit(d, event("c", "c", "", 1, 0)) // the first node, after the other committed
	e.wantRow(d, allRow(d, "c", ""), []int64{3, 0})
}

// testPairEvolved: a rollup gains a metric and a dimension; one node
// commits with the new version, the other still with the old one (it has
// not reloaded the definition yet), to the same rows, in turn and each
// twice. The old metrics count every event; the new ones only those of
// the new version, and the old version's commits never lose them.
func testPairEvolved(e *env, other rollup.Store) {
	v1 := e.define("r")
	var v2 rollup.Definition
	if err := json.Unmarshal(fmt.Appendf(nil, definitionJSON, "r"), &v2); err != nil {
		e.t.Fatal(err)
	}
	v2.Metrics = append(v2.Metrics, "shares")
	v2.Dimensions = append(v2.Dimensions, "country")
	if err := v2.Normalize(); err != nil {
		e.t.Fatal(err)
	}
	v2.Account = e.account
	// The new parts start before the events' time (an hour before now):
	// they count them.
	if !v2.Evolve(v1, now.Add(-2*time.Hour)) {
		e.t.Fatal("adding a metric and a dimension is refused")
	}
	if err := e.s.PutDefinition(e.ctx, &v2); err != nil {
		e.t.Fatal(err)
	}
	newer := func(id string, shares int64) rollup.Event {
		ev := event(id, "c", "Paris", 1, 1)
		ev.Values["country"] = "FR"
		ev.Deltas = append(ev.Deltas, shares)
		return ev
	}
	for i := range 2 {
		e.commit(&v2, newer(fmt.Sprint("new", i), 5))
		if err := other.Commit(e.ctx, v1, e.batch(v1, event(fmt.Sprint("old", i), "c", "Paris", 2, 0)), now); err != nil {
			e.t.Fatalf("the old version's Commit: %v", err)
		}
	}
	e.wantRow(&v2, allRow(&v2, "c", ""), []int64{6, 2, 10})
	e.wantRow(&v2, allRow(&v2, "c", "Paris"), []int64{6, 2, 10})
	country := rollup.Row{Scope: 0, Key: "c", Unit: rollup.All, Dim: v2.DimensionIDs[1], Value: "FR"}
	e.wantRow(&v2, country, []int64{2, 2, 10})
	e.wantRow(v1, allRow(v1, "c", "Paris"), []int64{6, 2}) // the old version reads its own metrics
}

func testPairTrigger(e *env, other rollup.Store) {
	d := e.defineWithTrigger("r", 500)
	e.commitConcurrently(d, "Paris", e.s, other)
	e.wantOneFiringCrossing500(d)
}

// testWindowTrigger: "≥ 10 plays within 5 minutes" fires when a commit
// brings the sum of the 5 minute buckets ending at a bucket it changed to
// 10, once per last bucket, across batches and within one; not while it
// stays above, nor for plays spread wider than the window.
func testWindowTrigger(e *env) {
	d := e.defineWith("r", func(d *rollup.Definition) {
		d.Periods = []rollup.Period{{Unit: rollup.Minute}, {Unit: rollup.All}}
		d.Triggers = []rollup.Trigger{{ID: "burst", Metric: "plays", Scope: map[string]string{"channel": "*"}, Unit: rollup.Minute,
			Window: rollup.Duration(5 * time.Minute), Threshold: 10, TopicARN: "arn:aws:sns:us-east-1:" + e.account + ":alerts"}}
	})
	start := now.Add(-time.Hour).Truncate(time.Minute)
	at := func(id, c string, minute int, plays int64) rollup.Event {
		return rollup.Event{ID: id, Time: start.Add(time.Duration(minute)*time.Minute + time.Second), Values: map[string]string{"channel": c}, Deltas: []int64{plays, 0}}
	}
	// Channel a: 4 + 3 plays in minutes 0 and 1, then 3 in minute 2.
	e.commit(d, at("a1", "a", 0, 4), at("a2", "a", 1, 3))
	if got := e.pending(d); len(got) != 0 {
		e.t.Fatalf("fired at 7 plays: %+v", got)
	}
	e.commit(d, at("a3", "a", 2, 3))
	got := e.pending(d)
	if len(got) != 1 || got[0].Total != 10 || got[0].Scope[0] != "a" || !got[0].Bucket.Equal(start.Add(2*time.Minute)) || got[0].Window != rollup.Duration(5*time.Minute) {
		e.t.Fatalf("firings once the window held 10: %+v", got)
	}
	e.commit(d, at("a4", "a", 3, 1)) // 11 within minutes -1..3: still above, no new crossing
	// One batch: the window ending at minute 9 holds 9; the one ending at
	// 12 holds 18, and held 0 before the batch: a crossing.
	e.commit(d, at("a5", "a", 9, 9), at("a6", "a", 12, 9))
	// Channel b: 5 plays in minute 0, 5 in minute 6: never 10 within 5 minutes.
	e.commit(d, at("b1", "b", 0, 5), at("b2", "b", 6, 5))
	// Channel c: one batch crossing the window's threshold: 6 + 6 in minutes 1 and 3.
	e.commit(d, at("c1", "c", 1, 6), at("c2", "c", 3, 6))
	got = e.pending(d)
	byScope := map[string]int{}
	for _, f := range got {
		byScope[f.Scope[0]]++
	}
	if byScope["a"] != 2 || byScope["b"] != 0 || byScope["c"] != 1 {
		e.t.Fatalf("firings per channel %v, want a: 2 (minutes 2 and 12), b: 0, c: 1: %+v", byScope, got)
	}
}
