package cassandrastore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/rollup"
)

// The commit protocol. Every commit to a rollup has a number, its seq: the
// rollup's row in rollup_seq holds the last one and the nonce naming its
// record. A node commits a Batch as commit n+1 thus:
//
//  1. It knows commit n is applied: every write of commits 1..n landed.
//     (It applied n itself, or read rollup_applied, or applied n's record.)
//  2. It reads the batch's events from rollup_events: any committed is an
//     ErrDuplicate. It reads the rows the batch touches (from its cache
//     when it holds them as of commit n) and adds the batch's sums: the new
//     absolute values.
//  3. It writes the record of commit n+1 (rollupBody: those values, the
//     event IDs, the firings) under a fresh nonce in rollup_pending.
//  4. The commit point: UPDATE rollup_seq SET seq = n+1, nonce = N
//     IF seq = n AND nonce = (n's) AND deleted = false. If another node
//     committed n+1 first, nothing of this attempt counts: the node brings
//     itself up to date (sync) and starts again at 1.
//  5. It applies the record: the rows' values, the event records, the
//     firings, all USING TIMESTAMP n+1 (the triggers' last firings with
//     timestamps derived from it, rollup_lastfiring.go), then
//     rollup_applied = n+1.
//
// Why it is exact: commits are totally ordered by the transaction, and
// commit n+1's values are those of commit n plus the batch, read after
// every earlier commit landed (1). A write of an older commit landing late
// (a retry, a node paused, a record applied twice) carries an older
// timestamp and loses to the newer value on every cell, whatever order the
// writes arrive in. A node that dies between 4 and 5 leaves its record for
// the next committer to apply (sync); until then those events are
// committed but their counts not yet visible. The events of a batch whose
// transaction failed are recorded nowhere, so a retry counts them; those
// of a transaction whose outcome is unknown (a timeout) are either in the
// record that became commit n+1, and found committed by the retry, or in
// none.
//
// Cassandra counters are not used: see rollup_schema.go.

// pendingTTL is how long a commit's record is kept: far longer than any
// gap between a commit and the next one that would apply it.
const pendingTTL = 30 * 24 * time.Hour

// maxCatchUp is how many records a node reads to bring its row cache up to
// date after other nodes committed; past it, the cache starts over.
const maxCatchUp = 32

// commitPatience bounds how long one Commit keeps trying while other
// nodes win the transaction; after each loss it waits a random time of
// up to 2 ms doubling to 100 ms, so that a node committing back to back
// cannot starve another for long.
const commitPatience = 30 * time.Second

// lossBackoff is the most a Commit waits after its attempt-th loss.
func lossBackoff(attempt int) time.Duration {
	if attempt >= 6 {
		return 100 * time.Millisecond
	}
	return 2 * time.Millisecond << attempt
}

// maxWriterRows bounds one rollup's row cache on a node.
const maxWriterRows = 1 << 20

// rollupWriter is this node's commit state of one rollup's commit shard
// (rollup/shard.go; a rollup of one shard has one). Each shard has its
// own sequence, records and event records, keyed by its ID (sid), and
// the rows of that shard only.
type rollupWriter struct {
	shard int
	sid   uuid.UUID  // rollup.Definition.ShardID(shard)
	mu    sync.Mutex // one commit of the shard at a time on this node
	// known: seq and nonce are the last commit, applied, and rows hold
	// the values as of it of every row they have.
	known bool
	seq   int64
	nonce uuid.UUID
	rows  map[rollup.Row][]int64
	// parts are the partitions whose every row is in rows (read whole
	// once): a row of one that rows lacks does not exist.
	parts map[storedPartition]bool
	// big are partitions seen with more than maxPartitionLoad rows: their
	// rows are read by value, never whole again (a partition only grows
	// until its bucket expires). Kept when the cache starts over.
	big map[storedPartition]bool
	// sights are sights of distinct metrics recorded as of seq, with
	// when each was first seen (rollup_sights.go).
	sights map[rollup.Sight]time.Time
}

// storedPartition is a partition of rollup_cells: one scope's values in
// one bucket of one period, with the rows of every dimension.
type storedPartition struct {
	scope  int
	key    string
	unit   rollup.Unit
	bucket int64
}

func storedPartitionOf(r rollup.Row) storedPartition {
	return storedPartition{scope: r.Scope, key: r.Key, unit: r.Unit, bucket: r.Bucket}
}

// maxBatchRows bounds the rows of one unlogged batch: a partition's rows
// of one commit go in batches of at most this many.
const maxBatchRows = 500

// forget empties w's row cache.
func (w *rollupWriter) forget() {
	clear(w.rows)
	clear(w.parts)
	clear(w.sights)
}

// evictHalf drops about half the partitions w read whole, with their
// rows, and the rows of partitions it did not (read by value); if rows of
// big partitions still fill more than half the cache, it starts over.
func (w *rollupWriter) evictHalf() {
	n := len(w.parts) / 2
	for p := range w.parts {
		if n--; n < 0 {
			break
		}
		delete(w.parts, p)
	}
	for r := range w.rows {
		if p := storedPartitionOf(r); !w.parts[p] && !w.big[p] {
			delete(w.rows, r)
		}
	}
	if len(w.rows) > maxWriterRows/2 {
		w.forget()
	}
}

// maxPartitionLoad is the most rows of a partition a writer reads whole
// into its cache; it reads only the rows it needs of larger ones.
const maxPartitionLoad = 20000

func (rs *rollupStore) writer(d *rollup.Definition, shard int) *rollupWriter {
	id := d.ShardID(shard)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	w := rs.writers[id]
	if w == nil {
		w = &rollupWriter{shard: shard, sid: id, rows: map[rollup.Row][]int64{}, parts: map[storedPartition]bool{}, big: map[storedPartition]bool{},
			sights: map[rollup.Sight]time.Time{}}
		rs.writers[id] = w
	}
	return w
}

func (rs *rollupStore) Commit(ctx context.Context, d *rollup.Definition, b *rollup.Batch, now time.Time) error {
	c, err := rs.st.enter(ctx, "commit rollup")
	if err != nil {
		return err
	}
	if rs.direct {
		return rs.commitDirect(ctx, c, d, b, now)
	}
	return rs.commitFolded(ctx, c, d, b, now)
}

// commitDirect commits b itself, by the protocol above.
func (rs *rollupStore) commitDirect(ctx context.Context, c *conn, d *rollup.Definition, b *rollup.Batch, now time.Time) error {
	const op = "commit rollup"
	w := rs.writer(d, b.Shard())
	w.mu.Lock()
	defer w.mu.Unlock()
	keys := b.Keys()
	giveUp := time.Now().Add(commitPatience)
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if time.Now().After(giveUp) {
				return herald.Errorf(herald.EUnavailable, "rollup %s: other nodes kept committing first; retry", d.Name)
			}
			if !herald.Sleep(ctx, time.Duration(rand.Int64N(int64(lossBackoff(attempt))))) {
				return herald.Unavailable(op, ctx.Err())
			}
		}
		if !w.known {
			if err := rs.sync(ctx, c, d, w); err != nil {
				return err
			}
		}
		done, err := rs.committedIDs(ctx, c, d, w.shard, keys, now)
		if err != nil {
			return herald.Unavailable(op, err)
		}
		if len(done) > 0 {
			// As in Committed: the commit that recorded them may not
			// have landed whole; it has once the writer is synced.
			if landed, err := rs.landed(ctx, c, w.sid); err != nil {
				return err
			} else if !landed {
				if err := rs.sync(ctx, c, d, w); err != nil {
					return err
				}
			}
			dup := &rollup.ErrDuplicate{}
			for id := range done {
				dup.Committed = append(dup.Committed, id)
			}
			slices.Sort(dup.Committed)
			return dup
		}
		body, err := rs.prepare(ctx, c, d, w, b, keys, now)
		if err != nil {
			return herald.Unavailable(op, err)
		}
		enc, err := body.encode()
		if err != nil {
			return herald.Errorf(herald.EInternal, "encode rollup commit: %v", err)
		}
		next, nonce := w.seq+1, uuid.New()
		if err := rs.writeBody(ctx, c, w.sid, next, nonce, enc); err != nil {
			return herald.Unavailable(op, err)
		}
		cur := map[string]any{}
		applied, err := c.write(rs.cql(`UPDATE %s.rollup_seq SET seq = ?, nonce = ? WHERE rollup_id = ? IF seq = ? AND nonce = ? AND deleted = false`),
			next, cqlUUID(nonce), cqlUUID(w.sid), w.seq, cqlUUID(w.nonce)).SerialConsistency(c.serialLevel(rs.serial)).Idempotent(false).WithContext(ctx).MapScanCAS(cur)
		if err != nil {
			w.known = false // the outcome is unknown: sync finds out
			return herald.Unavailable(op, err)
		}
		if !applied {
			rs.Lost.Add(1)
			w.known = false
			if del, _ := cur["deleted"].(bool); del {
				return notFoundRollup(d.Account, d.Name)
			}
			// Another node committed: catch up to the commit the
			// transaction read (as a serial read would), start again.
			seq, ok1 := cur["seq"].(int64)
			n, ok2 := cur["nonce"].(gocql.UUID)
			if ok1 && ok2 {
				if err := rs.advance(ctx, c, d, w, seq, uuid.UUID(n)); err != nil {
					return err
				}
			}
			continue
		}
		w.seq, w.nonce = next, nonce
		w.cacheRows(body) // commit next's values, whether or not they landed yet
		w.cacheSights(body)
		if rs.failApply != nil {
			if err := rs.failApply(); err != nil {
				w.known = false
				return herald.Unavailable(op, err)
			}
		}
		if err := rs.apply(ctx, c, d, w.sid, next, body); err != nil {
			w.known = false // the next commit (here or elsewhere) applies it
			return herald.Unavailable(op, err)
		}
		return nil
	}
}

// cacheRows takes a commit's row values into w's cache.
func (w *rollupWriter) cacheRows(body *rollupBody) {
	if len(w.rows)+len(body.rows) > maxWriterRows {
		w.evictHalf()
	}
	for _, r := range body.rows {
		w.rows[r.row] = r.sums
	}
}

// prepare computes the record of a commit of b after w's last commit: the
// rows' new absolute values (each row read unless w caches it), the event
// records and the firings of the crossings that never fired.
func (rs *rollupStore) prepare(ctx context.Context, c *conn, d *rollup.Definition, w *rollupWriter, b *rollup.Batch, keys []rollup.EventKey, now time.Time) (*rollupBody, error) {
	body := &rollupBody{prev: w.nonce}
	if len(b.Sights()) > 0 {
		// Distinct metrics first: their counts are part of the rows'.
		known, err := rs.readSights(ctx, c, d, w, b.Sights())
		if err != nil {
			return nil, err
		}
		for x, at := range b.Resolve(known, now) {
			body.sights = append(body.sights, bodySight{sight: x, firstMs: at.UnixMilli()})
		}
	}
	body.rows = make([]bodyRow, 0, b.Len())
	old := make([][]int64, 0, b.Len()) // the rows' values before (nil: none)
	var missing []int                  // rows w does not cache
	load := map[storedPartition]bool{}
	for row, sums := range b.Rows() {
		v, ok := w.rows[row]
		if !ok {
			missing = append(missing, len(old))
			if p := storedPartitionOf(row); !w.parts[p] && !w.big[p] {
				load[p] = true
			}
		}
		old = append(old, v)
		body.rows = append(body.rows, bodyRow{row: row, sums: sums})
	}
	if err := rs.loadPartitions(ctx, c, d, w, load); err != nil {
		return nil, err
	}
	var want []rollup.Row // rows of partitions too big to load whole
	var wanted []int
	for _, i := range missing {
		r := body.rows[i].row
		if v, ok := w.rows[r]; ok {
			old[i] = v // loaded just now
		} else if w.big[storedPartitionOf(r)] {
			want, wanted = append(want, r), append(wanted, i)
		} // else a partition read whole lacks it: the row does not exist yet
	}
	read, err := rs.readRows(ctx, c, d, want, true)
	if err != nil {
		return nil, err
	}
	for _, i := range wanted {
		old[i] = read[body.rows[i].row] // nil: the row does not exist yet
	}
	n := len(d.Metrics)
	for i := range body.rows {
		// A row may hold sums of metrics a newer version of d added
		// (written by a node that has it): they are kept as they are.
		cur := make([]int64, max(n, len(old[i])))
		copy(cur, old[i])
		for k, x := range body.rows[i].sums {
			cur[k] += x
		}
		body.rows[i].sums = cur // the batch's sums are not changed: cur is new
	}
	var crossings []rollup.Firing
	if d.HasTriggers() {
		// Once every row's new value is known: a sliding window sums
		// rows of other buckets, in the batch or not.
		at := make(map[rollup.Row]int, len(body.rows))
		for i, r := range body.rows {
			at[r.row] = i
		}
		lookup := func(r rollup.Row) ([]int64, []int64, error) {
			if i, ok := at[r]; ok {
				return old[i], body.rows[i].sums, nil
			}
			if v, ok := w.rows[r]; ok {
				return v, v, nil
			}
			got, err := rs.readRows(ctx, c, d, []rollup.Row{r}, true)
			return got[r], got[r], err
		}
		for i, r := range body.rows {
			f, err := d.Crossings(r.row, old[i], r.sums, now, lookup)
			if err != nil {
				return nil, err
			}
			crossings = append(crossings, f...)
		}
	}
	if len(crossings) > 0 {
		fired := make([]bool, len(crossings))
		err := parallel(len(crossings), rollupReadWorkers, func(i int) error {
			id := crossings[i].ID
			err := c.s.Query(rs.cql(`SELECT id FROM %s.rollup_fired WHERE rollup_id = ? AND shard = ? AND id = ?`),
				cqlUUID(d.ID), stringShard(id, rollupFiredShards), id).WithContext(ctx).Scan(&id)
			switch {
			case err == nil:
				fired[i] = true
			case err != gocql.ErrNotFound:
				return err
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for i, f := range crossings {
			if !fired[i] {
				body.firings = append(body.firings, f)
			}
		}
	}
	expMs := now.Add(time.Duration(d.DedupWindow)).UnixMilli()
	body.events = make([]bodyEvent, len(keys))
	for i, k := range keys {
		body.events[i] = bodyEvent{id: k.ID, hour: eventHour(k.Time), expiresMs: expMs}
	}
	return body, nil
}

// loadPartitions reads partitions parts of d whole into w's cache and
// marks them complete; those with more than maxPartitionLoad rows are left
// out and marked big.
func (rs *rollupStore) loadPartitions(ctx context.Context, c *conn, d *rollup.Definition, w *rollupWriter, parts map[storedPartition]bool) error {
	list := make([]storedPartition, 0, len(parts))
	for p := range parts {
		list = append(list, p)
	}
	type cell struct {
		dim   int
		value string
		sums  []int64
	}
	got := make([][]cell, len(list))
	err := parallel(len(list), rollupReadWorkers, func(i int) error {
		p := list[i]
		it := c.s.Query(rs.cql(`SELECT dim, value, sums FROM %s.rollup_cells WHERE rollup_id = ? AND scope = ? AND skey = ? AND unit = ? AND bucket = ? LIMIT ?`),
			cqlUUID(d.ID), p.scope, p.key, string(p.unit), p.bucket, maxPartitionLoad+1).WithContext(ctx).PageSize(1000).Iter()
		var x cell
		var b []byte
		for it.Scan(&x.dim, &x.value, &b) {
			sums, ok := rollup.DecodeSumsKeep(b, len(d.Metrics))
			if !ok {
				it.Close()
				return rollup.ErrBadSums
			}
			got[i] = append(got[i], cell{x.dim, x.value, sums})
		}
		return it.Close()
	})
	if err != nil {
		return err
	}
	for i, p := range list {
		if len(got[i]) > maxPartitionLoad {
			w.big[p] = true
			continue
		}
		// Past maxWriterRows, cacheRows starts over once this commit's
		// values are computed (never in the middle of it).
		for _, x := range got[i] {
			// Only this shard's rows: the others are another shard's
			// writer's to cache (their values here may be stale).
			r := rollup.Row{Scope: p.scope, Key: p.key, Unit: p.unit, Bucket: p.bucket, Dim: x.dim, Value: x.value}
			if d.ShardOf(r) == w.shard {
				w.rows[r] = x.sums
			}
		}
		w.parts[p] = true
	}
	return nil
}

// sync brings w up to date with the rollup's last commit, which it reads
// with a serial read (advance does the rest).
func (rs *rollupStore) sync(ctx context.Context, c *conn, d *rollup.Definition, w *rollupWriter) error {
	const op = "commit rollup"
	var seq int64
	var cqlNonce gocql.UUID
	var deleted bool
	read := func() error {
		return c.s.Query(rs.cql(`SELECT seq, nonce, deleted FROM %s.rollup_seq WHERE rollup_id = ?`), cqlUUID(w.sid)).
			Consistency(c.serialLevel(rs.serial)).WithContext(ctx).Scan(&seq, &cqlNonce, &deleted)
	}
	err := read()
	if err == gocql.ErrNotFound { // defined before rollups ran on Cassandra, the put's sequence write failed, or a commit shard's first commit
		if w.shard > 0 {
			// Not for a rollup deleted meanwhile (its own sequence, shard
			// 0's, says so).
			gone, derr := rs.isDeleted(ctx, c, d.ID)
			if derr != nil {
				return herald.Unavailable(op, derr)
			}
			if gone {
				return notFoundRollup(d.Account, d.Name)
			}
		}
		if err = rs.createSeq(ctx, c, w.sid); err == nil {
			err = read()
		}
	}
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if deleted {
		return notFoundRollup(d.Account, d.Name)
	}
	return rs.advance(ctx, c, d, w, seq, uuid.UUID(cqlNonce))
}

// advance brings w to commit seq named nonce, the rollup's last as a
// serial read or a transaction found it: it applies that commit's record
// unless rollup_applied says it landed, and brings w's row cache forward
// from the records of the commits since w's (or empties it).
func (rs *rollupStore) advance(ctx context.Context, c *conn, d *rollup.Definition, w *rollupWriter, seq int64, nonce uuid.UUID) error {
	const op = "commit rollup"
	var applied int64
	err := c.s.Query(rs.cql(`SELECT seq FROM %s.rollup_applied WHERE rollup_id = ?`), cqlUUID(w.sid)).WithContext(ctx).Scan(&applied)
	if err != nil && err != gocql.ErrNotFound {
		return herald.Unavailable(op, err)
	}
	// The records since w's last known commit, newest first, when few.
	var chain []*rollupBody
	complete := false
	if seq-w.seq <= maxCatchUp {
		at, n := seq, nonce
		for at > w.seq {
			body, err := rs.readBody(ctx, c, w.sid, at, n)
			if err != nil {
				return herald.Unavailable(op, err)
			}
			if body == nil {
				break
			}
			chain = append(chain, body)
			at, n = at-1, body.prev
		}
		complete = at == w.seq && n == w.nonce
	}
	if seq > applied {
		var last *rollupBody
		if len(chain) > 0 {
			last = chain[0]
		} else if last, err = rs.readBody(ctx, c, w.sid, seq, nonce); err != nil {
			return herald.Unavailable(op, err)
		}
		if last == nil {
			rs.st.opts.Logger.Warn("rollup: the record of the last commit is gone (older than its TTL); taking it as applied",
				"rollup", d.ID, "shard", w.shard, "seq", seq)
		} else if err := rs.apply(ctx, c, d, w.sid, seq, last); err != nil {
			return herald.Unavailable(op, err)
		}
	}
	if !complete {
		w.forget()
	} else {
		for i := len(chain) - 1; i >= 0; i-- {
			w.cacheRows(chain[i])
			w.cacheSights(chain[i])
		}
	}
	w.seq, w.nonce, w.known = seq, nonce, true
	return nil
}

// pendingChunk is the most bytes of a record in one row.
const pendingChunk = 1 << 20

// writeBody writes the encoded record of commit seq named nonce, in
// chunks.
func (rs *rollupStore) writeBody(ctx context.Context, c *conn, id uuid.UUID, seq int64, nonce uuid.UUID, enc []byte) error {
	of := (len(enc) + pendingChunk - 1) / pendingChunk
	return parallel(of, rollupReadWorkers, func(i int) error {
		part := enc[i*pendingChunk : min(len(enc), (i+1)*pendingChunk)]
		return c.write(rs.cql(`INSERT INTO %s.rollup_pending (rollup_id, seq, nonce, chunk, chunks, body) VALUES (?, ?, ?, ?, ?, ?) USING TTL ?`),
			cqlUUID(id), seq, cqlUUID(nonce), i, of, part, int(pendingTTL/time.Second)).WithContext(ctx).Exec()
	})
}

// readBody reads the record of commit seq named nonce; nil if none.
func (rs *rollupStore) readBody(ctx context.Context, c *conn, id uuid.UUID, seq int64, nonce uuid.UUID) (*rollupBody, error) {
	it := c.s.Query(rs.cql(`SELECT chunk, chunks, body FROM %s.rollup_pending WHERE rollup_id = ? AND seq = ? AND nonce = ?`), cqlUUID(id), seq, cqlUUID(nonce)).
		WithContext(ctx).PageSize(4).Iter()
	var enc, part []byte
	var chunk, of, n int
	for it.Scan(&chunk, &of, &part) {
		if chunk != n {
			it.Close()
			return nil, fmt.Errorf("rollup commit record %d: chunk %d missing", seq, n)
		}
		enc = append(enc, part...)
		n++
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	switch {
	case n == 0:
		return nil, nil
	case n != of:
		return nil, fmt.Errorf("rollup commit record %d: %d of %d chunks", seq, n, of)
	}
	return decodeBody(enc)
}

// maxTTL is Cassandra's largest TTL (20 years).
const maxTTL = 630720000

// bucketTTL is the TTL in seconds of what belongs to bucket start of unit
// u in d (a row, a firing): until the bucket's retention ends after it.
// 0 is none (all-time); expired is true when that end has passed.
func bucketTTL(d *rollup.Definition, u rollup.Unit, start time.Time, wall time.Time) (ttl int, expired bool) {
	until, ok := d.KeptUntil(u, start.Unix())
	if !ok {
		return 0, false
	}
	left := until.Sub(wall)
	if left <= 0 {
		return 0, true
	}
	return int(min(left/time.Second+1, maxTTL)), false
}

// apply writes the record of commit seq of d's commit shard sid, every
// cell USING TIMESTAMP seq, then marks it applied.
func (rs *rollupStore) apply(ctx context.Context, c *conn, d *rollup.Definition, sid uuid.UUID, seq int64, body *rollupBody) error {
	wall := rs.st.opts.Now()
	var ws writeSet
	perPart := map[storedPartition]int{} // rows so far, to cut batches at maxBatchRows
	for _, r := range body.rows {
		ttl, expired := bucketTTL(d, r.row.Unit, time.Unix(r.row.Bucket, 0), wall)
		if expired {
			continue
		}
		sp := storedPartitionOf(r.row)
		k := perPart[sp]
		perPart[sp]++
		part := "r" + strconv.Itoa(r.row.Scope) + "\x00" + r.row.Key + "\x00" + string(r.row.Unit) + "\x00" + strconv.FormatInt(r.row.Bucket, 10) + "\x00" + strconv.Itoa(k/maxBatchRows)
		ws.add(part, rs.cql(`UPDATE %s.rollup_cells USING TTL ? AND TIMESTAMP ? SET sums = ? WHERE rollup_id = ? AND scope = ? AND skey = ? AND unit = ? AND bucket = ? AND dim = ? AND value = ?`),
			ttl, seq, rollup.AppendSums(nil, r.sums), cqlUUID(d.ID), r.row.Scope, r.row.Key, string(r.row.Unit), r.row.Bucket, r.row.Dim, r.row.Value)
	}
	wallMs := wall.UnixMilli()
	for _, e := range body.events {
		ttl := max((e.expiresMs-wallMs)/1000+3600, 60)
		shard := stringShard(e.id, rollupEventShards)
		ws.add(fmt.Sprintf("e%d\x00%d", e.hour, shard), rs.cql(`INSERT INTO %s.rollup_events (rollup_id, hour, shard, event_id, expires_ms) VALUES (?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?`),
			cqlUUID(sid), e.hour, shard, e.id, e.expiresMs, int(min(ttl, maxTTL)), seq)
	}
	for _, f := range body.firings {
		ttl, expired := bucketTTL(d, f.Unit, f.Bucket, wall)
		if expired {
			ttl = 3600 // a crossing of a bucket already gone: publish it, remember it a while
		}
		j, err := jsonFiring(f)
		if err != nil {
			return err
		}
		fshard := stringShard(f.ID, rollupFiredShards)
		ws.add(fmt.Sprintf("f%d", fshard), rs.cql(`INSERT INTO %s.rollup_fired (rollup_id, shard, id) VALUES (?, ?, ?) USING TTL ? AND TIMESTAMP ?`),
			cqlUUID(d.ID), fshard, f.ID, ttl, seq)
		oshard := stringShard(f.ID, rollupOutboxShards)
		ws.add(fmt.Sprintf("o%d", oshard), rs.cql(`INSERT INTO %s.rollup_outbox (shard, id, body) VALUES (?, ?, ?) USING TIMESTAMP ?`),
			oshard, f.ID, j, seq)
	}
	rs.addSights(&ws, d, seq, body, wall)
	if err := rs.addLastFirings(&ws, sid, seq, body.firings); err != nil {
		return err
	}
	if rs.landEventsOnly {
		var events writeSet
		for part, i := range ws.index {
			if part[0] == 'e' {
				for _, st := range ws.groups[i] {
					events.add(part, st.cql, st.args...)
				}
			}
		}
		if err := c.execN(ctx, &events, rollupReadWorkers); err != nil {
			return err
		}
		return errors.New("injected: the rows' writes failed")
	}
	if err := c.execN(ctx, &ws, rollupReadWorkers); err != nil {
		return err
	}
	return c.write(rs.cql(`UPDATE %s.rollup_applied USING TIMESTAMP ? SET seq = ? WHERE rollup_id = ?`), seq, seq, cqlUUID(sid)).WithContext(ctx).Exec()
}

var errNoFiring = errors.New("rollup firing without an ID")

func jsonFiring(f rollup.Firing) ([]byte, error) {
	if f.ID == "" {
		return nil, errNoFiring
	}
	return json.Marshal(f)
}
