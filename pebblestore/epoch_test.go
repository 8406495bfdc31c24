package pebblestore

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/heraldmq/herald/cache"
)

// TestEpochKeptAcrossReopenAndNewInCheckpoint: a restart keeps the store's
// epoch; a checkpoint (a backup) carries a new one, and the store it was
// taken from keeps its own.
func TestEpochKeptAcrossReopenAndNewInCheckpoint(t *testing.T) {
	dir := t.TempDir()
	c := newClock(t0)
	db, err := Open(dir, Options{Now: c.Now, ReapInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	first := db.Epoch()
	if !cache.ValidEpoch(first) {
		t.Fatalf("Epoch() = %q", first)
	}
	m := msg(t0, t0, time.Hour, "ep.a")
	put(t, db, m)
	backup := filepath.Join(t.TempDir(), "backup")
	if err := db.Checkpoint(ctx, backup); err != nil {
		t.Fatal(err)
	}
	if got := db.Epoch(); got != first {
		t.Errorf("Epoch() after Checkpoint = %q, want %q unchanged", got, first)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	if got := openDBIn(t, dir, c, Options{}).Epoch(); got != first {
		t.Errorf("Epoch() after reopening = %q, want %q", got, first)
	}
	restored := openDBIn(t, backup, c, Options{})
	if got := restored.Epoch(); got == first || !cache.ValidEpoch(got) {
		t.Errorf("Epoch() of the checkpoint = %q, want a new one (the store's is %q)", got, first)
	}
	if got, err := restored.GetMessages(ctx, msgIDs(m)); err != nil || got[0] == nil {
		t.Errorf("the checkpoint lacks the message written before it: %v %v", got, err)
	}
}
