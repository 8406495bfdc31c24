package pebblestore

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/rollup"
	"github.com/heraldmq/herald/rollup/rolluptest"
)

func TestRollupStoreConformance(t *testing.T) {
	rolluptest.RunStore(t, func(t *testing.T) rollup.Store {
		db, err := Open(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.Rollups()
	})
}

// TestRollupRowsAfterReopen: the row cache starts from the rows on disk,
// so commits after a restart add to them.
func TestRollupRowsAfterReopen(t *testing.T) {
	dir := t.TempDir()
	var d rollup.Definition
	if err := json.Unmarshal([]byte(`{"name": "r", "event": {"id": "id", "time": "time"}, "scopes": [["channel"]],
		"metrics": ["plays"], "periods": [{"unit": "all"}]}`), &d); err != nil {
		t.Fatal(err)
	}
	if err := d.Normalize(); err != nil {
		t.Fatal(err)
	}
	d.Account, d.ID = "000000000000", uuid.New()
	now := time.Now()
	commit := func(db *DB, id string) {
		t.Helper()
		b := rollup.NewBatch(&d)
		b.Add(rollup.Event{ID: id, Time: now, Values: map[string]string{"channel": "c"}, Deltas: []int64{1}}, now)
		if err := db.Rollups().Commit(t.Context(), &d, b, now); err != nil {
			t.Fatal(err)
		}
	}
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	commit(db, "a")
	commit(db, "b")
	db.Close()
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	commit(db, "c")
	got, err := db.Rollups().ReadRows(t.Context(), &d, []rollup.Row{{Key: "c", Unit: rollup.All, Dim: rollup.Total}})
	if err != nil || len(got) != 1 || len(got[0]) != 1 || got[0][0] != 3 {
		t.Fatalf("plays after a reopen = %v, %v; want 3", got, err)
	}
}

// TestRollupEventRecordsReaped: the record of a committed event goes once
// its dedup window ended, unless the event was committed again since.
func TestRollupEventRecordsReaped(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	db, err := Open(t.TempDir(), Options{Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var d rollup.Definition
	if err := json.Unmarshal([]byte(`{"name": "r", "event": {"id": "id", "time": "time"}, "scopes": [["channel"]],
		"metrics": ["plays"], "periods": [{"unit": "all"}], "dedup_window": "10m"}`), &d); err != nil {
		t.Fatal(err)
	}
	if err := d.Normalize(); err != nil {
		t.Fatal(err)
	}
	d.Account, d.ID = "000000000000", uuid.New()
	st := db.Rollups().(*RollupStore)
	commit := func(at time.Time, ids ...string) {
		t.Helper()
		b := rollup.NewBatch(&d)
		for _, id := range ids {
			b.Add(rollup.Event{ID: id, Time: at, Values: map[string]string{"channel": "c"}, Deltas: []int64{1}}, at)
		}
		if err := st.Commit(t.Context(), &d, b, at); err != nil {
			t.Fatal(err)
		}
	}
	commit(clock, "a", "b")
	commit(clock.Add(5*time.Minute), "c")
	clock = clock.Add(11 * time.Minute) // a and b expired, c not
	commit(clock, "a")                  // a again, after its window: a new record
	n, err := st.ReapExpired(t.Context())
	if err != nil || n != 1 {
		t.Fatalf("ReapExpired = %d, %v; want 1 (b)", n, err)
	}
	got, err := st.Committed(t.Context(), &d, 0, []rollup.EventKey{{ID: "a"}, {ID: "b"}, {ID: "c"}}, clock)
	if err != nil || !got["a"] || got["b"] || !got["c"] {
		t.Fatalf("Committed after the reap = %v, %v; want a and c", got, err)
	}
	if v, found, _ := get(db, rollupEventKey(d.ID, "b"), func(v []byte) ([]byte, error) { return v, nil }); found {
		t.Fatalf("b's record is still there: %x", v)
	}
	clock = clock.Add(11 * time.Minute)
	if n, err := st.ReapExpired(t.Context()); err != nil || n != 2 {
		t.Fatalf("second ReapExpired = %d, %v; want 2 (a, c)", n, err)
	}
}

// TestRollupStorePairConformance: one process owns the DB, so its "two
// nodes" are one store.
func TestRollupStorePairConformance(t *testing.T) {
	rolluptest.RunStorePair(t, func(t *testing.T) (rollup.Store, rollup.Store) {
		db, err := Open(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.Rollups(), db.Rollups()
	})
}
