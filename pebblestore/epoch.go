package pebblestore

import (
	"github.com/cockroachdb/pebble/v2"

	"github.com/heraldmq/herald/cache"
)

// Epoch names the store's incarnation (cache.Store.Epoch): made when the
// data directory is created, kept across restarts, and made anew in every
// checkpoint (Checkpoint), so that a store restored from a backup, which
// lacks what was written after it, has another epoch than the store its
// clients knew.
func (db *DB) Epoch() string { return db.epoch }

// loadEpoch reads the stored epoch, storing a new one in a new store (or
// in one written before epochs existed).
func loadEpoch(pdb *pebble.DB) (string, error) {
	v, err := loadOrCreate(pdb, keyEpoch,
		func() []byte { return []byte(cache.NewEpoch()) },
		func(v []byte) bool { return cache.ValidEpoch(string(v)) })
	return string(v), err
}

// renewEpoch opens the store copy in dir with o and gives it a new epoch.
func renewEpoch(dir string, o Options) error {
	pdb, err := pebble.Open(dir, o.pebbleOptions())
	if err != nil {
		return err
	}
	if err := pdb.Set(keyEpoch, []byte(cache.NewEpoch()), pebble.Sync); err != nil {
		_ = pdb.Close()
		return err
	}
	return pdb.Close()
}
