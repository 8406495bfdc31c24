package cassandrastore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/rollup"
)

// The lease and the inbox of rollup_fold.go.

// takeLease takes rollup id's lease for this node if nobody holds it;
// until is when the holder's lease ends otherwise.
func (rs *rollupStore) takeLease(ctx context.Context, c *conn, id uuid.UUID) (took bool, until time.Time, err error) {
	ttl := rs.leaseTTL
	cur := map[string]any{}
	applied, err := c.write(rs.cql(`INSERT INTO %s.rollup_lease (rollup_id, holder, until_ms) VALUES (?, ?, ?) IF NOT EXISTS USING TTL ?`),
		cqlUUID(id), cqlUUID(rs.node), time.Now().Add(ttl).UnixMilli(), leaseSeconds(ttl)).
		SerialConsistency(c.serialLevel(rs.serial)).Idempotent(false).WithContext(ctx).MapScanCAS(cur)
	if err != nil {
		return false, time.Time{}, err
	}
	if applied {
		rs.Leases.Add(1)
		return true, time.Time{}, nil
	}
	if h, ok := cur["holder"].(gocql.UUID); ok && uuid.UUID(h) == rs.node {
		return true, time.Time{}, nil // this node's, from a loop that just ended
	}
	ms, _ := cur["until_ms"].(int64)
	return false, time.UnixMilli(ms), nil
}

// renewLease extends this node's lease; false if another node holds it.
func (rs *rollupStore) renewLease(ctx context.Context, c *conn, id uuid.UUID) (bool, error) {
	ttl := rs.leaseTTL
	// Both cells are written again: a TTL is a cell's, and a holder
	// cell left to its first TTL would expire under a renewed until_ms.
	return c.write(rs.cql(`UPDATE %s.rollup_lease USING TTL ? SET holder = ?, until_ms = ? WHERE rollup_id = ? IF holder = ?`),
		leaseSeconds(ttl), cqlUUID(rs.node), time.Now().Add(ttl).UnixMilli(), cqlUUID(id), cqlUUID(rs.node)).
		SerialConsistency(c.serialLevel(rs.serial)).Idempotent(false).WithContext(ctx).MapScanCAS(map[string]any{})
}

// releaseLease gives this node's lease up.
func (rs *rollupStore) releaseLease(ctx context.Context, c *conn, id uuid.UUID) error {
	_, err := c.write(rs.cql(`DELETE FROM %s.rollup_lease WHERE rollup_id = ? IF holder = ?`), cqlUUID(id), cqlUUID(rs.node)).
		SerialConsistency(c.serialLevel(rs.serial)).Idempotent(false).WithContext(ctx).MapScanCAS(map[string]any{})
	return err
}

// leaseHeld reports whether anybody holds rollup id's lease.
func (rs *rollupStore) leaseHeld(ctx context.Context, c *conn, id uuid.UUID) (bool, error) {
	var holder *gocql.UUID
	err := c.s.Query(rs.cql(`SELECT holder FROM %s.rollup_lease WHERE rollup_id = ?`), cqlUUID(id)).
		Consistency(c.serialLevel(rs.serial)).WithContext(ctx).Scan(&holder)
	if err == gocql.ErrNotFound {
		return false, nil
	}
	return err == nil && holder != nil, err
}

// leaseSeconds is a lease's TTL in whole seconds. Cassandra ends a TTL on
// a whole second, so a lease lasts at least ttl - 1 s after it was taken
// or renewed; renewals come every ttl/3.
func leaseSeconds(ttl time.Duration) int { return max(int(ttl/time.Second), 2) }

// recordID is a timeuuid of at for an inbox record whose node field is
// this node's (the first 6 bytes of rs.node): a committer learns from its
// inbox which nodes commit to the rollup (rebalance).
func (rs *rollupStore) recordID(at time.Time) gocql.UUID {
	const gregorian = 0x01B21DD213814000 // 100 ns intervals from 1582-10-15 to 1970-01-01
	return gocql.TimeUUIDWith(at.UnixNano()/100+gregorian, rs.clockSeq.Add(1), rs.node[:6])
}

// leaseCheck is how often a writer waiting for its record's outcome
// reads whether anybody holds the lease (taking it if not): a lease given
// up for balance (rebalance) is free until a writer notices.
func leaseCheck(ttl time.Duration) time.Duration { return min(ttl/2, 250*time.Millisecond) }

// inboxRec names one record of the inbox.
type inboxRec struct {
	rollup uuid.UUID
	slot   int64
	id     gocql.UUID
}

func slotOf(t time.Time) int64 { return t.UnixMilli() / inboxSlot.Milliseconds() }

// encodeBatch encodes b for the inbox as a commit record of its deltas
// (rollupBody: its rows with their sums, its events, whose expiresMs holds
// the event's time in ms, and its sights).
func encodeBatch(b *rollup.Batch) ([]byte, error) {
	p := &rollupBody{rows: make([]bodyRow, 0, b.Len())}
	for r, sums := range b.Rows() {
		p.rows = append(p.rows, bodyRow{r, sums})
	}
	for _, k := range b.Keys() {
		p.events = append(p.events, bodyEvent{id: k.ID, hour: eventHour(k.Time), expiresMs: k.Time.UnixMilli()})
	}
	for x, at := range b.Sights() {
		p.sights = append(p.sights, bodySight{x, at.UnixMilli()})
	}
	return p.encode()
}

// decodeBatch reads a batch of d's commit shard shard from an inbox
// record (each shard has its own inbox).
func decodeBatch(d *rollup.Definition, shard int, enc []byte) (*rollup.Batch, error) {
	p, err := decodeBody(enc)
	if err != nil {
		return nil, err
	}
	rows := make(map[rollup.Row][]int64, len(p.rows))
	for _, r := range p.rows {
		rows[r.row] = r.sums
	}
	keys := make([]rollup.EventKey, len(p.events))
	for i, e := range p.events {
		keys[i] = rollup.EventKey{ID: e.id, Time: time.UnixMilli(e.expiresMs)}
	}
	sights := make(map[rollup.Sight]time.Time, len(p.sights))
	for _, s := range p.sights {
		sights[s.sight] = time.UnixMilli(s.firstMs)
	}
	return rollup.BatchFrom(d, shard, rows, keys, sights), nil
}

// submit commits b through the lease holder: it writes b into the inbox
// and waits for the outcome the holder writes there; when nobody holds
// the lease any more it takes it, and its own fold loop folds the record;
// with no outcome after submitPatience it commits b itself.
func (rs *rollupStore) submit(ctx context.Context, c *conn, f *folder, d *rollup.Definition, b *rollup.Batch, now time.Time) error {
	const op = "commit rollup"
	enc, err := encodeBatch(b)
	if err != nil {
		return herald.Errorf(herald.EInternal, "encode rollup batch: %v", err)
	}
	at := time.Now()
	rec := &inboxRec{rollup: f.id, slot: slotOf(at), id: rs.recordID(at)}
	of := (len(enc) + pendingChunk - 1) / pendingChunk
	err = parallel(of, rollupReadWorkers, func(i int) error {
		part := enc[i*pendingChunk : min(len(enc), (i+1)*pendingChunk)]
		return c.write(rs.cql(`INSERT INTO %s.rollup_inbox (rollup_id, slot, id, chunk, chunks, metrics, now_ms, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?) USING TTL ?`),
			cqlUUID(f.id), rec.slot, rec.id, i, of, len(d.Metrics), now.UnixMilli(), part, int(inboxTTL/time.Second)).WithContext(ctx).Exec()
	})
	if err != nil {
		return herald.Unavailable(op, err)
	}
	rs.Submitted.Add(1)
	giveUp := at.Add(submitPatience(rs.leaseTTL))
	taken := false
	checkLease := at.Add(leaseCheck(rs.leaseTTL))
	for attempt := 0; ; attempt++ {
		wait := min(lossBackoff(attempt), outcomePollMax)
		if !herald.Sleep(ctx, time.Duration(rand.Int64N(int64(wait)))+time.Millisecond) {
			return herald.Unavailable(op, ctx.Err())
		}
		var outcome string
		err := c.s.Query(rs.cql(`SELECT outcome FROM %s.rollup_inbox WHERE rollup_id = ? AND slot = ? AND id = ? AND chunk = 0`),
			cqlUUID(f.id), rec.slot, rec.id).WithContext(ctx).Scan(&outcome)
		switch {
		case err == gocql.ErrNotFound:
			return herald.Unavailable(op, fmt.Errorf("the inbox record of this batch is gone"))
		case err != nil:
			return herald.Unavailable(op, err)
		case outcome == outcomeTaken:
			if !taken {
				taken = true
				giveUp = at.Add(takenPatience(rs.leaseTTL))
			}
		case outcome != "":
			return errorOf(d, outcome)
		}
		if time.Now().After(giveUp) {
			// No committer answered (one that never read the record,
			// as when this node's clock is far behind its own): this
			// node commits the batch itself. Exact either way: should
			// the holder fold the record too, whichever commits second
			// finds its events committed.
			rs.Fallbacks.Add(1)
			rs.st.opts.Logger.Warn("rollup: no outcome from the rollup's committer; committing the batch here", "rollup", d.ID, "shard", f.shard, "waited", time.Since(at).Round(time.Millisecond), "taken", taken)
			return rs.commitDirect(ctx, c, d, b, now)
		}
		if time.Now().After(checkLease) {
			checkLease = time.Now().Add(leaseCheck(rs.leaseTTL))
			if held, err := rs.leaseHeld(ctx, c, f.id); err == nil && !held {
				// The holder is gone: this node takes over, and its
				// fold loop reads this record back.
				f.mu.Lock()
				f.other = time.Time{}
				f.mu.Unlock()
				if _, err := f.lead(ctx, c); err != nil {
					return herald.Unavailable(op, err)
				}
			}
		}
	}
}

// inboxScan is where a fold loop is in the inbox: it reads from from, and
// remembers the records it took.
type inboxScan struct {
	from time.Time
	seen map[gocql.UUID]time.Time
}

// scanInbox returns the inbox records written since the scan's position
// without an outcome, as batches of d (or of the definition read again,
// returned, when a record holds more metrics than d: a writer had a newer
// version), and moves the position to inboxLag ago.
func (rs *rollupStore) scanInbox(ctx context.Context, c *conn, f *folder, d *rollup.Definition, s *inboxScan) ([]*foldReq, *rollup.Definition, error) {
	now := time.Now()
	type pending struct {
		rec     *inboxRec
		metrics int
		now     time.Time // the writer's clock
	}
	var todo []pending
	for slot := slotOf(s.from); slot <= slotOf(now); slot++ {
		it := c.s.Query(rs.cql(`SELECT id, metrics, now_ms, outcome FROM %s.rollup_inbox WHERE rollup_id = ? AND slot = ? AND id > minTimeuuid(?) AND chunk = 0 ALLOW FILTERING`),
			cqlUUID(f.id), slot, s.from).WithContext(ctx).PageSize(1000).Iter()
		var id gocql.UUID
		var metrics int
		var nowMs int64
		var outcome string
		for it.Scan(&id, &metrics, &nowMs, &outcome) {
			if _, ok := s.seen[id]; ok || (outcome != "" && outcome != outcomeTaken) {
				continue
			}
			todo = append(todo, pending{&inboxRec{rollup: f.id, slot: slot, id: id}, metrics, time.UnixMilli(nowMs)})
			rs.sawSubmitter(f.rollup, [6]byte(id[10:16]), now)
		}
		if err := it.Close(); err != nil {
			return nil, d, err
		}
	}
	s.from = now.Add(-inboxLag)
	for id, at := range s.seen {
		if at.Before(s.from.Add(-time.Minute)) {
			delete(s.seen, id)
		}
	}
	if len(todo) == 0 {
		return nil, d, nil
	}
	for _, p := range todo {
		if p.metrics > len(d.Metrics) {
			fresh, err := rs.GetDefinition(ctx, d.Account, d.Name)
			if err != nil {
				return nil, d, err
			}
			f.note(fresh)
			d = fresh
			break
		}
	}
	reqs := make([]*foldReq, 0, len(todo))
	var firstErr error
	for _, p := range todo {
		b, err := rs.readInbox(ctx, c, d, f.shard, p.rec)
		if err != nil {
			firstErr = err // read again by the next scan, while it reaches it
			continue
		}
		s.seen[p.rec.id] = p.rec.id.Time() // only records taken: a scan that failed reads them again
		reqs = append(reqs, &foldReq{b: b, now: p.now, rec: p.rec})
	}
	// Tell the writers their batches are in hand (takenPatience); a write
	// that fails only leaves its writer the shorter patience.
	_ = parallel(len(reqs), rollupReadWorkers, func(i int) error {
		_ = rs.writeOutcome(ctx, c, reqs[i].rec, outcomeTaken)
		return nil
	})
	return reqs, d, firstErr
}

// readInbox reads the batch of record rec.
func (rs *rollupStore) readInbox(ctx context.Context, c *conn, d *rollup.Definition, shard int, rec *inboxRec) (*rollup.Batch, error) {
	it := c.s.Query(rs.cql(`SELECT chunk, chunks, body FROM %s.rollup_inbox WHERE rollup_id = ? AND slot = ? AND id = ?`),
		cqlUUID(rec.rollup), rec.slot, rec.id).WithContext(ctx).PageSize(4).Iter()
	var enc, part []byte
	var chunk, of, n int
	for it.Scan(&chunk, &of, &part) {
		if chunk != n {
			it.Close()
			return nil, fmt.Errorf("rollup inbox record: chunk %d missing", n)
		}
		enc = append(enc, part...)
		n++
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	if n == 0 || n != of {
		return nil, fmt.Errorf("rollup inbox record: %d of %d chunks", n, of)
	}
	return decodeBatch(d, shard, enc)
}

// writeOutcome writes the outcome of record rec for its writer.
func (rs *rollupStore) writeOutcome(ctx context.Context, c *conn, rec *inboxRec, outcome string) error {
	return c.write(rs.cql(`UPDATE %s.rollup_inbox USING TTL ? SET outcome = ? WHERE rollup_id = ? AND slot = ? AND id = ? AND chunk = 0`),
		int(inboxTTL/time.Second), outcome, cqlUUID(rec.rollup), rec.slot, rec.id).WithContext(ctx).Exec()
}
