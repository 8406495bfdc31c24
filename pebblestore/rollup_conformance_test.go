package pebblestore

import (
	"testing"

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
