// Package pebblestore is Herald's embedded storage engine: an implementation
// of cache.Store on top of a single Pebble (LSM key-value) database.
//
// A message is stored once under its id; the per-path history, the journal
// and the expiry index are ordered keys that refer to it, written together
// with the message in one synced batch. The key layout (see keys.go) is
// chosen so that every query is a single forward range scan: a path's
// history is newest first, so its first unexpired entry is the path's latest
// message, and a node's whole subtree is contiguous, so Children can jump
// from one child to the next with a seek. Expired data is invisible to
// readers at once and reclaimed by a background reaper.
//
// The same DB holds the SQS store (Queues; sqs_*.go), the SNS store
// (Topics) and the rollup store (Rollups; rollup_*.go: one synced batch per
// commit under a lock per rollup, rows written as merges of their deltas
// that Pebble adds up with the DB's merge operator (rollup_merge.go), and
// a reaper for event records and buckets past their retention). keys.go
// has every keyspace; options.go tunes Pebble for it (16 MiB memtables,
// output files ended at keyspace boundaries, values of 256 bytes or more
// kept in blob files that compactions do not rewrite), and Collector
// exports the write path's figures (WAL fsyncs, flushes, compactions) to
// Prometheus.
package pebblestore
