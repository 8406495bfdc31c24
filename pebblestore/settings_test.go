package pebblestore

import (
	"testing"

	"github.com/heraldmq/herald/limits"
	"github.com/heraldmq/herald/limits/limitstest"
)

// TestSettings: the settings (limits.Store) survive a close and reopen.
func TestSettings(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{ReapInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	reopened := false
	limitstest.Store(t, db, func() limits.Store {
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		reopened = true
		db = openDBIn(t, dir, nil, Options{})
		return db
	})
	if !reopened {
		t.Fatal("the suite did not reopen the store")
	}
}
