package cassandrastore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/rollup"
)

// The last firing of each trigger (rollup_last_firing). Like the rollup's
// other cells, every cell is written USING TIMESTAMP derived from the
// sequence number seq of the commit that recorded the firing, so the
// order in which writes land does not matter:
//
//   - the firing, by the commit's apply (or a replay of it): 4·seq;
//   - a failed publish of it: 4·seq + 1; its publish: 4·seq + 2. A publish
//     outlives the failures before it, and the outcome of an older firing,
//     landing late, never replaces that of a newer one (4·seq' ≥ 4·seq + 4);
//     a reader takes an outcome only for the firing it names. An outcome is
//     written after reading the row, as LastFiring.SetPublished and
//     SetFailed allow (not over a publish); the failures of one firing share
//     a timestamp, on which Cassandra keeps the greater value: an outcome
//     starts with its time (8 bytes big-endian), so the latest failure is
//     kept (and of two publishes racing, the later);
//   - a trigger the definition drops: a row deletion at 4·s + 3, s the
//     rollup's last commit then (a serial read). It hides the firings of
//     commits up to s and their outcomes, not those of later commits (the
//     trigger added again).
//
// A deleted rollup's partition is deleted with the client's clock, far
// above any 4·seq: its ID is never used again.
//
// A rollup of several commit shards (rollup/shard.go) has a partition per
// shard, keyed by the shard's ID, whose timestamps derive from that
// shard's sequence: each shard records the last of its own firings, and
// LastFirings takes, of each trigger, the one committed last (At), then
// of the latest bucket.
const (
	tsFiring int64 = iota
	tsFailed
	tsPublished
	tsDropped
)

// lastFiringTS is the timestamp of a write of kind for commit seq.
func lastFiringTS(seq, kind int64) int64 { return 4*seq + kind }

// lastOutcome is what became of a firing's notification (after the 8
// bytes of its time in the outcome column).
type lastOutcome struct {
	FiringID  string `json:"firing_id"`
	Published bool   `json:"published,omitempty"`
	Error     string `json:"error,omitempty"`
}

var errBadOutcome = errors.New("rollup last firing: malformed outcome")

// encodeOutcome encodes what became of l's notification.
func encodeOutcome(l rollup.LastFiring) ([]byte, error) {
	at := l.ErrorAt
	if l.Published {
		at = l.PublishedAt
	}
	j, err := json.Marshal(lastOutcome{FiringID: l.FiringID, Published: l.Published, Error: l.Error})
	return append(binary.BigEndian.AppendUint64(nil, uint64(at.UnixMilli())), j...), err
}

// decodeLastFiring reads a row's firing and outcome (nil: none).
func decodeLastFiring(firing, outcome []byte) (rollup.LastFiring, error) {
	var l rollup.LastFiring
	if err := json.Unmarshal(firing, &l); err != nil || outcome == nil {
		return l, err
	}
	var o lastOutcome
	if len(outcome) < 8 || json.Unmarshal(outcome[8:], &o) != nil {
		return l, errBadOutcome
	}
	at := time.UnixMilli(int64(binary.BigEndian.Uint64(outcome)))
	if o.Published {
		l.SetPublished(o.FiringID, at)
	} else {
		l.SetFailed(o.FiringID, at, o.Error)
	}
	return l, nil
}

// addLastFirings adds to ws the writes of commit seq of rollup id that
// make the last of its firings of each trigger that trigger's last firing.
func (rs *rollupStore) addLastFirings(ws *writeSet, id uuid.UUID, seq int64, firings []rollup.Firing) error {
	for _, f := range rollup.LastOfEach(firings) {
		b, err := json.Marshal(f.Last())
		if err != nil {
			return err
		}
		ws.add("l", rs.cql(`UPDATE %s.rollup_last_firing USING TIMESTAMP ? SET firing = ? WHERE rollup_id = ? AND trigger = ?`),
			lastFiringTS(seq, tsFiring), b, cqlUUID(id), f.Trigger)
	}
	return nil
}

func (rs *rollupStore) LastFirings(ctx context.Context, d *rollup.Definition) (map[string]rollup.LastFiring, error) {
	const op = "rollup last firings"
	out := map[string]rollup.LastFiring{}
	c, err := rs.enterLive(ctx, op, d)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return out, nil // deleted
	}
	for k := range d.Shards() {
		it := c.s.Query(rs.cql(`SELECT trigger, firing, outcome FROM %s.rollup_last_firing WHERE rollup_id = ?`), cqlUUID(d.ShardID(k))).
			WithContext(ctx).PageSize(rollup.MaxTriggers + 1).Iter()
		var trigger string
		var firing, outcome []byte
		for it.Scan(&trigger, &firing, &outcome) {
			// A commit of a stale definition may record a trigger d dropped.
			if firing != nil && d.HasTrigger(trigger) {
				l, err := decodeLastFiring(firing, outcome)
				if err != nil {
					it.Close()
					return nil, herald.Unavailable(op, err)
				}
				if cur, ok := out[trigger]; !ok || laterFiring(l, cur) {
					out[trigger] = l
				}
			}
			firing, outcome = nil, nil
		}
		if err := it.Close(); err != nil {
			return nil, herald.Unavailable(op, err)
		}
	}
	return out, nil
}

// laterFiring reports whether a is a later last firing than b (of two
// commit shards): committed later, then of a later bucket, then the
// greater ID.
func laterFiring(a, b rollup.LastFiring) bool {
	if c := a.At.Compare(b.At); c != 0 {
		return c > 0
	}
	if c := a.Bucket.Compare(b.Bucket); c != 0 {
		return c > 0
	}
	return a.FiringID > b.FiringID
}

// FiringDone records the publish in the firing's last firing, then
// deletes the firing from the outbox, with the client's timestamp: larger
// than any commit's, so a late re-apply of the commit that recorded it
// never brings it back. (In the other order, a failure between the two
// would leave the last firing unpublished for good.)
func (rs *rollupStore) FiringDone(ctx context.Context, f rollup.Firing, at time.Time) error {
	const op = "rollup firings"
	if err := rs.settle(ctx, op, f, tsPublished, func(l *rollup.LastFiring) bool { return l.SetPublished(f.ID, at) }); err != nil {
		return err
	}
	c, err := rs.st.enter(ctx, op)
	if err != nil {
		return err
	}
	if err := c.write(rs.cql(`DELETE FROM %s.rollup_outbox WHERE shard = ? AND id = ?`), stringShard(f.ID, rollupOutboxShards), f.ID).WithContext(ctx).Exec(); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

func (rs *rollupStore) FiringFailed(ctx context.Context, f rollup.Firing, at time.Time, reason string) error {
	return rs.settle(ctx, "rollup firings", f, tsFailed, func(l *rollup.LastFiring) bool { return l.SetFailed(f.ID, at, reason) })
}

// settle reads f's trigger's last firing and, if change changes it (f
// still is it, and the change is allowed), writes its new outcome, of
// kind, with the timestamp of the commit that recorded f.
func (rs *rollupStore) settle(ctx context.Context, op string, f rollup.Firing, kind int64, change func(*rollup.LastFiring) bool) error {
	d, err := rs.GetDefinition(ctx, f.Account, f.Rollup)
	switch {
	case herald.ErrorCode(err) == herald.ENotFound:
		return nil // deleted: no last firing to tell
	case err != nil:
		return err
	}
	c, err := rs.st.enter(ctx, op)
	if err != nil {
		return err
	}
	// The commit shard that recorded f holds it as its last firing, if
	// it still is (a firing does not name its shard: each is read).
	var firing, outcome []byte
	var written int64
	var l rollup.LastFiring
	sid := uuid.Nil
	for k := range d.Shards() {
		firing, outcome = nil, nil
		err = c.s.Query(rs.cql(`SELECT firing, WRITETIME(firing), outcome FROM %s.rollup_last_firing WHERE rollup_id = ? AND trigger = ?`), cqlUUID(d.ShardID(k)), f.Trigger).
			WithContext(ctx).Scan(&firing, &written, &outcome)
		switch {
		case err == gocql.ErrNotFound:
			continue
		case err != nil:
			return herald.Unavailable(op, err)
		}
		if firing == nil {
			continue // the trigger was dropped
		}
		if l, err = decodeLastFiring(firing, outcome); err != nil {
			return herald.Unavailable(op, err)
		}
		if l.FiringID == f.ID {
			sid = d.ShardID(k)
			break
		}
	}
	if sid == uuid.Nil || !change(&l) {
		return nil // another firing is the last now, or this one was published
	}
	b, err := encodeOutcome(l)
	if err != nil {
		return herald.Errorf(herald.EInternal, "encode rollup firing outcome: %v", err)
	}
	err = c.write(rs.cql(`UPDATE %s.rollup_last_firing USING TIMESTAMP ? SET outcome = ? WHERE rollup_id = ? AND trigger = ?`),
		written-tsFiring+kind, b, cqlUUID(sid), f.Trigger).WithContext(ctx).Exec()
	if err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// forgetDroppedTriggers deletes the last firings of the triggers rollup
// d.ID has a last firing of and d has not, in each commit shard, as of
// the shard's last commit.
func (rs *rollupStore) forgetDroppedTriggers(ctx context.Context, c *conn, d *rollup.Definition) error {
	for k := range d.Shards() {
		if err := rs.forgetDroppedIn(ctx, c, d, d.ShardID(k)); err != nil {
			return err
		}
	}
	return nil
}

// forgetDroppedIn is forgetDroppedTriggers in the commit shard sid.
func (rs *rollupStore) forgetDroppedIn(ctx context.Context, c *conn, d *rollup.Definition, sid uuid.UUID) error {
	it := c.s.Query(rs.cql(`SELECT trigger FROM %s.rollup_last_firing WHERE rollup_id = ?`), cqlUUID(sid)).
		WithContext(ctx).PageSize(rollup.MaxTriggers + 1).Iter()
	var dropped []string
	var trigger string
	for it.Scan(&trigger) {
		if !d.HasTrigger(trigger) {
			dropped = append(dropped, trigger)
		}
	}
	if err := it.Close(); err != nil || len(dropped) == 0 {
		return err
	}
	var seq int64
	err := c.s.Query(rs.cql(`SELECT seq FROM %s.rollup_seq WHERE rollup_id = ?`), cqlUUID(sid)).
		Consistency(c.serialLevel(rs.serial)).WithContext(ctx).Scan(&seq)
	if err != nil && err != gocql.ErrNotFound {
		return err
	}
	var ws writeSet
	for _, t := range dropped {
		ws.add("l", rs.cql(`DELETE FROM %s.rollup_last_firing USING TIMESTAMP ? WHERE rollup_id = ? AND trigger = ?`),
			lastFiringTS(seq, tsDropped), cqlUUID(sid), t)
	}
	return c.exec(ctx, &ws)
}
