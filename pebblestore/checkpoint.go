package pebblestore

import (
	"context"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Checkpoint writes a consistent copy of the store into dir, which must not
// exist yet, while the store goes on serving: Pebble hard-links the
// immutable table files (or copies them across file systems) and copies
// the WAL, the MANIFEST and the OPTIONS, after syncing the WAL so that
// every write acknowledged before the call (SQS writes included, which are
// synced lazily) is in the copy. The copy is a data directory Open accepts,
// with an epoch of its own (Epoch): restoring it changes the epoch.
func (db *DB) Checkpoint(ctx context.Context, dir string) error {
	if err := db.enter(ctx, "checkpoint"); err != nil {
		return err
	}
	defer db.leave()
	if err := db.pdb.Checkpoint(dir, pebble.WithFlushedWAL()); err != nil {
		return fmt.Errorf("pebblestore: checkpoint into %s: %w", dir, err)
	}
	if err := renewEpoch(dir, db.opts); err != nil {
		return fmt.Errorf("pebblestore: new epoch for the checkpoint in %s: %w", dir, err)
	}
	return nil
}
