package pebblestore

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald/rollup"
)

// TestRollupBucketsReapedPastRetention: a day bucket's rows go once the
// day plus its retention passed (a partition of a few rows and one of
// many alike); all-time rows stay; a retention grown since keeps them.
func TestRollupBucketsReapedPastRetention(t *testing.T) {
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	clock := day.Add(12 * time.Hour)
	db, err := Open(t.TempDir(), Options{Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := db.Rollups().(*RollupStore)
	define := func(retention string) *rollup.Definition {
		t.Helper()
		var d rollup.Definition
		if err := json.Unmarshal(fmt.Appendf(nil, `{"name": "r", "event": {"id": "id", "time": "time"}, "scopes": [["channel"]],
			"metrics": ["plays"], "dimensions": ["city"], "periods": [{"unit": "day", "retention": %q}, {"unit": "all"}]}`, retention), &d); err != nil {
			t.Fatal(err)
		}
		if err := d.Normalize(); err != nil {
			t.Fatal(err)
		}
		d.Account, d.ID = "000000000000", uuid.MustParse("6f1c1d5e-8a4b-4c1e-9a43-0c5e2f1a7b01")
		if err := st.PutDefinition(t.Context(), &d); err != nil {
			t.Fatal(err)
		}
		return &d
	}
	d := define("2d")
	b := rollup.NewBatch(d)
	for i := range 100 { // 100 cities: one partition of 100 rows, one of the channel's total
		b.Add(rollup.Event{ID: fmt.Sprint(i), Time: clock, Values: map[string]string{"channel": "c", "city": fmt.Sprintf("city%03d", i)}, Deltas: []int64{1}}, clock)
	}
	b.Add(rollup.Event{ID: "x", Time: clock, Values: map[string]string{"channel": "small", "city": "Paris"}, Deltas: []int64{1}}, clock)
	if err := st.Commit(t.Context(), d, b, clock); err != nil {
		t.Fatal(err)
	}
	rows := []rollup.Row{
		{Key: "c", Unit: rollup.Day, Bucket: day.Unix(), Dim: rollup.Total},
		{Key: "c", Unit: rollup.Day, Bucket: day.Unix(), Dim: 0, Value: "city042"},
		{Key: "small", Unit: rollup.Day, Bucket: day.Unix(), Dim: 0, Value: "Paris"},
		{Key: "c", Unit: rollup.All, Dim: rollup.Total},
	}
	want := func(when string, expect ...int64) {
		t.Helper()
		got, err := st.ReadRows(t.Context(), d, rows)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range expect {
			var v int64 = -1 // absent
			if got[i] != nil {
				v = got[i][0]
			}
			if v != w {
				t.Fatalf("%s: row %+v = %d, want %d (-1: absent)", when, rows[i], v, w)
			}
		}
	}
	reap := func() int { // the rows reaped (not the event records ReapExpired also reaps)
		t.Helper()
		total := 0
		for {
			n, more, err := st.reapBuckets(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if total += n; !more {
				return total
			}
		}
	}
	end := day.Add(24*time.Hour + 48*time.Hour) // the day's end plus 2 days
	clock = end.Add(-time.Millisecond)
	if n := reap(); n != 0 {
		t.Fatalf("reaped %d rows before the retention ended", n)
	}
	want("before the end", 100, 1, 1, 100)
	d = define("4d") // the retention grows: the day stays 2 more days
	clock = end
	if n := reap(); n != 0 {
		t.Fatalf("reaped %d rows of a retention grown since", n)
	}
	want("after the first end, retention grown", 100, 1, 1, 100)
	clock = end.Add(48 * time.Hour)
	if n := reap(); n != 100+1+1+1 { // 100 cities and the total of c, Paris and the total of small
		t.Fatalf("reaped %d rows, want 103", n)
	}
	want("past the retention", -1, -1, -1, 100)
	b = rollup.NewBatch(d)
	b.Add(rollup.Event{ID: "late", Time: clock, Values: map[string]string{"channel": "c"}, Deltas: []int64{1}}, clock)
	if err := st.Commit(t.Context(), d, b, clock); err != nil {
		t.Fatal(err)
	}
	want("after a commit", -1, -1, -1, 101)
}

// TestRollupSightsReapedWithTheirBucket: the values a distinct metric saw
// in a day bucket go with the day's rows; those of all-time sets (the
// first_seen series) stay.
func TestRollupSightsReapedWithTheirBucket(t *testing.T) {
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	clock := day.Add(12 * time.Hour)
	db, err := Open(t.TempDir(), Options{Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := db.Rollups().(*RollupStore)
	var d rollup.Definition
	if err := json.Unmarshal([]byte(`{"name": "r", "event": {"id": "id", "time": "time"}, "scopes": [["channel"]],
		"metrics": ["visitors", "new"], "distinct": [{"metric": "visitors", "of": "viewer", "kind": "distinct"},
		{"metric": "new", "of": "viewer", "kind": "first_seen"}], "periods": [{"unit": "day", "retention": "2d"}]}`), &d); err != nil {
		t.Fatal(err)
	}
	if err := d.Normalize(); err != nil {
		t.Fatal(err)
	}
	d.Account, d.ID = "000000000000", uuid.MustParse("6f1c1d5e-8a4b-4c1e-9a43-0c5e2f1a7b02")
	if err := st.PutDefinition(t.Context(), &d); err != nil {
		t.Fatal(err)
	}
	b := rollup.NewBatch(&d)
	for i := range 10 {
		b.Add(rollup.Event{ID: fmt.Sprint(i), Time: clock, Values: map[string]string{"channel": "c", "viewer": fmt.Sprint("v", i)}, Deltas: []int64{0, 0}}, clock)
	}
	if err := st.Commit(t.Context(), &d, b, clock); err != nil {
		t.Fatal(err)
	}
	sights := func() (bucketed, allTime int) {
		t.Helper()
		prefix := rollupPrefix(prefixSight, d.ID)
		it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		for ok := it.First(); ok; ok = it.Next() {
			if u, _, _ := rowBucket(it.Key()); u == unitByte(rollup.All) {
				allTime++
			} else {
				bucketed++
			}
		}
		return bucketed, allTime
	}
	if b, a := sights(); b != 10 || a != 10 {
		t.Fatalf("%d sights in the day and %d all-time; want 10 and 10", b, a)
	}
	clock = day.Add(72 * time.Hour)
	for more := true; more; {
		if _, more, err = st.reapBuckets(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if b, a := sights(); b != 0 || a != 10 {
		t.Fatalf("past the day's retention: %d sights in the day and %d all-time; want 0 and 10", b, a)
	}
}
