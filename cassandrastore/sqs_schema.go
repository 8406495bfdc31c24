package cassandrastore

import "fmt"

// The SQS tables. They live in the same keyspace as the cache's and are
// created with them (ensureSchema), so that opening a keyspace made before
// queues existed adds them.
//
// Shape, after CMB's design (docs/background.md): a queue's messages are
// spread over Queue.Shards partitions, and each shard is cut into buckets
// of one minute of message (ID) time, so that no partition grows without
// bound however busy or long-lived the queue. A small registry per
// (queue, shard) lists the buckets that hold data, so that a scan reads
// them oldest first without probing empty minutes.
//
// Deletes. Unlike the cache, a queue deletes about as much as it writes:
// DeleteMessages writes one row tombstone per message. Reads by id are
// point reads (pos IN ...) that never walk tombstones; only ScanMessages
// (an Index rebuild) slices partitions, and a one-minute bucket bounds the
// tombstones one slice meets: keep a shard's send rate times 60 s well
// below Cassandra's tombstone_failure_threshold (100,000), i.e. give a
// queue more shards above about 1,000 messages/s per shard.
//
// Compaction of sqs_messages: TimeWindowCompactionStrategy with daily
// windows, like the cache's write-once tables. Most messages are deleted
// within seconds of being written, so the delete usually lands in the same
// window as the data and the window's size-tiered compaction merges them;
// what is never deleted expires with its TTL (the retention period, at
// most 14 days by default: a dozen windows), and TWCS drops whole SSTables
// once everything in them has expired or been deleted more than gc_grace
// ago. LeveledCompactionStrategy would purge tombstones sooner but rewrites
// each byte about ten times, which a write-heavy table on small machines
// cannot afford; the state updates of a receive touch a few small cells.
//
// gc_grace_seconds of sqs_messages is 3 hours, as for the cache (hints; see
// schema.go). A delete tombstone purged before a replica that missed the
// delete was repaired can bring that message back: a duplicate delivery,
// which SQS's at-least-once contract allows, never a loss; and the message
// still expires with its TTL.
//
// gc_grace_seconds of sqs_queues is Cassandra's default of 10 days: a
// deleted queue coming back would be visible to clients, so the usual rule
// holds there (repair within gc_grace). The table is small.
var sqsTableDefs = []struct{ name, cql string }{
	// Queue records by (account, slot) (partition) and name (clustering,
	// byte order). slot is queueSlot(name): FNV-1a of the name modulo
	// sqsQueueSlots (128), fixed here for good, since it decides where
	// every stored record lives. One account may hold millions of queues
	// (one per set-top box); 128 slots keep a partition near 8,000 rows
	// (about 4 MB) per million queues, while ListQueues reads the 128
	// partitions concurrently and merges them (sqs_queues.go). account is
	// stored with a ':' prefix because Cassandra refuses an empty
	// partition key. Every write is a lightweight transaction (create IF
	// NOT EXISTS, update and delete IF id = ?), so no plain write ever
	// races a Paxos round. attributes is the JSON of sqs.QueueAttributes;
	// times are Unix nanoseconds (0 for zero). Rewritten in place: LCS.
	{"sqs_queues", `CREATE TABLE IF NOT EXISTS %[1]s.sqs_queues (
		account text,
		slot int,
		name text,
		id uuid,
		shards int,
		attributes blob,
		tags frozen<map<text, text>>,
		created_ns bigint,
		modified_ns bigint,
		purged_ns bigint,
		home_dc text,
		PRIMARY KEY ((account, slot), name)
	) WITH CLUSTERING ORDER BY (name ASC) AND ` + leveled},

	// Messages, one partition per (queue, shard, minute of ID time). pos
	// is the id's 100 ns timestamp (8 bytes, big-endian) followed by the
	// id's 16 bytes, so that rows sort by ID time, then by the id as
	// unsigned bytes (Cassandra's timeuuid order would compare the tail as
	// signed bytes). attrs is the JSON of the user and system attributes.
	// receive_count, first_receive_ns and visible_ns are the delivery
	// state: a receive updates those cells only, never the body. Every
	// cell carries the message's TTL (the state cells an estimate of it,
	// see stateExpiryMs); rows whose sent_ns is null are state cells
	// written without a message (a state update that raced a delete) and
	// are ignored.
	{"sqs_messages", `CREATE TABLE IF NOT EXISTS %[1]s.sqs_messages (
		queue_id uuid,
		shard int,
		bucket bigint,
		pos blob,
		body text,
		attrs blob,
		sender_id text,
		sent_ns bigint,
		expires_ns bigint,
		group_id text,
		dedup_id text,
		sequence text,
		dlq_source text,
		receive_count int,
		first_receive_ns bigint,
		visible_ns bigint,
		PRIMARY KEY ((queue_id, shard, bucket), pos)
	) WITH CLUSTERING ORDER BY (pos ASC) AND ` + twcsDaily +
		fmt.Sprintf(` AND gc_grace_seconds = %d`, gcGraceSeconds)},

	// The buckets of a queue's shard that hold messages, oldest first.
	// Written like history_buckets: USING TIMESTAMP <expiry µs> AND TTL
	// until the latest expiry of the bucket's messages (rounded up, once
	// per process and step; see marks.go), so the registry empties itself.
	// LCS; gc_grace 3 h as for history_buckets.
	{"sqs_buckets", `CREATE TABLE IF NOT EXISTS %[1]s.sqs_buckets (
		queue_id uuid,
		shard int,
		bucket bigint,
		PRIMARY KEY ((queue_id, shard), bucket)
	) WITH CLUSTERING ORDER BY (bucket ASC) AND ` + leveled +
		fmt.Sprintf(` AND gc_grace_seconds = %d`, gcGraceSeconds)},

	// Queues whose Index may lack messages (MarkUnindexed), spread over
	// sqsUnindexedSlots partitions by queue id so that a burst of marks
	// (Redis down) does not make one hot partition; each data center has
	// its own slots (unindexedSlot0). Rows are TTL'd
	// (sqsUnindexedTTL) and deleted when taken. A mark purged and brought
	// back costs one extra rebuild: gc_grace 3 h. LCS (small, churned).
	{"sqs_unindexed", `CREATE TABLE IF NOT EXISTS %[1]s.sqs_unindexed (
		slot int,
		queue_id uuid,
		marked_ns bigint,
		PRIMARY KEY (slot, queue_id)
	) WITH ` + leveled + fmt.Sprintf(` AND gc_grace_seconds = %d`, gcGraceSeconds)},

	// The index epoch of each data center (sqs.IndexEpochs,
	// sqs_index_epoch.go): every queue's built marker in that data
	// center's Redis must carry it. dc is ":" + Options.LocalDC (LocalDC
	// is "" in one data center; a partition key cannot be empty). Written USING TIMESTAMP of the epoch itself, so that of two
	// bumps the higher wins whatever order they land in: the epoch never
	// goes down. A handful of rows, rarely written.
	{"sqs_index_epoch", `CREATE TABLE IF NOT EXISTS %[1]s.sqs_index_epoch (
		dc text PRIMARY KEY,
		epoch bigint
	) WITH ` + leveled},
}
