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

// cityRollup is a rollup of plays per channel and city, all time.
func cityRollup(t *testing.T) *rollup.Definition {
	t.Helper()
	var d rollup.Definition
	if err := json.Unmarshal([]byte(`{"name": "r", "event": {"id": "id", "time": "time"}, "scopes": [["channel"]],
		"metrics": ["plays", "seconds"], "dimensions": ["city"], "periods": [{"unit": "all"}]}`), &d); err != nil {
		t.Fatal(err)
	}
	if err := d.Normalize(); err != nil {
		t.Fatal(err)
	}
	d.Account, d.ID = "000000000000", uuid.New()
	return &d
}

// commitCities commits 10 batches of 100 events to d, one per city of
// 1,000, each adding (1 play, -2 seconds); IDs are unique per round.
func commitCities(t *testing.T, db *DB, d *rollup.Definition, round int) {
	t.Helper()
	now := time.Now()
	for batch := range 10 {
		b := rollup.NewBatch(d)
		for i := range 100 {
			b.Add(rollup.Event{ID: fmt.Sprintf("%d-%d-%d", round, batch, i), Time: now,
				Values: map[string]string{"channel": "c", "city": fmt.Sprintf("city%04d", batch*100+i)}, Deltas: []int64{1, -2}}, now)
		}
		if err := db.Rollups().Commit(t.Context(), d, b, now); err != nil {
			t.Fatal(err)
		}
	}
}

// wantCities checks the channel's total and three cities after rounds
// of commitCities (and base, added to each row by an older layout).
func wantCities(t *testing.T, db *DB, d *rollup.Definition, rounds, base int64) {
	t.Helper()
	rows := []rollup.Row{{Key: "c", Unit: rollup.All, Dim: rollup.Total}}
	for _, city := range []string{"city0000", "city0500", "city0999"} {
		rows = append(rows, rollup.Row{Key: "c", Unit: rollup.All, Dim: 0, Value: city})
	}
	got, err := db.Rollups().ReadRows(t.Context(), d, rows)
	if err != nil {
		t.Fatal(err)
	}
	total, city := 1000*rounds+base, rounds+base
	for i, r := range got {
		want := city
		if i == 0 {
			want = total
		}
		if len(r) != 2 || r[0] != want || r[1] != -2*want {
			t.Fatalf("row %v = %v, want [%d %d]", rows[i], r, want, -2*want)
		}
	}
}

// TestRollupRowsExactAcrossFlushesAndCompactions: rows written as merges
// of their deltas read exact from the memtable, after a flush, after a
// full compaction (which folds the operands) and after a reopen.
func TestRollupRowsExactAcrossFlushesAndCompactions(t *testing.T) {
	dir := t.TempDir()
	d := cityRollup(t)
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	commitCities(t, db, d, 1)
	wantCities(t, db, d, 1, 0)
	if err := db.pdb.Flush(); err != nil {
		t.Fatal(err)
	}
	commitCities(t, db, d, 2)
	wantCities(t, db, d, 2, 0)
	if err := db.pdb.Compact(t.Context(), []byte{prefixRollupRow}, []byte{prefixRollupRow + 1}, true); err != nil {
		t.Fatal(err)
	}
	wantCities(t, db, d, 2, 0)
	commitCities(t, db, d, 3)
	db.Close()
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantCities(t, db, d, 3, 0)
	commitCities(t, db, d, 4)
	wantCities(t, db, d, 4, 0)
}

// TestOpenAdoptsTheMergerOfAnOlderDB: a DB that an older Herald wrote
// (Pebble's default merge operator in its OPTIONS, rows Set to absolute
// values) opens, and later commits add to those values.
func TestOpenAdoptsTheMergerOfAnOlderDB(t *testing.T) {
	dir := t.TempDir()
	d := cityRollup(t)
	old, err := pebble.Open(dir, &pebble.Options{FormatMajorVersion: pebble.FormatNewest})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		row := rollup.Row{Key: "c", Unit: rollup.All, Dim: 0, Value: fmt.Sprintf("city%04d", i)}
		if err := old.Set(rowKey(d.ID, row), rollup.AppendSums(nil, []int64{5, -10}), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.Set(rowKey(d.ID, rollup.Row{Key: "c", Unit: rollup.All, Dim: rollup.Total}), rollup.AppendSums(nil, []int64{5, -10}), nil); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("open a DB of the default merge operator: %v", err)
	}
	commitCities(t, db, d, 1)
	// base 5 per city; the total's base is 5 too, not 5,000.
	wantCities(t, db, d, 1, 5)
	db.Close()
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	db.Close()
}

// FuzzSumsMerger: merging two rows' encodings either fails (one is not
// varints) or adds them element by element, in either order.
func FuzzSumsMerger(f *testing.F) {
	f.Add(rollup.AppendSums(nil, []int64{1, -2, 3}), rollup.AppendSums(nil, []int64{4, 5}))
	f.Add([]byte{0x80}, []byte{})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		key := []byte{prefixRollupRow, 1}
		sum := func(first, second []byte) ([]byte, error) {
			m, err := merger.Merge(key, first)
			if err != nil {
				return nil, err
			}
			if err := m.MergeNewer(second); err != nil {
				return nil, err
			}
			v, _, err := m.Finish(true)
			return v, err
		}
		ab, errAB := sum(a, b)
		ba, errBA := sum(b, a)
		if (errAB == nil) != (errBA == nil) {
			t.Fatalf("a+b error %v, b+a error %v", errAB, errBA)
		}
		if errAB != nil {
			return
		}
		if string(ab) != string(ba) {
			t.Fatalf("a+b %x != b+a %x", ab, ba)
		}
		n := len(a) + len(b) // at least as many as either has metrics
		x, okA := rollup.DecodeSums(a, n)
		y, okB := rollup.DecodeSums(b, n)
		z, okZ := rollup.DecodeSums(ab, n)
		if !okA || !okB || !okZ {
			t.Fatalf("merged although not varints: %x %x", a, b)
		}
		for i := range z {
			if z[i] != x[i]+y[i] {
				t.Fatalf("sum %d = %d, want %d + %d", i, z[i], x[i], y[i])
			}
		}
	})
}
