package pebblestore

import (
	"crypto/rand"
	"errors"

	"github.com/heraldmq/herald"
)

// secretLen is the size of a secret Secret makes.
const secretLen = 32

// Secret returns the store's secret of that name: 32 random bytes made
// the first time it is asked for and kept in the store (metadata key
// "secret/<name>"), so that a restart, or a backup restored, keeps them.
// Herald keys its SQS receipt handles with one when no secret is
// configured.
func (db *DB) Secret(name string) ([]byte, error) {
	const op = "secret"
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return nil, herald.Unavailable(op, errors.New("pebblestore: closed"))
	}
	key := append(append([]byte{prefixMeta}, "secret/"...), name...)
	v, err := loadOrCreate(db.pdb, key,
		func() []byte {
			s := make([]byte, secretLen)
			_, _ = rand.Read(s) // crypto/rand.Read never fails
			return s
		},
		func(v []byte) bool { return len(v) == secretLen })
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return v, nil
}
