// Package cassandrastore is Herald's Apache Cassandra storage engine, for
// deployments where several Herald processes share one store (Cassandra
// 5.0 or newer): cache.Store (below), and on the same connection the SQS
// store (Queues; sqs_*.go), the SNS store (Topics; sns*.go) and the rollup
// store (Rollups; rollup*.go: commits serialised by a lightweight
// transaction per rollup, absolute values written USING TIMESTAMP of the
// commit's number, see rollup_commit.go).
//
// # Layout of the message cache
//
// A message is written once by id (table messages) and referred to from five
// index tables (history, history_buckets, nodes, journal, journal_buckets),
// each one query per read with no multi-partition transaction (the
// CQL, with the reasoning behind each choice, is in schema.go):
//
//   - history: a path's messages newest first, partitioned by (path, time
//     bucket) so a path written millions of times never makes one huge
//     partition; history_buckets lists which buckets of a path hold data, so
//     reads never probe empty buckets.
//   - nodes: the path tree. Every prefix of every path is a row (parent,
//     word) with the time until which something at or below it lives; a
//     path's own row also holds a reference to its latest message, resolved
//     by Cassandra's last-write-wins on the message time.
//   - journal: references by time received, partitioned by (time bucket,
//     shard) so the present is spread over several partitions;
//     journal_buckets lists the buckets that hold data.
//
// Every cell carries a TTL, so expired data disappears without a delete;
// reads also compare each stored expiry with the clock, because TTLs have
// whole-second granularity.
//
// # Writes
//
// PutMessage looks the id up (unless the id is fresh), writes every index
// entry concurrently (statements for one partition share an unlogged batch),
// and writes the messages row last, once every index write succeeded: a put
// that fails half-way leaves no message behind, so the client's retry
// redoes it instead of being taken for a duplicate.
//
// # Availability
//
// Open returns at once and connects in the background, retrying with
// backoff; schema creation happens once connected. Until then, and whenever
// Cassandra cannot be reached, every method fails quickly with a
// herald.Unavailable error (HTTP 503). After the first connection the
// driver reconnects by itself. Ready waits for the first connection and
// then serves as a health check.
package cassandrastore
