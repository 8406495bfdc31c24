package pebblestore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/rollup"
)

var _ rollup.Store = (*RollupStore)(nil)

// RollupStore is the embedded engine's rollup.Store (keys in
// rollup_keys.go). One process owns the DB, so a commit is exact by a
// lock per rollup: under it, Commit checks the batch's events and writes
// each row's deltas as a Pebble merge (rollup_merge.go), with the events'
// records and any trigger firings, in one synced batch, which a crash
// applies whole or not at all. A commit reads no row, except those a
// trigger watches. Obtain it with DB.Rollups; it is closed with the DB.
type RollupStore struct {
	db *DB
	// locks are by rollup ID: commits, last firings, the reaper. defLocks
	// are by definition key (deletes), taken before a rollup's ID lock
	// when both are: two sets, so that a definition key and an ID never
	// fall on one stripe.
	locks    stripedLocks
	defLocks stripedLocks
}

// rowDecoder decodes a stored row of n metrics (for get).
func rowDecoder(n int) func([]byte) ([]int64, error) {
	return func(v []byte) ([]int64, error) {
		sums, ok := rollup.DecodeSums(v, n)
		if !ok {
			return nil, rollup.ErrBadSums
		}
		return sums, nil
	}
}

type rollupStoreOnce struct {
	once  sync.Once
	store *RollupStore
}

// Rollups returns the DB's rollup store (one per DB).
func (db *DB) Rollups() rollup.Store { return db.rollupStore() }

func (db *DB) rollupStore() *RollupStore {
	db.rollups.once.Do(func() {
		db.rollups.store = &RollupStore{db: db, locks: newStripedLocks(6), defLocks: newStripedLocks(6)}
	})
	return db.rollups.store
}

func (s *RollupStore) PutDefinition(ctx context.Context, d *rollup.Definition) error {
	b, err := json.Marshal(d)
	if err != nil {
		return herald.Errorf(herald.EInternal, "encode rollup definition: %v", err)
	}
	if err := s.db.enter(ctx, "put rollup"); err != nil {
		return err
	}
	defer s.db.leave()
	defer s.locks.lock(d.ID[:])()
	wb := s.db.pdb.NewBatch()
	defer wb.Close()
	if err := errors.Join(s.forgetDroppedTriggers(wb, d), wb.Set(rollupDefKey(d.Account, d.Name), b, nil)); err != nil {
		return herald.Unavailable("put rollup", err)
	}
	if err := wb.Commit(pebble.Sync); err != nil {
		return herald.Unavailable("put rollup", err)
	}
	return nil
}

func notFoundRollup(account, name string) error {
	return herald.Errorf(herald.ENotFound, "rollup %s/%s does not exist", account, herald.Clip(name))
}

func decodeDefinition(v []byte) (*rollup.Definition, error) {
	var d rollup.Definition
	if err := json.Unmarshal(v, &d); err != nil {
		return nil, err
	}
	if err := d.Normalize(); err != nil {
		return nil, err
	}
	return &d, nil
}

func (s *RollupStore) GetDefinition(ctx context.Context, account, name string) (*rollup.Definition, error) {
	if err := s.db.enter(ctx, "get rollup"); err != nil {
		return nil, err
	}
	defer s.db.leave()
	d, found, err := get(s.db, rollupDefKey(account, name), decodeDefinition)
	switch {
	case err != nil:
		return nil, herald.Unavailable("get rollup", err)
	case !found:
		return nil, notFoundRollup(account, name)
	}
	return d, nil
}

func (s *RollupStore) ListDefinitions(ctx context.Context, account, after string, limit int) ([]*rollup.Definition, error) {
	if err := s.db.enter(ctx, "list rollups"); err != nil {
		return nil, err
	}
	defer s.db.leave()
	prefix := rollupDefPrefix(account)
	lower := rollupDefKey(account, after)
	if after != "" {
		lower = append(lower, 0)
	}
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return nil, herald.Unavailable("list rollups", err)
	}
	defer it.Close()
	var out []*rollup.Definition
	for ok := it.First(); ok && len(out) < limit; ok = it.Next() {
		d, err := decodeDefinition(it.Value())
		if err != nil {
			return nil, herald.Unavailable("list rollups", err)
		}
		out = append(out, d)
	}
	if err := it.Error(); err != nil {
		return nil, herald.Unavailable("list rollups", err)
	}
	return out, nil
}

func (s *RollupStore) DeleteDefinition(ctx context.Context, account, name string) error {
	if err := s.db.enter(ctx, "delete rollup"); err != nil {
		return err
	}
	defer s.db.leave()
	key := rollupDefKey(account, name)
	defer s.defLocks.lock(key)()
	d, found, err := get(s.db, key, decodeDefinition)
	switch {
	case err != nil:
		return herald.Unavailable("delete rollup", err)
	case !found:
		return notFoundRollup(account, name)
	}
	defer s.locks.lock(d.ID[:])()
	b := s.db.pdb.NewBatch()
	defer b.Close()
	rows, events, last := rollupPrefix(prefixRollupRow, d.ID), rollupPrefix(prefixRollupEvent, d.ID), rollupPrefix(prefixLastFiring, d.ID)
	sights := rollupPrefix(prefixSight, d.ID)
	if err := errors.Join(b.Delete(key, nil),
		b.DeleteRange(rows, prefixEnd(rows), nil),
		b.DeleteRange(sights, prefixEnd(sights), nil),
		b.DeleteRange(events, prefixEnd(events), nil),
		b.DeleteRange(last, prefixEnd(last), nil)); err != nil {
		return herald.Unavailable("delete rollup", err)
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return herald.Unavailable("delete rollup", err)
	}
	return nil
}

// committed reports whether event id of d is committed to commit shard
// k and unexpired at now.
func (s *RollupStore) committed(d *rollup.Definition, k int, id string, now time.Time) (bool, error) {
	exp, found, err := s.eventExpiry(d.ID, shardEvent(k, id))
	return found && exp > now.UnixMilli(), err
}

// eventExpiry reads when the record of event of rollup id expires (ms).
func (s *RollupStore) eventExpiry(id uuid.UUID, event string) (int64, bool, error) {
	return get(s.db, rollupEventKey(id, event), func(v []byte) (int64, error) {
		if len(v) != 8 {
			return 0, errors.New("rollup event record: not 8 bytes")
		}
		return int64(binary.BigEndian.Uint64(v)), nil
	})
}

func (s *RollupStore) Committed(ctx context.Context, d *rollup.Definition, shard int, events []rollup.EventKey, now time.Time) (map[string]bool, error) {
	if err := s.db.enter(ctx, "rollup events"); err != nil {
		return nil, err
	}
	defer s.db.leave()
	out := map[string]bool{}
	for _, e := range events {
		ok, err := s.committed(d, shard, e.ID, now)
		if err != nil {
			return nil, herald.Unavailable("rollup events", err)
		}
		if ok {
			out[e.ID] = true
		}
	}
	return out, nil
}

func (s *RollupStore) Commit(ctx context.Context, d *rollup.Definition, b *rollup.Batch, now time.Time) error {
	if err := s.db.enter(ctx, "commit rollup"); err != nil {
		return err
	}
	defer s.db.leave()
	defer s.locks.lock(d.ID[:])()
	var dups []string
	for _, id := range b.IDs() {
		ok, err := s.committed(d, b.Shard(), id, now)
		if err != nil {
			return herald.Unavailable("commit rollup", err)
		}
		if ok {
			dups = append(dups, id)
		}
	}
	if len(dups) > 0 {
		return &rollup.ErrDuplicate{Committed: dups}
	}
	wb := s.db.pdb.NewBatch()
	defer wb.Close()
	if err := s.resolveSights(wb, d, b, now); err != nil {
		return herald.Unavailable("commit rollup", err)
	}
	if err := s.writeRows(wb, d, b, now); err != nil {
		return herald.Unavailable("commit rollup", err)
	}
	expMs := now.Add(time.Duration(d.DedupWindow)).UnixMilli()
	exp := binary.BigEndian.AppendUint64(nil, uint64(expMs))
	for _, id := range b.IDs() {
		ev := shardEvent(b.Shard(), id)
		if err := errors.Join(wb.Set(rollupEventKey(d.ID, ev), exp, nil), wb.Set(eventExpiryKey(expMs, d.ID, ev), nil, nil)); err != nil {
			return herald.Unavailable("commit rollup", err)
		}
	}
	if err := wb.Commit(pebble.Sync); err != nil {
		return herald.Unavailable("commit rollup", err)
	}
	return nil
}

// resolveSights reads which of b's sights are recorded, turns them into
// counts (Batch.Resolve) and adds the sights to record to wb. The caller
// holds d's lock; sights live as long as their set's bucket (the reaper
// deletes them with its rows).
func (s *RollupStore) resolveSights(wb *pebble.Batch, d *rollup.Definition, b *rollup.Batch, now time.Time) error {
	if len(b.Sights()) == 0 {
		return nil
	}
	known := map[rollup.Sight]time.Time{}
	for x := range b.Sights() {
		ms, found, err := get(s.db, sightKey(d.ID, x), decodeSightMs)
		if err != nil {
			return err
		}
		if found {
			known[x] = time.UnixMilli(ms)
		}
	}
	for x, at := range b.Resolve(known, now) {
		if err := wb.Set(sightKey(d.ID, x), binary.BigEndian.AppendUint64(nil, uint64(at.UnixMilli())), nil); err != nil {
			return err
		}
	}
	return nil
}

// decodeSightMs reads a sight's record: when it was first seen (ms).
func decodeSightMs(v []byte) (int64, error) {
	if len(v) != 8 {
		return 0, errors.New("rollup sight record: not 8 bytes")
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// writeRows adds b's rows to wb as merges of their deltas, indexes their
// buckets for the reaper, and records the firings of d's triggers that
// the new values cross. The caller holds d's lock.
func (s *RollupStore) writeRows(wb *pebble.Batch, d *rollup.Definition, b *rollup.Batch, now time.Time) error {
	type bucket struct {
		unit  rollup.Unit
		start int64
	}
	buckets := map[bucket]bool{}
	var key, buf []byte
	for row, sums := range b.Rows() {
		key = appendRowKey(key[:0], d.ID, row)
		buf = rollup.AppendSums(buf[:0], sums)
		if err := wb.Merge(key, buf, nil); err != nil {
			return err
		}
		buckets[bucket{row.Unit, row.Bucket}] = true
	}
	// Index the batch's buckets for the reaper: a few keys a commit,
	// rewritten as long as a bucket gains rows.
	for bk := range buckets {
		if until, ok := d.KeptUntil(bk.unit, bk.start); ok {
			if err := wb.Set(bucketEndKey(until.UnixMilli(), d.ID, bk.unit, bk.start), []byte(d.Account+"\x00"+d.Name), nil); err != nil {
				return err
			}
		}
	}
	if !d.HasTriggers() {
		return nil
	}
	// Triggers: the values before and after this batch of the rows a
	// trigger watches, and of the rows a sliding window sums (in the batch
	// or not). Nothing else changes them meanwhile: the caller holds d's
	// lock.
	n := len(d.Metrics)
	lookup := func(r rollup.Row) (old, cur []int64, err error) {
		old, _, err = get(s.db, rowKey(d.ID, r), rowDecoder(n))
		if err != nil {
			return nil, nil, err
		}
		cur = old
		if delta, ok := b.Rows()[r]; ok {
			cur = make([]int64, n)
			if old != nil {
				copy(cur, old)
			}
			for i, x := range delta {
				cur[i] += x
			}
		}
		return old, cur, nil
	}
	var firings []rollup.Firing
	for row := range b.Rows() {
		if !d.Watches(row) {
			continue
		}
		old, cur, err := lookup(row)
		if err != nil {
			return err
		}
		f, err := d.Crossings(row, old, cur, now, lookup)
		if err != nil {
			return err
		}
		firings = append(firings, f...)
	}
	return s.fire(wb, d, firings)
}

// fire records firings of rollup d in wb: each ID once ever ('F'),
// queued for publishing ('O'), the last of each trigger as its last
// firing ('L'). The caller holds the rollup's lock.
func (s *RollupStore) fire(wb *pebble.Batch, d *rollup.Definition, firings []rollup.Firing) error {
	var fresh []rollup.Firing
	for _, f := range firings {
		key := firingKey(prefixFired, f.ID)
		if _, found, err := get(s.db, key, func(v []byte) (struct{}, error) { return struct{}{}, nil }); err != nil || found {
			continue // fired before (or unreadable: never fire twice)
		}
		b, err := json.Marshal(f)
		if err != nil {
			return err
		}
		if err := errors.Join(wb.Set(key, nil, nil), wb.Set(firingKey(prefixOutbox, f.ID), b, nil)); err != nil {
			return err
		}
		fresh = append(fresh, f)
	}
	for _, f := range rollup.LastOfEach(fresh) {
		if err := setLastFiring(wb, d.ID, f.Trigger, f.Last()); err != nil {
			return err
		}
	}
	return nil
}

func (s *RollupStore) PendingFirings(ctx context.Context, limit int) ([]rollup.Firing, error) {
	if err := s.db.enter(ctx, "rollup firings"); err != nil {
		return nil, err
	}
	defer s.db.leave()
	prefix := []byte{prefixOutbox}
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return nil, herald.Unavailable("rollup firings", err)
	}
	defer it.Close()
	var out []rollup.Firing
	for ok := it.First(); ok && len(out) < limit; ok = it.Next() {
		var f rollup.Firing
		if err := json.Unmarshal(it.Value(), &f); err != nil {
			return nil, herald.Unavailable("rollup firings", err)
		}
		out = append(out, f)
	}
	if err := it.Error(); err != nil {
		return nil, herald.Unavailable("rollup firings", err)
	}
	return out, nil
}

func (s *RollupStore) ReadRows(ctx context.Context, d *rollup.Definition, rows []rollup.Row) ([][]int64, error) {
	if err := s.db.enter(ctx, "read rollup"); err != nil {
		return nil, err
	}
	defer s.db.leave()
	out := make([][]int64, len(rows))
	for i, r := range rows {
		v, _, err := get(s.db, rowKey(d.ID, r), rowDecoder(len(d.Metrics)))
		if err != nil {
			return nil, herald.Unavailable("read rollup", err)
		}
		out[i] = v
	}
	return out, nil
}

func (s *RollupStore) ReadPartition(ctx context.Context, d *rollup.Definition, p rollup.Partition, after string, f func(string, []int64) bool) error {
	if err := s.db.enter(ctx, "read rollup"); err != nil {
		return err
	}
	defer s.db.leave()
	prefix := partitionKey(d.ID, p, 0)
	lower := append(bytes.Clone(prefix), after...)
	if after != "" {
		lower = append(lower, 0)
	}
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return herald.Unavailable("read rollup", err)
	}
	defer it.Close()
	sums := make([]int64, len(d.Metrics))
	for ok := it.First(); ok; ok = it.Next() {
		if !rollup.DecodeSumsInto(sums, it.Value()) {
			return herald.Unavailable("read rollup", rollup.ErrBadSums)
		}
		if !f(string(it.Key()[len(prefix):]), sums) {
			return nil
		}
	}
	if err := it.Error(); err != nil {
		return herald.Unavailable("read rollup", err)
	}
	return nil
}

// Sources scans every definition (they are few: at most 1,000 per account)
// for those naming a queue or a cache pattern.
func (s *RollupStore) Sources(ctx context.Context) ([]*rollup.Definition, error) {
	if err := s.db.enter(ctx, "rollup sources"); err != nil {
		return nil, err
	}
	defer s.db.leave()
	prefix := []byte{prefixRollupDef}
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return nil, herald.Unavailable("rollup sources", err)
	}
	defer it.Close()
	var out []*rollup.Definition
	for ok := it.First(); ok; ok = it.Next() {
		d, err := decodeDefinition(it.Value())
		if err != nil {
			return nil, herald.Unavailable("rollup sources", err)
		}
		if d.Sources.Queue != "" || d.Sources.CachePattern != "" || d.Sources.AMQPRoutingKey != "" {
			out = append(out, d)
		}
	}
	if err := it.Error(); err != nil {
		return nil, herald.Unavailable("rollup sources", err)
	}
	return out, nil
}

// ReapExpired deletes the records of committed events whose dedup window
// ended by now (Options.Now), then the rows of buckets past their
// retention (reapBuckets), each in chunks of reapChunk, at most
// maxReapChunks chunks per call, and returns how many records and rows.
// The background reaper calls it with the other reapers. A record
// rewritten since with a later expiry (the event committed again after
// its window) is kept.
func (s *RollupStore) ReapExpired(ctx context.Context) (int, error) {
	total := 0
	for range maxReapChunks {
		n, more, err := s.reapChunk(ctx)
		total += n
		if err != nil {
			return total, err
		}
		if !more {
			break
		}
	}
	for range maxReapChunks {
		n, more, err := s.reapBuckets(ctx)
		total += n
		if err != nil || !more {
			return total, err
		}
	}
	return total, nil
}

// maxReapChunks bounds one ReapExpired call.
const maxReapChunks = 100

// reapChunk reaps up to reapChunk expiry entries; more says a full chunk
// was taken.
func (s *RollupStore) reapChunk(ctx context.Context) (n int, more bool, err error) {
	if err := s.db.enter(ctx, "reap rollup events"); err != nil {
		return 0, false, err
	}
	defer s.db.leave()
	nowMs := s.db.now().UnixMilli()
	lower := []byte{prefixEventExpiry}
	upper := binary.BigEndian.AppendUint64([]byte{prefixEventExpiry}, uint64(nowMs+1))
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return 0, false, herald.Unavailable("reap rollup events", err)
	}
	var keys [][]byte
	for ok := it.First(); ok && len(keys) < reapChunk; ok = it.Next() {
		keys = append(keys, bytes.Clone(it.Key()))
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return 0, false, herald.Unavailable("reap rollup events", err)
	}
	for _, k := range keys {
		if len(k) < 1+8+16 {
			continue
		}
		id, _ := uuid.FromBytes(k[9:25])
		event := string(k[25:])
		err := func() error {
			defer s.locks.lock(id[:])()
			b := s.db.pdb.NewBatch()
			defer b.Close()
			exp, found, err := s.eventExpiry(id, event)
			if err != nil {
				return err
			}
			if found && exp <= nowMs {
				if err := b.Delete(rollupEventKey(id, event), nil); err != nil {
					return err
				}
				n++
			}
			if err := b.Delete(k, nil); err != nil {
				return err
			}
			return b.Commit(pebble.NoSync)
		}()
		if err != nil {
			return n, false, herald.Unavailable("reap rollup events", err)
		}
	}
	return n, len(keys) == reapChunk, nil
}
