package pebblestore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/rollup"
)

// Buckets past their retention: every commit that creates a row indexes
// its partition under 'X' by when the partition's bucket leaves its
// period's retention (Definition.KeptUntil). reapBuckets takes the entries
// due, and deletes each partition's rows, unless the rollup's retention
// grew since (then the entry moves to the new time). A commit never
// writes a bucket past its retention (Definition.Expand skips it), so a
// reaped partition is not written again.

// rangeDeleteRows is the most rows of a partition deleted one by one;
// a larger one goes in one range deletion (many range tombstones would
// slow every read).
const rangeDeleteRows = 64

// reapBuckets reaps up to reapChunk due partitions; more says a full chunk
// was taken. n counts the rows deleted.
func (s *RollupStore) reapBuckets(ctx context.Context) (n int, more bool, err error) {
	if err := s.db.enter(ctx, "reap rollup buckets"); err != nil {
		return 0, false, err
	}
	defer s.db.leave()
	now := s.db.now()
	lower := []byte{prefixBucketEnd}
	upper := binary.BigEndian.AppendUint64([]byte{prefixBucketEnd}, uint64(now.UnixMilli()+1))
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return 0, false, herald.Unavailable("reap rollup buckets", err)
	}
	type due struct{ key, owner []byte }
	var entries []due
	for ok := it.First(); ok && len(entries) < reapChunk; ok = it.Next() {
		entries = append(entries, due{bytes.Clone(it.Key()), bytes.Clone(it.Value())})
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return 0, false, herald.Unavailable("reap rollup buckets", err)
	}
	reaped := map[uuid.UUID]bool{}
	for _, e := range entries {
		k, err := s.reapPartition(ctx, e.key, e.owner, now.UnixMilli(), reaped)
		n += k
		if err != nil {
			return n, false, herald.Unavailable("reap rollup buckets", err)
		}
	}
	for id := range reaped {
		s.forgetCache(id) // its cache may hold rows just deleted
	}
	return n, len(entries) == reapChunk, nil
}

// reapPartition handles one due entry (key, owner: account 0x00 name).
func (s *RollupStore) reapPartition(ctx context.Context, key, owner []byte, nowMs int64, reaped map[uuid.UUID]bool) (int, error) {
	pkey := key[9:]
	if len(pkey) < 17 || pkey[0] != prefixRollupRow {
		return 0, s.db.pdb.Delete(key, pebble.NoSync) // not an entry of this layout
	}
	id, _ := uuid.FromBytes(pkey[1:17])
	defer s.locks.lock(id[:])()
	b := s.db.pdb.NewBatch()
	defer b.Close()
	if err := b.Delete(key, nil); err != nil {
		return 0, err
	}
	account, name, _ := strings.Cut(string(owner), "\x00")
	d, found, err := get(s.db, rollupDefKey(account, name), decodeDefinition)
	if err != nil {
		return 0, err
	}
	if found && d.ID == id {
		if p, ok := decodePartition(pkey); ok {
			if until, ok := d.KeptUntil(p.Unit, p.Bucket); ok && until.UnixMilli() > nowMs {
				// The retention grew since: the entry moves.
				if err := b.Set(bucketEndKey(until.UnixMilli(), pkey), owner, nil); err != nil {
					return 0, err
				}
				return 0, b.Commit(pebble.NoSync)
			}
		}
	}
	rows, count, err := s.partitionRows(pkey)
	if err != nil {
		return 0, err
	}
	if len(rows) > rangeDeleteRows {
		err = b.DeleteRange(pkey, prefixEnd(pkey), nil)
	} else {
		for _, r := range rows {
			if err = b.Delete(r, nil); err != nil {
				break
			}
		}
	}
	if err != nil {
		return 0, err
	}
	reaped[id] = true
	return count, b.Commit(pebble.NoSync)
}

// partitionRows counts the rows under pkey and returns the keys of the
// first rangeDeleteRows+1.
func (s *RollupStore) partitionRows(pkey []byte) (keys [][]byte, n int, err error) {
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: pkey, UpperBound: prefixEnd(pkey)})
	if err != nil {
		return nil, 0, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		if n++; len(keys) <= rangeDeleteRows {
			keys = append(keys, bytes.Clone(it.Key()))
		}
	}
	return keys, n, errors.Join(it.Error(), it.Close())
}

// decodePartition reads the unit and bucket of a partition key
// (partitionKey).
func decodePartition(pkey []byte) (rollup.Partition, bool) {
	b := pkey[17:]
	scope, n := binary.Uvarint(b)
	if n <= 0 {
		return rollup.Partition{}, false
	}
	b = b[n:]
	klen, n := binary.Uvarint(b)
	if n <= 0 || uint64(len(b)-n) < klen+9 {
		return rollup.Partition{}, false
	}
	key := string(b[n : n+int(klen)])
	b = b[n+int(klen):]
	if int(b[0]) >= len(rollup.Units) {
		return rollup.Partition{}, false
	}
	return rollup.Partition{Scope: int(scope), Key: key, Unit: rollup.Units[b[0]],
		Bucket: int64(binary.BigEndian.Uint64(b[1:9]) ^ (1 << 63))}, true
}
