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

// Buckets past their retention: a commit that creates rows indexes their
// buckets under 'X' (one key per rollup, unit and bucket) by when each
// leaves its period's retention (Definition.KeptUntil). reapBuckets takes
// the entries due and deletes the rows of those buckets, one scan of each
// rollup's rows for all its due buckets, unless the rollup's retention
// grew since (then the entry moves to the new time). A commit never
// writes a bucket past its retention (Definition.Expand skips it), so a
// reaped bucket is not written again.

// reapDeletes is the most row deletions in one batch of the bucket reaper.
const reapDeletes = 1000

// dueBucket is one bucket of a rollup due for reaping.
type dueBucket struct {
	unit  byte
	start int64
}

// reapBuckets reaps up to reapChunk due buckets; more says a full chunk
// was taken. n counts the rows deleted.
func (s *RollupStore) reapBuckets(ctx context.Context) (n int, more bool, err error) {
	if err := s.db.enter(ctx, "reap rollup buckets"); err != nil {
		return 0, false, err
	}
	defer s.db.leave()
	nowMs := s.db.now().UnixMilli()
	lower := []byte{prefixBucketEnd}
	upper := binary.BigEndian.AppendUint64([]byte{prefixBucketEnd}, uint64(nowMs+1))
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return 0, false, herald.Unavailable("reap rollup buckets", err)
	}
	due := map[uuid.UUID]map[dueBucket]bool{}
	taken := 0
	for ok := it.First(); ok && taken < reapChunk; ok = it.Next() {
		taken++
		id, bk, keep, err := s.dueEntry(it.Key(), it.Value(), nowMs)
		if err != nil {
			it.Close()
			return 0, false, herald.Unavailable("reap rollup buckets", err)
		}
		if keep {
			if due[id] == nil {
				due[id] = map[dueBucket]bool{}
			}
			due[id][bk] = true
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return 0, false, herald.Unavailable("reap rollup buckets", err)
	}
	for id, buckets := range due {
		k, err := s.reapRows(id, buckets)
		n += k
		if err != nil {
			return n, false, herald.Unavailable("reap rollup buckets", err)
		}
	}
	return n, taken == reapChunk, nil
}

// dueEntry handles one due entry (key, owner: account 0x00 name): it
// deletes it, or moves it when the rollup's retention grew since, and
// says which bucket of which rollup to reap (reap false: none, the entry
// moved or its rollup is gone with its rows).
func (s *RollupStore) dueEntry(key, owner []byte, nowMs int64) (id uuid.UUID, bk dueBucket, reap bool, err error) {
	b := s.db.pdb.NewBatch()
	defer b.Close()
	if err := b.Delete(key, nil); err != nil {
		return id, bk, false, err
	}
	if len(key) != 1+8+16+1+8 || int(key[25]) >= len(rollup.Units) {
		return id, bk, false, b.Commit(pebble.NoSync) // not an entry of this layout
	}
	id, _ = uuid.FromBytes(key[9:25])
	bk = dueBucket{unit: key[25], start: int64(binary.BigEndian.Uint64(key[26:]) ^ (1 << 63))}
	account, name, _ := strings.Cut(string(owner), "\x00")
	d, found, err := get(s.db, rollupDefKey(account, name), decodeDefinition)
	if err != nil {
		return id, bk, false, err
	}
	if !found || d.ID != id {
		return id, bk, false, b.Commit(pebble.NoSync) // the rollup is gone, and its rows with it
	}
	if until, ok := d.KeptUntil(rollup.Units[bk.unit], bk.start); ok && until.UnixMilli() > nowMs {
		// The retention grew since: the entry moves.
		if err := b.Set(bucketEndKey(until.UnixMilli(), id, rollup.Units[bk.unit], bk.start), owner, nil); err != nil {
			return id, bk, false, err
		}
		return id, bk, false, b.Commit(pebble.NoSync)
	}
	return id, bk, true, b.Commit(pebble.NoSync)
}

// reapRows deletes the rows of rollup id in buckets, and the sights of
// its distinct metrics in them, scanning each keyspace of the rollup
// once, reapDeletes deletions a batch; it counts the rows.
func (s *RollupStore) reapRows(id uuid.UUID, buckets map[dueBucket]bool) (int, error) {
	n, err := s.reapIn(rollupPrefix(prefixRollupRow, id), buckets)
	if err != nil {
		return n, err
	}
	_, err = s.reapIn(rollupPrefix(prefixSight, id), buckets)
	return n, err
}

// reapIn deletes the keys under prefix (a rollup's rows or sights) in
// buckets.
func (s *RollupStore) reapIn(prefix []byte, buckets map[dueBucket]bool) (int, error) {
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return 0, err
	}
	var keys [][]byte
	n := 0
	flush := func() error {
		if len(keys) == 0 {
			return nil
		}
		b := s.db.pdb.NewBatch()
		defer b.Close()
		for _, k := range keys {
			if err := b.Delete(k, nil); err != nil {
				return err
			}
		}
		n += len(keys)
		keys = keys[:0]
		return b.Commit(pebble.NoSync)
	}
	for ok := it.First(); ok; ok = it.Next() {
		if u, start, good := rowBucket(it.Key()); good && buckets[dueBucket{u, start}] {
			keys = append(keys, bytes.Clone(it.Key()))
			if len(keys) == reapDeletes {
				if err := flush(); err != nil {
					it.Close()
					return n, err
				}
			}
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return n, err
	}
	return n, flush()
}

// rowBucket reads the unit (as unitByte) and bucket of a row key
// (rowKey).
func rowBucket(key []byte) (unit byte, start int64, ok bool) {
	b := key[17:]
	_, n := binary.Uvarint(b) // scope
	if n <= 0 {
		return 0, 0, false
	}
	b = b[n:]
	klen, n := binary.Uvarint(b)
	if n <= 0 || uint64(len(b)-n) < klen+9 {
		return 0, 0, false
	}
	b = b[n+int(klen):]
	return b[0], int64(binary.BigEndian.Uint64(b[1:9]) ^ (1 << 63)), true
}
