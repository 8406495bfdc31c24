package cassandrastore

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/rollup"
)

// rollupStore is the Cassandra engine's rollup.Store (tables in
// rollup_schema.go, the commit protocol in rollup_commit.go, the one
// committer per rollup in rollup_fold.go). Any number of nodes may commit
// to one rollup: commits are serialised by a lightweight transaction on
// the rollup's sequence number, and the node holding the rollup's lease
// commits the batches of the others, merged.
type rollupStore struct {
	st     *Store
	serial gocql.Consistency

	mu      sync.Mutex
	writers map[uuid.UUID]*rollupWriter // this node's commit state per rollup
	deleted sync.Map                    // rollup IDs seen deleted (never undeleted)

	// failApply, when set (tests), runs between a commit's transaction
	// and its writes: an error stops the commit there, as a node dying.
	failApply func() error
	// landEventsOnly, when set (tests), makes a commit's writes land in
	// part: its event records, not its rows, then fail.
	landEventsOnly bool

	// The committer of each rollup (rollup_fold.go): node names this
	// store's leases; folders are by rollup ID.
	node     uuid.UUID
	folders  map[uuid.UUID]*folder // by commit shard ID
	claiming map[uuid.UUID]int     // leases being taken, by rollup ID (claims)
	// submitters are the nodes seen handing batches to this node's
	// committers, by rollup ID, with when (rebalance); clockSeq numbers
	// this node's inbox records (recordID).
	submitters map[uuid.UUID]map[[6]byte]time.Time
	clockSeq   atomic.Uint32
	leaseTTL   time.Duration
	// direct commits every batch itself, as every node did before the
	// lease (tests and benchmarks compare the two).
	direct bool
	// pauseFold, when set (tests), stops a lease holder reading the
	// inbox, as a holder that hangs.
	pauseFold atomic.Bool
	// slowFold, when set (tests), runs before each commit of a fold
	// loop: a commit that takes long.
	slowFold atomic.Pointer[func()]

	// Folds counts the commits of fold loops, Folded the batches they
	// took, Submitted the batches this node handed to another's, Leases
	// the leases it took, Lost the commit transactions it lost to another
	// node's, Fallbacks the batches it handed over and then committed
	// itself, no outcome having come, Handoffs the leases it gave up for
	// holding more than its share of a rollup's shards.
	Folds, Folded, Submitted, Leases, Lost, Fallbacks, Handoffs atomic.Int64
}

// Check that rollupStore implements the contract.
var _ rollup.Store = (*rollupStore)(nil)

func newRollupStore(st *Store) *rollupStore {
	return &rollupStore{st: st, serial: st.opts.serialConsistency(), writers: map[uuid.UUID]*rollupWriter{},
		node: uuid.New(), folders: map[uuid.UUID]*folder{}, claiming: map[uuid.UUID]int{}, submitters: map[uuid.UUID]map[[6]byte]time.Time{}, leaseTTL: defaultLeaseTTL, direct: st.opts.RollupCommitEach}
}

// Rollups returns the rollup store on the same connection.
func (st *Store) Rollups() rollup.Store { return st.rollups }

// Shards of the rollup tables.
const (
	rollupEventShards  = 16
	rollupFiredShards  = 16
	rollupOutboxShards = 16
	rollupReadWorkers  = 32 // concurrent queries of one call
)

func stringShard(s string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int(h.Sum32() % uint32(n))
}

func (rs *rollupStore) ks() string { return rs.st.opts.Keyspace }

func (rs *rollupStore) cql(format string) string { return fmt.Sprintf(format, rs.ks()) }

func notFoundRollup(account, name string) error {
	return herald.Errorf(herald.ENotFound, "rollup %s/%s does not exist", account, herald.Clip(name))
}

func decodeRollupDef(b []byte) (*rollup.Definition, error) {
	var d rollup.Definition
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	if err := d.Normalize(); err != nil {
		return nil, err
	}
	return &d, nil
}

// PutDefinition writes the definition and creates the rollup's sequence
// (IF NOT EXISTS: a replaced definition keeps its ID and its sequence),
// then deletes the last firings of the triggers it dropped.
func (rs *rollupStore) PutDefinition(ctx context.Context, d *rollup.Definition) error {
	const op = "put rollup"
	c, err := rs.st.enter(ctx, op)
	if err != nil {
		return err
	}
	body, err := json.Marshal(d)
	if err != nil {
		return herald.Errorf(herald.EInternal, "encode rollup definition: %v", err)
	}
	if err := rs.createSeq(ctx, c, d.ID); err != nil {
		return herald.Unavailable(op, err)
	}
	err = c.write(rs.cql(`INSERT INTO %s.rollup_defs (account, name, id, body) VALUES (?, ?, ?, ?)`),
		d.Account, d.Name, cqlUUID(d.ID), body).WithContext(ctx).Exec()
	if err != nil {
		return herald.Unavailable(op, err)
	}
	if err := rs.forgetDroppedTriggers(ctx, c, d); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// createSeq creates rollup id's sequence at 0 unless it exists.
func (rs *rollupStore) createSeq(ctx context.Context, c *conn, id uuid.UUID) error {
	_, err := c.write(rs.cql(`INSERT INTO %s.rollup_seq (rollup_id, seq, nonce, deleted) VALUES (?, 0, ?, false) IF NOT EXISTS`),
		cqlUUID(id), cqlUUID(uuid.Nil)).SerialConsistency(c.serialLevel(rs.serial)).WithContext(ctx).MapScanCAS(map[string]any{})
	return err
}

func (rs *rollupStore) GetDefinition(ctx context.Context, account, name string) (*rollup.Definition, error) {
	const op = "get rollup"
	c, err := rs.st.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	var body []byte
	err = c.s.Query(rs.cql(`SELECT body FROM %s.rollup_defs WHERE account = ? AND name = ?`), account, name).
		WithContext(ctx).Scan(&body)
	switch {
	case err == gocql.ErrNotFound:
		return nil, notFoundRollup(account, name)
	case err != nil:
		return nil, herald.Unavailable(op, err)
	}
	d, err := decodeRollupDef(body)
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return d, nil
}

func (rs *rollupStore) ListDefinitions(ctx context.Context, account, after string, limit int) ([]*rollup.Definition, error) {
	const op = "list rollups"
	c, err := rs.st.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	it := c.s.Query(rs.cql(`SELECT body FROM %s.rollup_defs WHERE account = ? AND name > ? LIMIT ?`), account, after, limit).
		WithContext(ctx).PageSize(pageSize(limit)).Iter()
	return rs.scanDefs(op, it, nil)
}

// scanDefs decodes the bodies it reads, keeping those keep accepts (all
// when nil).
func (rs *rollupStore) scanDefs(op string, it *gocql.Iter, keep func(*rollup.Definition) bool) ([]*rollup.Definition, error) {
	var out []*rollup.Definition
	var body []byte
	for it.Scan(&body) {
		d, err := decodeRollupDef(body)
		if err != nil {
			it.Close()
			return nil, herald.Unavailable(op, err)
		}
		if keep == nil || keep(d) {
			out = append(out, d)
		}
	}
	if err := it.Close(); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return out, nil
}

// Sources reads every definition (a full scan of a small table: at most
// MaxDefinitions per account) and keeps those naming a source.
func (rs *rollupStore) Sources(ctx context.Context) ([]*rollup.Definition, error) {
	const op = "rollup sources"
	c, err := rs.st.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	it := c.s.Query(rs.cql(`SELECT body FROM %s.rollup_defs`)).WithContext(ctx).PageSize(500).Iter()
	return rs.scanDefs(op, it, func(d *rollup.Definition) bool {
		return d.Sources.Queue != "" || d.Sources.CachePattern != "" || d.Sources.AMQPRoutingKey != ""
	})
}

// DeleteDefinition deletes the rollup's last firings, removes the
// definition, then marks the rollup's sequence deleted: no commit to it
// succeeds after that, and reads of its rows and events find nothing. Its
// rows and the values its distinct metrics saw stay until their buckets'
// TTL (all-time ones stay: a known leftover, see docs/rollups.md).
func (rs *rollupStore) DeleteDefinition(ctx context.Context, account, name string) error {
	const op = "delete rollup"
	d, err := rs.GetDefinition(ctx, account, name)
	if err != nil {
		return err
	}
	c, err := rs.st.enter(ctx, op)
	if err != nil {
		return err
	}
	for k := range d.Shards() {
		if err := c.write(rs.cql(`DELETE FROM %s.rollup_last_firing WHERE rollup_id = ?`), cqlUUID(d.ShardID(k))).WithContext(ctx).Exec(); err != nil {
			return herald.Unavailable(op, err)
		}
	}
	if err := c.write(rs.cql(`DELETE FROM %s.rollup_defs WHERE account = ? AND name = ?`), account, name).WithContext(ctx).Exec(); err != nil {
		return herald.Unavailable(op, err)
	}
	// Shard 0's sequence last: it is the rollup's (isDeleted reads it).
	for k := d.Shards() - 1; k >= 0; k-- {
		_, err = c.write(rs.cql(`UPDATE %s.rollup_seq SET deleted = true WHERE rollup_id = ? IF EXISTS`), cqlUUID(d.ShardID(k))).
			SerialConsistency(c.serialLevel(rs.serial)).WithContext(ctx).MapScanCAS(map[string]any{})
		if err != nil {
			return herald.Unavailable(op, err)
		}
	}
	rs.mu.Lock()
	for k := range d.Shards() {
		rs.deleted.Store(d.ShardID(k), true)
		delete(rs.writers, d.ShardID(k))
	}
	rs.mu.Unlock()
	return nil
}

// enterLive returns the connection for one read of op on rollup d; no
// connection when d was deleted (nothing to read, no error) or on an
// error.
func (rs *rollupStore) enterLive(ctx context.Context, op string, d *rollup.Definition) (*conn, error) {
	c, err := rs.st.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	deleted, err := rs.isDeleted(ctx, c, d.ID)
	switch {
	case err != nil:
		return nil, herald.Unavailable(op, err)
	case deleted:
		return nil, nil
	}
	return c, nil
}

// isDeleted reports whether rollup id was deleted (remembered once seen).
func (rs *rollupStore) isDeleted(ctx context.Context, c *conn, id uuid.UUID) (bool, error) {
	if _, ok := rs.deleted.Load(id); ok {
		return true, nil
	}
	var deleted bool
	err := c.s.Query(rs.cql(`SELECT deleted FROM %s.rollup_seq WHERE rollup_id = ?`), cqlUUID(id)).WithContext(ctx).Scan(&deleted)
	switch {
	case err == gocql.ErrNotFound:
		return false, nil
	case err != nil:
		return false, err
	}
	if deleted {
		rs.deleted.Store(id, true)
	}
	return deleted, nil
}

// inQuery is one read of a partition's clustering keys (an IN list).
type inQuery[P comparable] struct {
	part P
	keys []string
}

// inQueries splits the keys wanted per partition into IN lists of at
// most 100 (Cassandra reads each list in one query).
func inQueries[P comparable](groups map[P][]string) []inQuery[P] {
	var out []inQuery[P]
	for p, keys := range groups {
		for len(keys) > 0 {
			n := min(len(keys), 100)
			out = append(out, inQuery[P]{p, keys[:n]})
			keys = keys[n:]
		}
	}
	return out
}

// eventHour is the hour of an event's time, its record's partition.
func eventHour(t time.Time) int64 { return t.Truncate(time.Hour).Unix() }

// committedIDs returns which of events are recorded as committed to
// commit shard k of d and unexpired at now, reading each (hour, shard)
// partition once per 100 IDs. A commit shard's events are keyed by its
// rollup.Definition.ShardID.
func (rs *rollupStore) committedIDs(ctx context.Context, c *conn, d *rollup.Definition, k int, events []rollup.EventKey, now time.Time) (map[string]bool, error) {
	type part struct {
		hour  int64
		shard int
	}
	groups := map[part][]string{}
	for _, e := range events {
		p := part{eventHour(e.Time), stringShard(e.ID, rollupEventShards)}
		groups[p] = append(groups[p], e.ID)
	}
	qs := inQueries(groups)
	var mu sync.Mutex
	out := map[string]bool{}
	nowMs := now.UnixMilli()
	err := parallel(len(qs), rollupReadWorkers, func(i int) error {
		q := qs[i]
		it := c.s.Query(rs.cql(`SELECT event_id, expires_ms FROM %s.rollup_events WHERE rollup_id = ? AND hour = ? AND shard = ? AND event_id IN ?`),
			cqlUUID(d.ShardID(k)), q.part.hour, q.part.shard, q.keys).WithContext(ctx).Iter()
		var id string
		var exp int64
		for it.Scan(&id, &exp) {
			if exp > nowMs {
				mu.Lock()
				out[id] = true
				mu.Unlock()
			}
		}
		return it.Close()
	})
	return out, err
}

func (rs *rollupStore) Committed(ctx context.Context, d *rollup.Definition, shard int, events []rollup.EventKey, now time.Time) (map[string]bool, error) {
	const op = "rollup events"
	c, err := rs.enterLive(ctx, op, d)
	if c == nil {
		if err != nil {
			return nil, err
		}
		return map[string]bool{}, nil
	}
	out, err := rs.committedIDs(ctx, c, d, shard, events, now)
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	if len(out) > 0 {
		// Events committed before come again (a redelivery, a retry):
		// the commit that took them may not have landed (its node's
		// writes failed after its transaction, and the source was told
		// so). Their counts are made visible before the caller takes
		// them as done and acknowledges them: the shard is brought up
		// to its last commit, applying its record if it did not land.
		if err := rs.catchUp(ctx, c, d, shard); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// catchUp brings this node's writer of d's commit shard up to the shard's
// last commit, applying that commit's record unless it landed (sync):
// only when it did not (two plain reads tell), so that finding
// duplicates neither waits for a commit in progress on this node nor
// costs a serial read.
func (rs *rollupStore) catchUp(ctx context.Context, c *conn, d *rollup.Definition, shard int) error {
	done, err := rs.landed(ctx, c, d.ShardID(shard))
	if err != nil || done {
		return err
	}
	w := rs.writer(d, shard)
	w.mu.Lock()
	defer w.mu.Unlock()
	return rs.sync(ctx, c, d, w)
}

// landed reports whether the last commit of commit shard sid landed
// whole: rollup_applied has reached rollup_seq (a plain read of each; a
// shard never committed to has landed).
func (rs *rollupStore) landed(ctx context.Context, c *conn, sid uuid.UUID) (bool, error) {
	const op = "rollup events"
	var seq, applied int64
	err := c.s.Query(rs.cql(`SELECT seq FROM %s.rollup_seq WHERE rollup_id = ?`), cqlUUID(sid)).WithContext(ctx).Scan(&seq)
	switch {
	case err == gocql.ErrNotFound:
		return true, nil
	case err != nil:
		return false, herald.Unavailable(op, err)
	}
	err = c.s.Query(rs.cql(`SELECT seq FROM %s.rollup_applied WHERE rollup_id = ?`), cqlUUID(sid)).WithContext(ctx).Scan(&applied)
	if err != nil && err != gocql.ErrNotFound {
		return false, herald.Unavailable(op, err)
	}
	return applied >= seq, nil
}

// readRows reads rows of d, one query per partition and 100 values,
// and returns those that exist: each with d's metrics, and with keep also
// the sums of metrics a newer version of d added (a commit writes them
// back).
func (rs *rollupStore) readRows(ctx context.Context, c *conn, d *rollup.Definition, rows []rollup.Row, keep bool) (map[rollup.Row][]int64, error) {
	groups := map[rollup.Partition][]string{}
	for _, r := range rows {
		p := rollup.PartitionOf(r)
		groups[p] = append(groups[p], r.Value)
	}
	qs := inQueries(groups)
	var mu sync.Mutex
	out := make(map[rollup.Row][]int64, len(rows))
	err := parallel(len(qs), rollupReadWorkers, func(i int) error {
		q, p := qs[i], qs[i].part
		it := c.s.Query(rs.cql(`SELECT value, sums FROM %s.rollup_cells WHERE rollup_id = ? AND scope = ? AND skey = ? AND unit = ? AND bucket = ? AND dim = ? AND value IN ?`),
			cqlUUID(d.ID), p.Scope, p.Key, string(p.Unit), p.Bucket, p.Dim, q.keys).WithContext(ctx).PageSize(len(q.keys) + 1).Iter()
		return scanRows(it, len(d.Metrics), keep, func(value string, sums []int64) bool {
			r := rollup.Row{Scope: p.Scope, Key: p.Key, Unit: p.Unit, Bucket: p.Bucket, Dim: p.Dim, Value: value}
			mu.Lock()
			out[r] = sums
			mu.Unlock()
			return true
		})
	})
	return out, err
}

func (rs *rollupStore) ReadRows(ctx context.Context, d *rollup.Definition, rows []rollup.Row) ([][]int64, error) {
	const op = "read rollup"
	c, err := rs.enterLive(ctx, op, d)
	if err != nil {
		return nil, err
	}
	out := make([][]int64, len(rows))
	if c == nil {
		return out, nil
	}
	found, err := rs.readRows(ctx, c, d, rows, false)
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	for i, r := range rows {
		out[i] = found[r]
	}
	return out, nil
}

func (rs *rollupStore) ReadPartition(ctx context.Context, d *rollup.Definition, p rollup.Partition, after string, f func(string, []int64) bool) error {
	const op = "read rollup"
	c, err := rs.enterLive(ctx, op, d)
	if c == nil {
		return err
	}
	it := c.s.Query(rs.cql(`SELECT value, sums FROM %s.rollup_cells WHERE rollup_id = ? AND scope = ? AND skey = ? AND unit = ? AND bucket = ? AND dim = ? AND value > ?`),
		cqlUUID(d.ID), p.Scope, p.Key, string(p.Unit), p.Bucket, p.Dim, after).WithContext(ctx).PageSize(1000).Iter()
	if err := scanRows(it, len(d.Metrics), false, f); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// scanRows calls f with each row (value, sums of n metrics, and with keep
// those of metrics past them) it reads, until f returns false, and closes
// it.
func scanRows(it *gocql.Iter, n int, keep bool, f func(value string, sums []int64) bool) error {
	decode := rollup.DecodeSums
	if keep {
		decode = rollup.DecodeSumsKeep
	}
	var value string
	var b []byte
	for it.Scan(&value, &b) {
		sums, ok := decode(b, n)
		if !ok {
			it.Close()
			return rollup.ErrBadSums
		}
		if !f(value, sums) {
			break
		}
	}
	return it.Close()
}

func (rs *rollupStore) PendingFirings(ctx context.Context, limit int) ([]rollup.Firing, error) {
	const op = "rollup firings"
	c, err := rs.st.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	var out []rollup.Firing
	for shard := 0; shard < rollupOutboxShards && len(out) < limit; shard++ {
		it := c.s.Query(rs.cql(`SELECT body FROM %s.rollup_outbox WHERE shard = ? LIMIT ?`), shard, limit-len(out)).WithContext(ctx).Iter()
		var b []byte
		for it.Scan(&b) {
			var f rollup.Firing
			if err := json.Unmarshal(b, &f); err != nil {
				it.Close()
				return nil, herald.Unavailable(op, err)
			}
			out = append(out, f)
		}
		if err := it.Close(); err != nil {
			return nil, herald.Unavailable(op, err)
		}
	}
	return out, nil
}
