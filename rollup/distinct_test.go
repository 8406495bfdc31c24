package rollup

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// visitsJSON counts plays, visitors and first-time visitors.
const visitsJSON = `{
  "name": "visits",
  "event": {"id": "id", "time": "time"},
  "scopes": [["channel"]],
  "metrics": ["plays", "visitors", "new_visitors"],
  "dimensions": ["city"],
  "distinct": [{"metric": "visitors", "of": "viewer", "kind": "distinct"},
    {"metric": "new_visitors", "of": "viewer", "kind": "first_seen"}],
  "periods": [{"unit": "hour"}, {"unit": "day"}, {"unit": "all"}]
}`

func TestDistinctDefinitionChecked(t *testing.T) {
	for _, tc := range []struct{ distinct, want string }{
		{`[{"metric": "views", "of": "viewer", "kind": "distinct"}]`, `distinct[0].metric: "views" is not one of the metrics`},
		{`[{"metric": "visitors", "of": "viewer", "kind": "distinct"}, {"metric": "visitors", "of": "viewer", "kind": "first_seen"}]`, `distinct[1].metric: "visitors" appears twice`},
		{`[{"metric": "visitors", "of": "", "kind": "distinct"}]`, `distinct[0].of: "" is not a member name`},
		{`[{"metric": "visitors", "of": "id", "kind": "distinct"}]`, `distinct[0].of: "id" is event.id`},
		{`[{"metric": "visitors", "of": "plays", "kind": "distinct"}]`, `distinct[0].of: "plays" is a metric`},
		{`[{"metric": "visitors", "of": "viewer", "kind": "unique"}]`, `distinct[0].kind: "unique" is not "distinct" or "first_seen"`},
		{`[{"metric": "visitors", "of": "viewer", "kind": "distinct", "window": "30d"}]`, `window: not a member of a rollup definition`},
	} {
		body := strings.Replace(visitsJSON, visitsDistinct, tc.distinct, 1)
		d, err := decodeDefinition([]byte(body))
		if err == nil {
			err = d.Normalize()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("distinct %s: %v; want %q", tc.distinct, err, tc.want)
		}
	}
	parseDef(t, visitsJSON)
}

// visitsDistinct is visitsJSON's distinct member.
var visitsDistinct = visitsJSON[strings.Index(visitsJSON, `[{"metric"`) : strings.Index(visitsJSON, `}],`)+2]

// A distinct metric never reads a delta: the event's member of its name
// is ignored, its member counted is read as a value.
func TestDistinctMetricReadsNoDelta(t *testing.T) {
	d := parseDef(t, visitsJSON)
	e := parseOne(t, d, `{"id": "1", "time": "2026-12-07T09:00:00Z", "channel": "c", "viewer": 42, "plays": 2, "visitors": 7, "new_visitors": "x"}`)
	if !slices.Equal(e.Deltas, []int64{2, 0, 0}) || e.Values["viewer"] != "42" {
		t.Fatalf("deltas %v, values %v", e.Deltas, e.Values)
	}
}

// memSights is a store of rows and sights in memory, committing batches
// as an engine does (Batch.Resolve against the sights recorded before).
type memSights struct {
	rows   map[Row][]int64
	sights map[Sight]time.Time
}

func newMemSights() *memSights {
	return &memSights{rows: map[Row][]int64{}, sights: map[Sight]time.Time{}}
}

func (m *memSights) commit(b *Batch, now time.Time) {
	known := map[Sight]time.Time{}
	for x := range b.Sights() {
		if t, ok := m.sights[x]; ok {
			known[x] = t
		}
	}
	maps.Copy(m.sights, b.Resolve(known, now))
	for r, sums := range b.Rows() {
		if len(m.rows[r]) < len(sums) { // a version with more metrics
			m.rows[r] = append(m.rows[r], make([]int64, len(sums)-len(m.rows[r]))...)
		}
		for i, x := range sums {
			m.rows[r][i] += x
		}
	}
}

// Resolve is a pure function of the batch and the sights known: a store
// that retries a commit resolves again from the events' own sums.
func TestResolveStartsAgainEachCall(t *testing.T) {
	d := parseDef(t, visitsJSON)
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	b := NewBatch(d)
	b.Add(parseOne(t, d, `{"id": "1", "time": "2026-12-07T10:01:00Z", "channel": "c", "viewer": "ann", "plays": 1}`), now)
	all := Row{Key: "c", Unit: All, Dim: Total}
	for range 2 {
		b.Resolve(nil, now)
		if got := b.Rows()[all]; !slices.Equal(got, []int64{1, 1, 1}) {
			t.Fatalf("resolved against nothing: %v, want [1 1 1]", got)
		}
	}
	b.Resolve(map[Sight]time.Time{
		{Set: all, Metric: 1, Value: "ann"}:                                         now.Add(-time.Hour),
		{Set: Row{Key: "c", Unit: All, Dim: Total}, Metric: 2, Value: "ann"}:        now.Add(-3 * time.Hour), // first seen earlier
		{Set: Row{Key: "c", Unit: Hour, Bucket: 1796637600, Dim: Total}, Metric: 1}: now,                     // another value
	}, now)
	if got := b.Rows()[all]; !slices.Equal(got, []int64{1, 0, 0}) {
		t.Fatalf("resolved against ann seen: %v, want [1 0 0]", got)
	}
}

// A rollup that gains distinct metrics, fed live and then by a backfill,
// holds what one defined with them from the start holds: a value seen
// again (by the backfill, or live before the metric's start) counts
// nothing, and a first sighting the backfill finds earlier moves the
// first_seen count back to it.
func TestGainedDistinctMetricsWithBackfillEqualTheFinalShape(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	old := parseDef(t, `{"name": "visits", "event": {"id": "id", "time": "time"}, "scopes": [["channel"]],
		"metrics": ["plays"], "dimensions": ["city"], "periods": [{"unit": "hour"}, {"unit": "day"}, {"unit": "all"}]}`)
	grown := parseDef(t, visitsJSON)
	if !grown.Evolve(old, t0) {
		t.Fatal("refused")
	}
	final := parseDef(t, visitsJSON)
	now := t0.Add(3 * time.Hour)
	store, want := newMemSights(), newMemSights()
	var bodies []string
	for i := range 18 { // every 10 minutes from 7:30, viewers coming back
		at := t0.Add(time.Duration(i*10-90) * time.Minute)
		bodies = append(bodies, fmt.Sprintf(`{"id": "%d", "time": %q, "channel": "c", "city": %q, "viewer": "v%d", "plays": %d}`,
			i, at.Format(time.RFC3339), []string{"Paris", "Lyon"}[i%2], i%5, i+1))
	}
	// Live: the events before the change were counted by the old version,
	// in commits of three; the rest by the grown one, out of time order.
	for i := 0; i < 9; i += 3 {
		b := NewBatch(old)
		for _, body := range bodies[i : i+3] {
			b.Add(parseOne(t, old, body), now)
		}
		store.commit(b, now)
	}
	for _, i := range []int{14, 9, 17, 10, 12, 11, 16, 13, 15} {
		b := NewBatch(grown)
		b.Add(parseOne(t, grown, bodies[i]), now)
		store.commit(b, now)
	}
	backfill := NewBatch(grown)
	for _, body := range bodies {
		backfill.AddBackfill(parseOne(t, grown, body), now)
	}
	store.commit(backfill, now)
	for _, body := range bodies {
		b := NewBatch(final)
		b.Add(parseOne(t, final, body), now)
		want.commit(b, now)
	}
	for r, sums := range want.rows {
		if !slices.Equal(store.rows[r], sums) {
			t.Errorf("row %+v: live + backfill %v, the final shape %v", r, store.rows[r], sums)
		}
	}
	for r, sums := range store.rows {
		if want.rows[r] == nil && slices.ContainsFunc(sums, func(x int64) bool { return x != 0 }) {
			t.Errorf("row %+v: live + backfill %v, absent from the final shape", r, sums)
		}
	}
	if all := (Row{Key: "c", Unit: All, Dim: Total}); !slices.Equal(want.rows[all], []int64{171, 5, 5}) {
		t.Errorf("the final shape's all-time total %v, want [171 5 5]", want.rows[all])
	}
}
