package cassandrastore

// The rollup tables, created with the others (ensureSchema). A rollup's
// rows, events and commit log are keyed by its definition's ID, never
// reused, so a rollup defined again starts empty.
//
// Commits are serialised per commit shard of a rollup (rollup/shard.go;
// the tables of a shard's commits, rollup_seq to rollup_pending, and its
// rollup_events and rollup_last_firing, are keyed by the shard's ID,
// rollup.Definition.ShardID, the rollup's own for shard 0; the rows and
// the values seen by the rollup's) by rollup_seq, a lightweight
// transaction per commit (rollup_commit.go has the protocol): each row of
// rollup_cells holds an absolute value written USING TIMESTAMP of the
// commit's sequence number, so a late or repeated write of an older commit
// never overwrites a newer value. No table uses the counter type: a counter
// update retried after a timeout may have applied, and counters take no
// TTL.
var rollupTableDefs = []struct{ name, cql string }{
	// Definitions by account and name (at most MaxDefinitions per
	// account, 1,000 by default); body is the definition as JSON.
	{"rollup_defs", `CREATE TABLE IF NOT EXISTS %[1]s.rollup_defs (
		account text,
		name text,
		id uuid,
		body blob,
		PRIMARY KEY (account, name)
	) WITH CLUSTERING ORDER BY (name ASC) AND ` + leveled},

	// The commit sequence of each rollup: seq is the number of the last
	// commit and nonce names its record in rollup_pending. Written only
	// by lightweight transactions (insert IF NOT EXISTS, a commit's
	// UPDATE ... IF seq = ? AND nonce = ? AND deleted = false, a delete's
	// UPDATE ... IF EXISTS).
	{"rollup_seq", `CREATE TABLE IF NOT EXISTS %[1]s.rollup_seq (
		rollup_id uuid PRIMARY KEY,
		seq bigint,
		nonce uuid,
		deleted boolean
	) WITH ` + leveled},

	// The committer of each rollup (rollup_fold.go): the node holding
	// the lease commits for every node, until until_ms; written only by
	// lightweight transactions, with a TTL of the lease's length.
	{"rollup_lease", `CREATE TABLE IF NOT EXISTS %[1]s.rollup_lease (
		rollup_id uuid PRIMARY KEY,
		holder uuid,
		until_ms bigint
	) WITH ` + leveled},

	// Batches other nodes hand to a rollup's committer (rollup_fold.go):
	// a partition per rollup and 10 s slot, a record per batch (a
	// timeuuid) in chunks like rollup_pending's, with the number of
	// metrics of its writer's version of the definition; outcome, on
	// chunk 0, is written by the committer once it folded the record.
	// Kept an hour.
	{"rollup_inbox", `CREATE TABLE IF NOT EXISTS %[1]s.rollup_inbox (
		rollup_id uuid,
		slot bigint,
		id timeuuid,
		chunk int,
		chunks int,
		metrics int,
		now_ms bigint,
		body blob,
		outcome text,
		PRIMARY KEY ((rollup_id, slot), id, chunk)
	) WITH ` + twcsDaily},

	// The last commit whose writes all landed, written USING TIMESTAMP
	// seq once they did (so it only ever grows).
	{"rollup_applied", `CREATE TABLE IF NOT EXISTS %[1]s.rollup_applied (
		rollup_id uuid PRIMARY KEY,
		seq bigint
	) WITH ` + leveled},

	// Each commit's writes (rollupBody), written before its transaction
	// and kept for pendingTTL, so that whoever commits next can apply
	// them if their committer did not, and other writers can bring their
	// row caches up to date. One partition per record, in chunks of at
	// most pendingChunk bytes (a CQL message is at most 8 MiB by
	// default); chunks is their number.
	{"rollup_pending", `CREATE TABLE IF NOT EXISTS %[1]s.rollup_pending (
		rollup_id uuid,
		seq bigint,
		nonce uuid,
		chunk int,
		chunks int,
		body blob,
		PRIMARY KEY ((rollup_id, seq, nonce), chunk)
	) WITH ` + twcsDaily},

	// Counter rows: a partition is one scope's values in one bucket of one
	// period, so its size is bounded by the bucket and the cardinalities
	// of the dimensions; its rows are the total (dim -1) and each
	// dimension's values, by dimension and then in byte order of the value
	// (a top-N query reads one slice per bucket). One partition for every
	// dimension, not one per dimension: a commit of this sparse shape
	// touches one or two rows of most partitions, so it writes and reads
	// about 19 times fewer partitions (BENCHMARKS.md). sums are zigzag
	// varints, one per metric. Rows expire with their bucket's retention
	// (TTL); all-time rows do not.
	{"rollup_cells", `CREATE TABLE IF NOT EXISTS %[1]s.rollup_cells (
		rollup_id uuid,
		scope int,
		skey text,
		unit text,
		bucket bigint,
		dim int,
		value text,
		sums blob,
		PRIMARY KEY ((rollup_id, scope, skey, unit, bucket), dim, value)
	) WITH CLUSTERING ORDER BY (dim ASC, value ASC) AND ` + tiered},

	// Committed events, by the hour of the event's time and one of
	// rollupEventShards shards of its ID (so a partition holds at most an
	// hour of one rollup's events over the shards), until the dedup
	// window ends (expires_ms, and a TTL a little longer).
	{"rollup_events", `CREATE TABLE IF NOT EXISTS %[1]s.rollup_events (
		rollup_id uuid,
		hour bigint,
		shard int,
		event_id text,
		expires_ms bigint,
		PRIMARY KEY ((rollup_id, hour, shard), event_id)
	) WITH ` + twcsDaily},

	// Values of distinct metrics seen (rollup.Sight): a partition holds
	// those of one cells partition (one scope's values in one bucket of
	// one period) and one metric, with first_ms when each was first seen
	// by event time; the sets of all-time rows (an All period, and every
	// first_seen metric's series) are spread over rollupSightShards
	// partitions by the value seen, the others live in shard 0. Written
	// like the cells, USING TIMESTAMP of the commit, and kept as long as
	// their bucket (TTL; the all-time ones for good).
	{"rollup_seen", `CREATE TABLE IF NOT EXISTS %[1]s.rollup_seen (
		rollup_id uuid,
		scope int,
		skey text,
		unit text,
		bucket bigint,
		metric int,
		shard int,
		dim int,
		value text,
		member text,
		first_ms bigint,
		PRIMARY KEY ((rollup_id, scope, skey, unit, bucket, metric, shard), dim, value, member)
	) WITH ` + tiered},

	// Trigger crossings that fired (each firing ID once ever; kept as
	// long as the crossing's bucket).
	{"rollup_fired", `CREATE TABLE IF NOT EXISTS %[1]s.rollup_fired (
		rollup_id uuid,
		shard int,
		id text,
		PRIMARY KEY ((rollup_id, shard), id)
	) WITH ` + leveled},

	// Firings not yet published, over rollupOutboxShards partitions;
	// deleted once published.
	{"rollup_outbox", `CREATE TABLE IF NOT EXISTS %[1]s.rollup_outbox (
		shard int,
		id text,
		body blob,
		PRIMARY KEY (shard, id)
	) WITH ` + leveled},

	// The last firing of each trigger: a partition per rollup, a row per
	// trigger (at most MaxTriggers), overwritten in place. firing is the
	// rollup.LastFiring a commit recorded, outcome what became of its
	// notification; both written with timestamps derived from the
	// commit's sequence number (rollup_lastfiring.go).
	{"rollup_last_firing", `CREATE TABLE IF NOT EXISTS %[1]s.rollup_last_firing (
		rollup_id uuid,
		trigger text,
		firing blob,
		outcome blob,
		PRIMARY KEY (rollup_id, trigger)
	) WITH ` + leveled},
}
