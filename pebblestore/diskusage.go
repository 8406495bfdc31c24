package pebblestore

import "context"

// DiskUsage returns the bytes the store occupies on disk (its tables,
// write-ahead log and manifests, as Pebble counts them), or an error once
// the store is closed.
func (db *DB) DiskUsage(ctx context.Context) (uint64, error) {
	if err := db.enter(ctx, "disk usage"); err != nil {
		return 0, err
	}
	defer db.leave()
	return db.pdb.Metrics().DiskSpaceUsage(), nil
}
