package pebblestore

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// loadOrCreate returns the metadata value at key, storing (synced) the one
// made by create when there is none yet; valid checks what is read back.
func loadOrCreate(pdb *pebble.DB, key []byte, create func() []byte, valid func([]byte) bool) ([]byte, error) {
	v, closer, err := pdb.Get(key)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		v := create()
		if err := pdb.Set(key, v, pebble.Sync); err != nil {
			return nil, err
		}
		return v, nil
	case err != nil:
		return nil, err
	}
	defer closer.Close()
	if !valid(v) {
		return nil, fmt.Errorf("pebblestore: the value stored at %q is malformed", key[1:])
	}
	return append([]byte(nil), v...), nil
}
