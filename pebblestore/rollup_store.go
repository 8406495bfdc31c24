package pebblestore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"
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
// lock per rollup: under it, Commit checks the batch's events, reads the
// rows it touches, adds and writes the new absolute values and the events
// in one synced Pebble batch, which a crash applies whole or not at all.
// Obtain it with DB.Rollups; it is closed with the DB.
type RollupStore struct {
	db    *DB
	locks stripedLocks // by definition key (definitions) and rollup ID (commits)

	// rows caches the absolute values of rows Commit wrote, per rollup:
	// this process is the only writer of its DB, so a commit adds to the
	// cached values instead of reading every row it touches from Pebble
	// (a third of a commit's CPU; BenchmarkRollupCommit). Guarded by the
	// rollup's lock; entries are added after their write committed.
	rowsMu  sync.Mutex
	rows    map[uuid.UUID]*rowCache
	noCache bool // benchmarks: read every row from Pebble
	maxRows int  // tests: the row cache's bound (maxCachedRows when 0)
}

// cacheBound is the most rows one rollup's cache holds.
func (s *RollupStore) cacheBound() int {
	if s.maxRows > 0 {
		return s.maxRows
	}
	return maxCachedRows
}

// rowCache is one rollup's cached rows, by key. When complete, it holds
// every row of the rollup, so a row it lacks does not exist and needs no
// read either; when not, exists (every row key of the rollup) tells most
// rows that do not exist yet apart without a read.
type rowCache struct {
	m        map[string][]int64
	complete bool
	exists   *rowBloom
}

// maxCachedRows bounds a rollup's row cache (about 250 bytes a row with 18
// metrics); past it the cache starts over.
const maxCachedRows = 1 << 19

// cacheOf returns rollup d's row cache, loading every row of the rollup
// into it first if they fit (then it is complete). The caller holds the
// rollup's lock, so no commit of d runs meanwhile.
func (s *RollupStore) cacheOf(d *rollup.Definition) (*rowCache, error) {
	s.rowsMu.Lock()
	c := s.rows[d.ID]
	s.rowsMu.Unlock()
	if c != nil {
		return c, nil
	}
	c, err := s.loadCache(d, bloomLimit)
	if err != nil {
		return nil, err
	}
	s.rowsMu.Lock()
	defer s.rowsMu.Unlock()
	if s.rows == nil {
		s.rows = map[uuid.UUID]*rowCache{}
	}
	s.rows[d.ID] = c
	return c, nil
}

// loadCache reads every row of rollup d: into the cache while they fit,
// and every key into the existence filter, sized for limit keys (if more,
// it starts over with a filter twice as large).
func (s *RollupStore) loadCache(d *rollup.Definition, limit int) (*rowCache, error) {
	c := &rowCache{m: map[string][]int64{}, complete: true, exists: newRowBloom(limit)}
	prefix := rollupPrefix(prefixRollupRow, d.ID)
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		c.exists.add(it.Key())
		if c.exists.full() {
			break
		}
		if !c.complete {
			continue
		}
		if len(c.m) == s.cacheBound() {
			clear(c.m)
			c.complete = false
			continue
		}
		sums, good := rollup.DecodeSums(it.Value(), len(d.Metrics))
		if !good {
			c.complete = false
			continue
		}
		c.m[string(it.Key())] = sums
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return nil, err
	}
	if c.exists.full() {
		return s.loadCache(d, 2*limit)
	}
	return c, nil
}

// evictHalf drops about half of c's rows (the cache is over its bound);
// it is no longer complete, and the existence filter answers for the rest.
func (c *rowCache) evictHalf() {
	n := len(c.m) / 2
	for k := range c.m {
		if n--; n < 0 {
			break
		}
		delete(c.m, k)
	}
	c.complete = false
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

func (s *RollupStore) forgetCache(id uuid.UUID) {
	s.rowsMu.Lock()
	defer s.rowsMu.Unlock()
	delete(s.rows, id)
}

type rollupStoreOnce struct {
	once  sync.Once
	store *RollupStore
}

// Rollups returns the DB's rollup store (one per DB).
func (db *DB) Rollups() rollup.Store { return db.rollupStore() }

func (db *DB) rollupStore() *RollupStore {
	db.rollups.once.Do(func() { db.rollups.store = &RollupStore{db: db, locks: newStripedLocks(6)} })
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
	if err := s.db.pdb.Set(rollupDefKey(d.Account, d.Name), b, pebble.Sync); err != nil {
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
	defer s.locks.lock(key)()
	d, found, err := get(s.db, key, decodeDefinition)
	switch {
	case err != nil:
		return herald.Unavailable("delete rollup", err)
	case !found:
		return notFoundRollup(account, name)
	}
	b := s.db.pdb.NewBatch()
	defer b.Close()
	rows, events := rollupPrefix(prefixRollupRow, d.ID), rollupPrefix(prefixRollupEvent, d.ID)
	if err := errors.Join(b.Delete(key, nil),
		b.DeleteRange(rows, prefixEnd(rows), nil),
		b.DeleteRange(events, prefixEnd(events), nil)); err != nil {
		return herald.Unavailable("delete rollup", err)
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return herald.Unavailable("delete rollup", err)
	}
	s.forgetCache(d.ID)
	return nil
}

// committed reports whether event id of d is committed and unexpired at now.
func (s *RollupStore) committed(d *rollup.Definition, id string, now time.Time) (bool, error) {
	exp, found, err := s.eventExpiry(d.ID, id)
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

func (s *RollupStore) Committed(ctx context.Context, d *rollup.Definition, events []rollup.EventKey, now time.Time) (map[string]bool, error) {
	if err := s.db.enter(ctx, "rollup events"); err != nil {
		return nil, err
	}
	defer s.db.leave()
	out := map[string]bool{}
	for _, e := range events {
		ok, err := s.committed(d, e.ID, now)
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
		ok, err := s.committed(d, id, now)
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
	n := len(d.Metrics)
	cache, err := s.cacheOf(d)
	if err != nil {
		return herald.Unavailable("commit rollup", err)
	}
	written := make(map[string][]int64, b.Len())
	var olds map[string][]int64 // with triggers: the rows' values before
	if d.HasTriggers() {
		olds = make(map[string][]int64, b.Len())
	}
	read := func(key []byte) ([]int64, error) {
		cur, cached := cache.m[string(key)]
		switch {
		case cached && !s.noCache:
			return slices.Clone(cur), nil // the cache changes only once the write committed
		case cache.complete && !s.noCache:
			return nil, nil // no such row yet
		case !cache.exists.mayContain(key) && !s.noCache:
			return nil, nil // no such row yet (the filter knows every row)
		}
		cur, _, err := get(s.db, key, rowDecoder(n))
		return cur, err
	}
	type bucket struct {
		unit  rollup.Unit
		start int64
	}
	created := map[bucket]bool{} // buckets of the rows this commit creates
	var buf []byte
	for row, sums := range b.Rows() {
		key := rowKey(d.ID, row)
		cur, err := read(key)
		if err != nil {
			return herald.Unavailable("commit rollup", err)
		}
		if olds != nil {
			olds[string(key)] = slices.Clone(cur)
		}
		if cur == nil {
			cur = make([]int64, n)
			created[bucket{row.Unit, row.Bucket}] = true
		}
		for i, x := range sums {
			cur[i] += x
		}
		buf = rollup.AppendSums(buf[:0], cur)
		if err := wb.Set(key, buf, nil); err != nil {
			return herald.Unavailable("commit rollup", err)
		}
		written[string(key)] = cur
	}
	// Index the buckets of new rows for the reaper: a few keys a commit,
	// rewritten as long as a bucket gains rows.
	for bk := range created {
		if until, ok := d.KeptUntil(bk.unit, bk.start); ok {
			if err := wb.Set(bucketEndKey(until.UnixMilli(), d.ID, bk.unit, bk.start), []byte(d.Account+"\x00"+d.Name), nil); err != nil {
				return herald.Unavailable("commit rollup", err)
			}
		}
	}
	if olds != nil {
		// Triggers, once every row's new value is known (a sliding
		// window sums rows of other buckets, in the batch or not).
		lookup := func(r rollup.Row) ([]int64, []int64, error) {
			key := string(rowKey(d.ID, r))
			if cur, ok := written[key]; ok {
				return olds[key], cur, nil
			}
			v, err := read([]byte(key))
			return v, v, err
		}
		for row := range b.Rows() {
			key := string(rowKey(d.ID, row))
			firings, err := d.Crossings(row, olds[key], written[key], now, lookup)
			if err == nil {
				err = s.fire(wb, firings)
			}
			if err != nil {
				return herald.Unavailable("commit rollup", err)
			}
		}
	}
	expMs := now.Add(time.Duration(d.DedupWindow)).UnixMilli()
	exp := binary.BigEndian.AppendUint64(nil, uint64(expMs))
	for _, id := range b.IDs() {
		if err := errors.Join(wb.Set(rollupEventKey(d.ID, id), exp, nil), wb.Set(eventExpiryKey(expMs, d.ID, id), nil, nil)); err != nil {
			return herald.Unavailable("commit rollup", err)
		}
	}
	if err := wb.Commit(pebble.Sync); err != nil {
		return herald.Unavailable("commit rollup", err)
	}
	if len(cache.m)+len(written) > s.cacheBound() {
		cache.evictHalf()
	}
	for k, v := range written {
		cache.m[k] = v
		cache.exists.add([]byte(k))
	}
	if cache.exists.full() {
		// Rebuild the filter larger, from the rows on disk (rare: each
		// rebuild doubles it).
		fresh, err := s.loadCache(d, 2*cache.exists.limit)
		if err != nil {
			s.forgetCache(d.ID) // the next commit loads it again
			return nil
		}
		cache.exists = fresh.exists
	}
	return nil
}

// fire records firings in wb: each ID once ever ('F'), queued for
// publishing ('O'). The caller holds the rollup's lock.
func (s *RollupStore) fire(wb *pebble.Batch, firings []rollup.Firing) error {
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

func (s *RollupStore) FiringDone(ctx context.Context, id string) error {
	if err := s.db.enter(ctx, "rollup firings"); err != nil {
		return err
	}
	defer s.db.leave()
	if err := s.db.pdb.Delete(firingKey(prefixOutbox, id), pebble.Sync); err != nil {
		return herald.Unavailable("rollup firings", err)
	}
	return nil
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
	for ok := it.First(); ok; ok = it.Next() {
		sums, good := rollup.DecodeSums(it.Value(), len(d.Metrics))
		if !good {
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
