package pebblestore

import (
	"errors"
	"fmt"

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
	v, closer, err := pdb.Get(keyEpoch)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		e := cache.NewEpoch()
		if err := pdb.Set(keyEpoch, []byte(e), pebble.Sync); err != nil {
			return "", err
		}
		return e, nil
	case err != nil:
		return "", err
	}
	defer closer.Close()
	if !cache.ValidEpoch(string(v)) {
		return "", fmt.Errorf("pebblestore: stored epoch %q is malformed", v)
	}
	return string(v), nil
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
