package cassandrastore

import (
	"context"
	"fmt"
	"slices"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// The schema of the cache's tables (the SQS and SNS tables, which do
// delete, are described in sqs_schema.go and sns_schema.go). Nothing in
// the cache ever deletes: every data cell is written with a TTL (until
// the message's ExpiresAt, rounded up to whole seconds), and expired cells
// are dropped by compaction. Tables of write-once, time-ordered data use
// TimeWindowCompactionStrategy, so that whole SSTables expire together and
// are dropped without being rewritten; the tables rewritten in place
// (nodes, the bucket lists) use LeveledCompactionStrategy, which keeps a
// partition in few SSTables so that reads of a frequently overwritten row
// stay cheap.
//
// gc_grace_seconds. Since no statement deletes, tombstones here come only
// from expired TTLs, and an expired cell cannot bring anything back to life
// ("zombie" data) the way a purged delete tombstone can: every replica that
// received a cell received it with the same expiry. What gc_grace still
// governs is hints: a hint for a mutation lives no longer than the smallest
// gc_grace_seconds of the tables it touches, so going below Cassandra's
// default max_hint_window (3 hours) would let hints for a replica that was
// down a while expire undelivered. Every table therefore uses 3 hours
// (10800 s), down from the default 10 days, so expired data and expired
// SSTables (TWCS drops an SSTable only when all of it expired more than
// gc_grace ago) leave the disk soon. If you raise max_hint_window, raise
// gc_grace_seconds with it (ALTER TABLE).
//
// Timestamps in the future. nodes.live_until, nodes.own_until and the rows
// of history_buckets and journal_buckets are written USING TIMESTAMP <their
// expiry in µs> (see tree.go), so their write timestamps lie up to a TTL in
// the future, and nodes.latest is written at the message time. That does
// not delay expiry, which follows the TTL, but it does affect purging: a
// tombstone (here: an expired cell) is purged only when no other SSTable
// outside the compaction may hold older data of the same partition, which
// Cassandra decides by comparing timestamps. Since these cells have the
// largest timestamps of their partitions, their tombstones are purged only
// once a compaction covers every SSTable holding the partition. With LCS
// that happens as data moves down the levels; the tables are small (one
// row per tree node or bucket, overwritten in place), so the cost is some
// tombstones kept longer, not unbounded growth. The TWCS tables are written
// with ordinary (current) timestamps, so TWCS windows and whole-SSTable
// expiry work as usual.

const (
	// gcGraceSeconds is 3 hours, the default max_hint_window: see above.
	gcGraceSeconds = 10800

	twcsDaily = `compaction = {'class': 'TimeWindowCompactionStrategy', ` +
		`'compaction_window_unit': 'DAYS', 'compaction_window_size': '1'}`
	leveled = `compaction = {'class': 'LeveledCompactionStrategy'}`
	// tiered is for tables written far more than read, whose rows are
	// overwritten often (rollup counter rows): Cassandra 5's unified
	// strategy with tiered levels of fan-out 4 rewrites each byte a few
	// times, not about ten times as leveled compaction does (on one node
	// under herald bench rollups, Cassandra's CPU per event fell by a
	// third; BENCHMARKS.md).
	tiered = `compaction = {'class': 'UnifiedCompactionStrategy', 'scaling_parameters': 'T4'}`
)

// tableDefs are the CREATE TABLE statements, in creation order; %[1]s is
// the keyspace.
var tableDefs = []struct{ name, cql string }{
	// A message by id. Written last in a put. Its TTL is the message's, so
	// TWCS with daily windows (TTLs are up to a month by default: a few
	// dozen windows) drops whole SSTables as their messages expire.
	// metadata is a blob so that its bytes come back exactly as written;
	// paths are joined by '\n' (no collection in this hot row). gc_grace:
	// rows are never deleted and are rewritten only when an expired id is
	// reused, by a write with a later expiry; 3 h keeps hints deliverable.
	{"messages", `CREATE TABLE IF NOT EXISTS %[1]s.messages (
		id uuid PRIMARY KEY,
		replica_id uuid,
		metadata blob,
		paths text,
		body blob,
		received_at bigint,
		expires_at bigint
	) WITH ` + twcsDaily + fmt.Sprintf(` AND gc_grace_seconds = %d`, gcGraceSeconds)},

	// A path's messages newest first, in buckets of message time
	// (layout.historyBucketMs, one day by default) so that no partition
	// grows without bound when a path is written millions of times. ticks
	// is the id's 100 ns timestamp; id is a blob because Cassandra's
	// timeuuid order compares the non-time bytes as signed, while Herald
	// orders ties by unsigned bytes, which is how blobs compare. Rows are
	// write-once (a reused expired id rewrites the same row with a later
	// expiry); TWCS daily as for messages; gc_grace 3 h for hints.
	{"history", `CREATE TABLE IF NOT EXISTS %[1]s.history (
		path text,
		bucket bigint,
		ticks bigint,
		id blob,
		expires_at bigint,
		PRIMARY KEY ((path, bucket), ticks, id)
	) WITH CLUSTERING ORDER BY (ticks DESC, id DESC) AND ` + twcsDaily +
		fmt.Sprintf(` AND gc_grace_seconds = %d`, gcGraceSeconds)},

	// The buckets of a path that hold data, newest first, so that History
	// never probes empty buckets. The row's only liveness is its row
	// marker, written USING TIMESTAMP <expiry µs> AND TTL so that the
	// longest-lived write wins. Overwritten in place: LCS. gc_grace 3 h:
	// an expired marker hides nothing that could come back (a marker with
	// a lower timestamp always expires earlier).
	{"history_buckets", `CREATE TABLE IF NOT EXISTS %[1]s.history_buckets (
		path text,
		bucket bigint,
		PRIMARY KEY (path, bucket)
	) WITH CLUSTERING ORDER BY (bucket DESC) AND ` + leveled +
		fmt.Sprintf(` AND gc_grace_seconds = %d`, gcGraceSeconds)},

	// The path tree: one row per node, in its parent's partition ("." is
	// the root, since Cassandra refuses empty partition keys). live_until:
	// until when something at or below the node lives; own_until: until
	// when a message of the node itself lives; kids_until: until when
	// something below it lives (so walks skip the children of leaves); all
	// written USING TIMESTAMP <expiry µs>. latest: the node's newest message (see
	// encodeLatest), written USING TIMESTAMP <message time µs>, so that a
	// late older message loses. Overwritten constantly: LCS. gc_grace 3 h:
	// when an expired latest cell is purged on one replica while another
	// still holds an older message it had shadowed, read repair may bring
	// that older reference back; it is then the newest unexpired message,
	// which is the right answer, and reads check its expiry anyway.
	{"nodes", `CREATE TABLE IF NOT EXISTS %[1]s.nodes (
		parent text,
		word text,
		live_until bigint,
		own_until bigint,
		kids_until bigint,
		latest blob,
		PRIMARY KEY (parent, word)
	) WITH CLUSTERING ORDER BY (word ASC) AND ` + leveled +
		fmt.Sprintf(` AND gc_grace_seconds = %d`, gcGraceSeconds)},

	// References by time received, oldest first, in buckets of
	// layout.journalBucketMs (10 minutes by default), each spread over
	// layout.journalShards partitions by a hash of the id, so that the
	// present is not one hot partition. Write-once; TWCS daily (hourly
	// windows would mean up to 720 windows for 30-day TTLs, far above the
	// few dozen TWCS is meant for; a bucket is written within minutes, so
	// its rows share a window either way). gc_grace 3 h for hints.
	{"journal", `CREATE TABLE IF NOT EXISTS %[1]s.journal (
		bucket bigint,
		shard int,
		received_ms bigint,
		id blob,
		expires_at bigint,
		PRIMARY KEY ((bucket, shard), received_ms, id)
	) WITH CLUSTERING ORDER BY (received_ms ASC, id ASC) AND ` + twcsDaily +
		fmt.Sprintf(` AND gc_grace_seconds = %d`, gcGraceSeconds)},

	// The journal buckets that hold data, one partition per span of 32
	// days (span = the bucket's start truncated to 32 days, in Unix ms), so
	// that a journal query over a long, sparse window reads a few rows here
	// instead of probing every shard of every bucket (a month of 10-minute
	// buckets is 4320 buckets, 34560 partitions). Written like
	// history_buckets (expiry timestamp), but each process writes a
	// bucket's row only when its expiry must grow (see marks.go), so this
	// partition is not hot. LCS; gc_grace 3 h as for history_buckets.
	{"journal_buckets", `CREATE TABLE IF NOT EXISTS %[1]s.journal_buckets (
		span bigint,
		bucket bigint,
		PRIMARY KEY (span, bucket)
	) WITH CLUSTERING ORDER BY (bucket ASC) AND ` + leveled +
		fmt.Sprintf(` AND gc_grace_seconds = %d`, gcGraceSeconds)},

	// What retention removes (cache.Store.ExpiredSince, expired.go): for
	// each second messages expire in, the latest time received of those
	// messages, rounded up to the second, by day of expiry. Written USING
	// TIMESTAMP <that time in µs>, so last-write-wins keeps the latest
	// whatever order the writes arrive in, and once per second and expiry
	// second by each process (marks.go), so not hot. A row lives until
	// maxExpiredLookback after its expiry. LCS; gc_grace 3 h.
	{"expiry_marks", `CREATE TABLE IF NOT EXISTS %[1]s.expiry_marks (
		day bigint,
		expires_s bigint,
		received_ms bigint,
		PRIMARY KEY (day, expires_s)
	) WITH CLUSTERING ORDER BY (expires_s ASC) AND ` + leveled +
		fmt.Sprintf(` AND gc_grace_seconds = %d`, gcGraceSeconds)},

	// The layout the keyspace was created with (bucket widths, shards),
	// one row, written once with IF NOT EXISTS and read at every start, so
	// every process uses the layout the data was written with. It is
	// configuration, not cached data: no TTL. Default gc_grace (never
	// deleted, never overwritten).
	{"layout", `CREATE TABLE IF NOT EXISTS %[1]s.layout (
		name text PRIMARY KEY,
		history_bucket_ms bigint,
		journal_bucket_ms bigint,
		journal_shards int
	)`},
	// The keyspace's incarnation (Store.Epoch): one row, written once
	// with IF NOT EXISTS by the first process to need it, never changed.
	// A keyspace wiped or restored from a snapshot has another.
	{"epoch", `CREATE TABLE IF NOT EXISTS %[1]s.epoch (
		name text PRIMARY KEY,
		epoch text
	)`},
	// Each data center's heartbeat (heartbeat.go): the time its nodes
	// last wrote, read in the other data centers to tell how far behind
	// replication from it is. One row per data center, overwritten every
	// second; the TTL drops the row of a data center gone for a day.
	{"dc_heartbeat", `CREATE TABLE IF NOT EXISTS %[1]s.dc_heartbeat (
		dc text PRIMARY KEY,
		at_ms bigint
	) WITH default_time_to_live = 86400 AND gc_grace_seconds = 10800`},

	// The fenced data centers (fences.go, sqs.Fences): a row per data
	// center an operator took out of service after its loss, naming the
	// one that took over its queues. Written by 'herald dc fence' and
	// deleted by 'herald dc unfence'; read by every node each second.
	{"dc_fences", `CREATE TABLE IF NOT EXISTS %[1]s.dc_fences (
		dc text PRIMARY KEY,
		taker text,
		fenced_ms bigint
	) WITH gc_grace_seconds = 10800`},

	// Settings every node reads (settings.go, limits.Store): the rate
	// limits set at run time. A row per setting, written by the admin API
	// and read by every node every few seconds. Default gc_grace.
	{"settings", `CREATE TABLE IF NOT EXISTS %[1]s.settings (
		name text PRIMARY KEY,
		value text,
		changed_ms bigint
	)`},
}

// ensureSchema creates the keyspace and the tables that do not exist yet,
// then reads (or, in a new keyspace, stores) the layout. It first looks at
// system_schema, so that a keyspace prepared by an operator needs no
// CREATE permission.
func ensureSchema(ctx context.Context, s *gocql.Session, o Options) (layout, error) {
	existing := map[string]bool{}
	iter := s.Query(`SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?`, o.Keyspace).WithContext(ctx).Iter()
	var name string
	for iter.Scan(&name) {
		existing[name] = true
	}
	if err := iter.Close(); err != nil {
		return layout{}, fmt.Errorf("read schema: %w", err)
	}
	if len(existing) == 0 {
		var ks string
		err := s.Query(`SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?`, o.Keyspace).WithContext(ctx).Scan(&ks)
		if err == gocql.ErrNotFound {
			repl, err := o.Replication.cql()
			if err != nil {
				return layout{}, err
			}
			stmt := fmt.Sprintf(`CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s AND durable_writes = true`, o.Keyspace, repl)
			if err := s.Query(stmt).WithContext(ctx).Exec(); err != nil {
				return layout{}, fmt.Errorf("create keyspace %s: %w", o.Keyspace, err)
			}
			o.Logger.Info("cassandra: created keyspace", "keyspace", o.Keyspace, "replication", repl)
		} else if err != nil {
			return layout{}, fmt.Errorf("read schema: %w", err)
		}
	}
	for _, t := range slices.Concat(tableDefs, sqsTableDefs, snsTableDefs, rollupTableDefs) {
		if existing[t.name] {
			continue
		}
		if err := s.Query(fmt.Sprintf(t.cql, o.Keyspace)).WithContext(ctx).Exec(); err != nil {
			return layout{}, fmt.Errorf("create table %s.%s: %w", o.Keyspace, t.name, err)
		}
		o.Logger.Info("cassandra: created table", "table", o.Keyspace+"."+t.name)
	}
	if err := addMissingColumns(ctx, s, o, existing); err != nil {
		return layout{}, err
	}
	if err := migrateRollupRows(ctx, s, o, existing); err != nil {
		return layout{}, err
	}
	return ensureLayout(ctx, s, o)
}

// ensureLayout stores the layout of o in a new keyspace, or returns the
// one already stored. Writing it is the cache's only lightweight
// transaction, run once per connection (the SQS queue records use others).
func ensureLayout(ctx context.Context, s *gocql.Session, o Options) (layout, error) {
	want := layout{o.HistoryBucket.Milliseconds(), o.JournalBucket.Milliseconds(), o.JournalShards}
	read := func() (layout, error) {
		var l layout
		err := s.Query(fmt.Sprintf(`SELECT history_bucket_ms, journal_bucket_ms, journal_shards FROM %s.layout WHERE name = 'layout'`, o.Keyspace)).
			WithContext(ctx).Consistency(gocql.Serial).Scan(&l.historyBucketMs, &l.journalBucketMs, &l.journalShards)
		return l, err
	}
	got, err := read()
	if err == gocql.ErrNotFound {
		stmt := fmt.Sprintf(`INSERT INTO %s.layout (name, history_bucket_ms, journal_bucket_ms, journal_shards) VALUES ('layout', ?, ?, ?) IF NOT EXISTS`, o.Keyspace)
		row := map[string]any{}
		if _, err := s.Query(stmt, want.historyBucketMs, want.journalBucketMs, want.journalShards).WithContext(ctx).MapScanCAS(row); err != nil {
			return layout{}, fmt.Errorf("store layout: %w", err)
		}
		got, err = read()
	}
	if err != nil {
		return layout{}, fmt.Errorf("read layout: %w", err)
	}
	if err := checkLayout(got); err != nil {
		return layout{}, fmt.Errorf("stored layout of keyspace %s: %w", o.Keyspace, err)
	}
	if got != want {
		o.Logger.Warn("cassandra: the keyspace keeps the layout it was created with; options differ and are ignored",
			"keyspace", o.Keyspace,
			"history_bucket", msDuration(got.historyBucketMs), "journal_bucket", msDuration(got.journalBucketMs), "journal_shards", got.journalShards,
			"option_history_bucket", o.HistoryBucket, "option_journal_bucket", o.JournalBucket, "option_journal_shards", o.JournalShards)
	}
	return got, nil
}

// msDuration converts milliseconds to a duration.
func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
