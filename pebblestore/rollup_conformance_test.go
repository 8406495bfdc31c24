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
