package pebblestore

import (
	"context"

	"github.com/cockroachdb/pebble/v2"
)

// maxPointDeletes is how many keys a prefix may hold and still be deleted
// key by key. Below it, point tombstones are cheaper than a range
// tombstone: many range tombstones (one per deleted queue) slow every
// read and compaction that overlaps them, while a few point tombstones
// cost no more than the keys they replace.
const maxPointDeletes = 64

// deletePrefix adds to b the deletion of every key starting with prefix.
// It scans at most limit+1 keys of the prefix: if it finds no more than
// limit, it deletes exactly those, one by one; otherwise it deletes the
// whole range with one range tombstone. Keys written under prefix after
// the scan but before b commits are deleted only in the second case.
func deletePrefix(ctx context.Context, db *DB, b *pebble.Batch, prefix []byte, limit int) error {
	end := prefixEnd(prefix)
	keys, fits, err := prefixKeysUpTo(ctx, db, prefix, end, limit)
	if err != nil {
		return err
	}
	if !fits {
		return b.DeleteRange(prefix, end, nil)
	}
	for _, k := range keys {
		if err := b.Delete(k, nil); err != nil {
			return err
		}
	}
	return nil
}

// prefixKeysUpTo returns copies of the keys of [lo, hi) if there are at
// most limit of them; fits is false (and keys nil) when there are more.
func prefixKeysUpTo(ctx context.Context, db *DB, lo, hi []byte, limit int) (keys [][]byte, fits bool, err error) {
	it, err := db.newIter(ctx, lo, hi)
	if err != nil {
		return nil, false, err
	}
	fits = true
	for valid := it.First(); valid; valid = it.Next() {
		if len(keys) == limit {
			keys, fits = nil, false
			break
		}
		keys = append(keys, append([]byte(nil), it.Key()...))
	}
	if err := closeIter(it, nil); err != nil {
		return nil, false, err
	}
	return keys, fits, nil
}
