package rollup

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// evolveBase is videoJSON's shape with a trigger on its drill-down.
const evolveBase = `{
  "name": "video",
  "event": {"id": "id", "time": "time"},
  "scopes": [["channel"], ["channel", "video"]],
  "metrics": ["plays", "viewers"],
  "dimensions": ["country", "city", "site"],
  "drilldowns": [["city", "site"]],
  "periods": [{"unit": "hour"}, {"unit": "day", "retention": "400d"}, {"unit": "all"}],
  "triggers": [{"id": "busy", "scope": {"channel": "*"}, "unit": "all", "dimension": "city/site", "value": "Paris/s1", "metric": "plays", "threshold": 10,
    "topic_arn": "arn:aws:sns:us-east-1:000000000000:alerts"}]
}`

// edited is evolveBase decoded, changed by edit, normalized.
func edited(t *testing.T, edit func(m map[string]any)) *Definition {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(evolveBase), &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, _ := json.Marshal(m)
	return parseDef(t, string(b))
}

func TestEvolveAddsParts(t *testing.T) {
	at := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	old := parseDef(t, evolveBase)
	old.ID, old.Created = [16]byte{1}, at.Add(-time.Hour)
	next := edited(t, func(m map[string]any) {
		m["metrics"] = []string{"plays", "viewers", "shares"}
		m["dimensions"] = []string{"country", "city", "site", "hour"}
		m["drilldowns"] = [][]string{{"city", "site"}, {"country", "hour"}}
		m["computed"] = []map[string]any{{"name": "hour", "fn": "hour_of_day"}}
	})
	if !next.Evolve(old, at) {
		t.Fatal("adding a metric, a computed dimension and a drill-down is refused")
	}
	if next.ID != old.ID || !next.Created.Equal(old.Created) {
		t.Errorf("the evolved rollup is %v created %v, want %v created %v", next.ID, next.Created, old.ID, old.Created)
	}
	// The old rollup numbered its dimensions 0-2 and its drill-down 3:
	// those stay, the new ones come after.
	if !slices.Equal(next.DimensionIDs, []int{0, 1, 2, 4}) || !slices.Equal(next.DrillDownIDs, []int{3, 5}) {
		t.Errorf("row numbers: dimensions %v, drill-downs %v; want [0 1 2 4], [3 5]", next.DimensionIDs, next.DrillDownIDs)
	}
	want := map[string]time.Time{"metrics.shares": at, "dimensions.hour": at, "drilldowns.country/hour": at}
	if len(next.Added) != len(want) {
		t.Errorf("added %v, want %v", next.Added, want)
	}
	for k, v := range want {
		if !next.Added[k].Equal(v) {
			t.Errorf("added[%s] = %v, want %v", k, next.Added[k], v)
		}
	}
	// Every row the old definition counts an event in, the new one counts
	// it in too, by the same number; the new ones have numbers of their own.
	body := `{"id": "1", "time": "2026-12-07T08:30:00Z", "channel": "c", "video": "v", "country": "FR", "city": "Paris", "site": "s1", "plays": 1}`
	rows := func(d *Definition) map[Row]bool {
		out := map[Row]bool{}
		d.Expand(parseOne(t, d, body), at, func(r Row) { out[r] = true })
		return out
	}
	before, after := rows(old), rows(next)
	for r := range before {
		if !after[r] {
			t.Errorf("row %+v of the old definition is not one of the new's", r)
		}
	}
	if got, want := len(after)-len(before), 2*3*2; got != want { // 2 scopes × 3 periods × (hour, country/hour)
		t.Errorf("the new definition counts %d rows more, want %d", got, want)
	}
	// The trigger on the old drill-down still watches its rows.
	var watched Row
	for r := range before {
		if r.Dim == 3 && r.Unit == All && r.Scope == 0 {
			watched = r
		}
	}
	if f, _ := next.Crossings(watched, []int64{9, 0}, []int64{10, 0, 0}, at, nil); len(f) != 1 {
		t.Errorf("the trigger on city/site fired %d times on its row after the rollup evolved, want 1", len(f))
	}
	// Evolving again numbers after the largest, and keeps the first additions.
	later := at.Add(time.Hour)
	third := next.Clone()
	third.Dimensions = append(third.Dimensions, "weekday")
	third.Computed = append(third.Computed, Computed{Name: "weekday", Fn: FnDayOfWeek})
	third.DimensionIDs, third.DrillDownIDs, third.Added = nil, nil, nil
	if err := third.Normalize(); err != nil {
		t.Fatal(err)
	}
	if !third.Evolve(next, later) || !slices.Equal(third.DimensionIDs, []int{0, 1, 2, 4, 6}) ||
		!third.Added["dimensions.weekday"].Equal(later) || !third.Added["metrics.shares"].Equal(at) {
		t.Errorf("evolved again: ids %v %v, added %v", third.DimensionIDs, third.DrillDownIDs, third.Added)
	}
}

// Adding only metrics keeps a rollup's rows numbered by position, as
// every rollup was before rollups could evolve.
func TestEvolveMetricsOnlyKeepsPositions(t *testing.T) {
	old := parseDef(t, evolveBase)
	next := edited(t, func(m map[string]any) { m["metrics"] = []string{"plays", "viewers", "shares"} })
	if !next.Evolve(old, time.Now()) || next.DimensionIDs != nil || next.DrillDownIDs != nil || len(next.Added) != 1 {
		t.Errorf("metrics only: ids %v %v, added %v", next.DimensionIDs, next.DrillDownIDs, next.Added)
	}
	same := parseDef(t, evolveBase)
	if !same.Evolve(old, time.Now()) || same.Added != nil || same.DimensionIDs != nil {
		t.Errorf("the same shape: ids %v, added %v", same.DimensionIDs, same.Added)
	}
}

func TestEvolveRefusesOtherChanges(t *testing.T) {
	old := parseDef(t, evolveBase)
	for name, edit := range map[string]func(m map[string]any){
		"a metric removed":     func(m map[string]any) { m["metrics"] = []string{"plays"} },
		"metrics reordered":    func(m map[string]any) { m["metrics"] = []string{"viewers", "plays"} },
		"a dimension inserted": func(m map[string]any) { m["dimensions"] = []string{"lang", "country", "city", "site"} },
		"a dimension removed": func(m map[string]any) {
			m["dimensions"] = []string{"country", "city", "site"}[:2]
			delete(m, "drilldowns")
			delete(m, "triggers")
		},
		"a scope added": func(m map[string]any) { m["scopes"] = [][]string{{"channel"}, {"channel", "video"}, {"video"}} },
		"a period added": func(m map[string]any) {
			m["periods"] = []map[string]string{{"unit": "hour"}, {"unit": "day"}, {"unit": "all"}, {"unit": "month"}}
		},
		"the time zone":         func(m map[string]any) { m["time_zone"] = "Europe/Paris" },
		"the dedup window":      func(m map[string]any) { m["dedup_window"] = "1d" },
		"the event's id member": func(m map[string]any) { m["event"] = map[string]string{"id": "uid", "time": "time"} },
		"a drill-down inserted": func(m map[string]any) { m["drilldowns"] = [][]string{{"country", "city"}, {"city", "site"}} },
	} {
		next := edited(t, edit)
		before, _ := json.Marshal(next)
		if next.Evolve(old, time.Now()) {
			t.Errorf("%s: evolved", name)
		}
		if after, _ := json.Marshal(next); string(after) != string(before) {
			t.Errorf("%s: refused, yet changed:\n%s\n%s", name, before, after)
		}
	}
}

// Stored row numbers are checked; a definition from a client never
// carries them (the Service refuses them).
func TestDimensionIDsChecked(t *testing.T) {
	for _, ids := range []string{`"dimension_ids": [0, 1], "drilldown_ids": [3]`, `"dimension_ids": [0, 1, 1], "drilldown_ids": [3]`,
		`"dimension_ids": [0, 1, 2], "drilldown_ids": [5000]`, `"dimension_ids": [0, 1, 2]`} {
		var d Definition
		if err := json.Unmarshal([]byte(strings.Replace(evolveBase, `"name": "video",`, `"name": "video", `+ids+`,`, 1)), &d); err != nil {
			t.Fatal(err)
		}
		if err := d.Normalize(); err == nil || !strings.Contains(err.Error(), "dimension_ids:") {
			t.Errorf("%s: %v, want a dimension_ids error", ids, err)
		}
	}
}

// A row written by a newer version keeps the sums of the metrics it
// added when a writer holding the older version decodes it.
func TestDecodeSumsKeep(t *testing.T) {
	b := AppendSums(nil, []int64{1, -2, 3})
	if got, ok := DecodeSumsKeep(b, 2); !ok || !slices.Equal(got, []int64{1, -2, 3}) {
		t.Errorf("DecodeSumsKeep(3 sums, 2) = %v, %v", got, ok)
	}
	if got, ok := DecodeSumsKeep(b, 5); !ok || !slices.Equal(got, []int64{1, -2, 3, 0, 0}) {
		t.Errorf("DecodeSumsKeep(3 sums, 5) = %v, %v", got, ok)
	}
	if got, ok := DecodeSums(b, 2); !ok || !slices.Equal(got, []int64{1, -2}) {
		t.Errorf("DecodeSums(3 sums, 2) = %v, %v", got, ok)
	}
	if _, ok := DecodeSumsKeep([]byte{0x80}, 1); ok {
		t.Error("a truncated varint decoded")
	}
}

// Live counting and a backfill split every event between them: a rollup
// that gained parts, fed the same events live and then by a backfill,
// holds what a rollup defined with its final shape from the start holds,
// whatever the events' times and the parts' starts.
func TestLiveAndBackfillCountEachCellOnce(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	old := parseDef(t, evolveBase)
	mid := edited(t, func(m map[string]any) { m["metrics"] = []string{"plays", "viewers", "shares"} })
	if !mid.Evolve(old, t0) {
		t.Fatal("refused")
	}
	final := edited(t, func(m map[string]any) {
		m["metrics"] = []string{"plays", "viewers", "shares"}
		m["dimensions"] = []string{"country", "city", "site", "lang"}
		m["drilldowns"] = [][]string{{"city", "site"}, {"lang", "city"}}
	})
	grown := final.Clone()
	if !grown.Evolve(mid, t0.Add(30*time.Minute)) {
		t.Fatal("refused")
	}
	final.DimensionIDs, final.DrillDownIDs = grown.DimensionIDs, grown.DrillDownIDs // the same rows, numbered alike
	if err := final.Normalize(); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(2 * time.Hour)
	live, backfill, want := NewBatch(grown), NewBatch(grown), NewBatch(final)
	for i := range 12 { // every 10 minutes from 8:30: before, between and after the two starts
		at := t0.Add(time.Duration(i*10-30) * time.Minute)
		body := fmt.Sprintf(`{"id": "%d", "time": %q, "channel": "c", "video": "v", "country": "FR", "city": "Paris", "site": "s1", "lang": "fr", "plays": %d, "viewers": 1, "shares": %d}`,
			i, at.Format(time.RFC3339), i+1, 2*i+1)
		e := parseOne(t, grown, body)
		live.Add(e, now)
		backfill.AddBackfill(e, now)
		want.Add(parseOne(t, final, body), now)
	}
	got := map[Row][]int64{}
	for _, b := range []*Batch{live, backfill} {
		for r, sums := range b.Rows() {
			if got[r] == nil {
				got[r] = make([]int64, len(sums))
			}
			for i, x := range sums {
				got[r][i] += x
			}
		}
	}
	if len(got) != len(want.Rows()) {
		t.Errorf("live and backfill hold %d rows, the final shape %d", len(got), len(want.Rows()))
	}
	for r, sums := range want.Rows() {
		if !slices.Equal(got[r], sums) {
			t.Errorf("row %+v: live + backfill %v, the final shape %v", r, got[r], sums)
		}
	}
	// The backfill alone adds nothing the live counting took.
	for r, sums := range backfill.Rows() {
		if r.Dim == Total && sums[0] != 0 {
			t.Errorf("the backfill counted plays %d in the total row %+v, which counts every event live", sums[0], r)
		}
	}
}

// A batch of one version takes events read with another: metrics its
// version lacks are left out, missing ones count 0.
func TestBatchTakesEventsOfAnotherVersion(t *testing.T) {
	d := parseDef(t, evolveBase) // plays, viewers
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	b := NewBatch(d)
	e := Event{ID: "1", Time: now.Add(-time.Minute), Values: map[string]string{"channel": "c"}, Deltas: []int64{1, 2, 3}}
	b.Add(e, now)
	short := Event{ID: "2", Time: now.Add(-time.Minute), Values: map[string]string{"channel": "c"}, Deltas: []int64{5}}
	b.Add(short, now)
	for r, sums := range b.Rows() {
		if r.Unit == All && r.Dim == Total && !slices.Equal(sums, []int64{6, 2}) {
			t.Errorf("total row %v, want [6 2]", sums)
		}
	}
}
