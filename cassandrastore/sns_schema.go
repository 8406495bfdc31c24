package cassandrastore

// The SNS tables, created with the cache's and the SQS tables
// (ensureSchema). Both are small per row and rewritten in place (attribute
// changes, confirmations), so both use LCS.
//
// gc_grace_seconds is Cassandra's default of 10 days for both: a deleted
// topic or subscription brought back by a purged tombstone would be
// visible to clients and would receive deliveries, so the usual rule holds
// (repair within gc_grace). Neither table is large enough for its
// tombstones to matter: a subscription delete is one row tombstone in a
// partition of a few thousand rows at most (see below), a topic delete
// removes the subscription partitions with partition tombstones.
var snsTableDefs = []struct{ name, cql string }{
	// Topic records by (account, slot) and name, exactly as sqs_queues
	// keeps queue records (see there): slot is topicSlot(name), FNV-1a of
	// the name modulo snsTopicSlots (128), fixed for good; account carries
	// a ':' prefix (accountKey); every write is a lightweight transaction
	// (create IF NOT EXISTS, update and delete IF id = ?). attributes and
	// tags are JSON objects of strings (empty when there are none, never
	// null, so an insert writes no cell tombstone).
	{"sns_topics", `CREATE TABLE IF NOT EXISTS %[1]s.sns_topics (
		account text,
		slot int,
		name text,
		id uuid,
		attributes blob,
		tags blob,
		created_ns bigint,
		PRIMARY KEY ((account, slot), name)
	) WITH CLUSTERING ORDER BY (name ASC) AND ` + leveled},

	// Subscriptions by (topic id, bucket) and id. bucket is the top six
	// bits of the id's first byte (subBucket), so a topic's subscriptions
	// spread over snsSubBuckets (64) partitions, about 16,000 rows each
	// for a million subscriptions, and the buckets in ascending order hold
	// ascending ids: ListSubscriptions walks them in order, each a
	// clustered range. id is a blob, which Cassandra compares as unsigned
	// bytes, the contract's order (its uuid type sorts by version first).
	// Written with plain upserts; attributes as for sns_topics.
	{"sns_subscriptions", `CREATE TABLE IF NOT EXISTS %[1]s.sns_subscriptions (
		topic_id uuid,
		bucket int,
		id blob,
		topic_account text,
		topic_name text,
		owner text,
		protocol text,
		endpoint text,
		attributes blob,
		pending boolean,
		confirm_token text,
		created_ns bigint,
		PRIMARY KEY ((topic_id, bucket), id)
	) WITH CLUSTERING ORDER BY (id ASC) AND ` + leveled},

	// The filter index (sns.Store): every subscription again, once under
	// each of its sns.FilterIndexKeys ("" when it has none), in the
	// partitions of sns_subscriptions (topic id, bucket) clustered by key
	// then id, so that the subscriptions of one key are a clustered range
	// of each bucket and a topic's entries go with its 64 partitions.
	// A nationwide alert's state keys hold a million rows in all, about
	// 16,000 per partition, as sns_subscriptions does. Written in a logged
	// batch with the record. Added after the first release: ensureSchema
	// creates it in an existing keyspace, and a topic stored before it is
	// indexed by its first publish (sns.Service, filterindex.go).
	{"sns_filter_index", `CREATE TABLE IF NOT EXISTS %[1]s.sns_filter_index (
		topic_id uuid,
		bucket int,
		key text,
		id blob,
		topic_account text,
		topic_name text,
		owner text,
		protocol text,
		endpoint text,
		attributes blob,
		pending boolean,
		confirm_token text,
		created_ns bigint,
		PRIMARY KEY ((topic_id, bucket), key, id)
	) WITH CLUSTERING ORDER BY (key ASC, id ASC) AND ` + leveled},

	// Account records (sns.Store's PutAccountRecord...): an account's SMS
	// attributes, opted-out phone numbers and SMS sandbox numbers, one
	// partition per (account, kind), clustered by key in byte order (a
	// blob, as Cassandra compares blobs). account carries the ':' prefix
	// (accountKey). A kind holds few rows (a handful of attributes, the
	// numbers that opted out); rewritten in place and deleted one row at a
	// time: LCS, default gc_grace as for the other SNS tables. Added after
	// the first release: ensureSchema creates it in an existing keyspace.
	{"sns_account_records", `CREATE TABLE IF NOT EXISTS %[1]s.sns_account_records (
		account text,
		kind text,
		key blob,
		value blob,
		PRIMARY KEY ((account, kind), key)
	) WITH CLUSTERING ORDER BY (key ASC) AND ` + leveled},
}
