package pebblestore

import (
	"encoding/binary"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/rollup"
)

// Keyspaces of the rollup store (RollupStore), sharing the DB with the
// message cache, the queues and the topics; keys.go has the whole table.
//
//	'R' uvarint(len account) account name                     definition (JSON)
//	'C' rollupID(16) partition value                          row: zigzag varint per metric, written as merges of deltas
//	'D' rollupID(16) eventID                                  committed event: expiry ms (8 BE)
//	'E' expiry ms(8 BE) rollupID(16) eventID                  empty: when a committed event's record may go
//	'F' firingID                                              empty: this crossing fired (never again)
//	'O' firingID                                              firing to publish (JSON), until published
//	'L' rollupID(16) triggerID                                the trigger's last firing (JSON rollup.LastFiring)
//	'X' expiry ms(8 BE) rollupID(16) unit(1) bucket(8 BE)     account 0x00 name: when a bucket leaves its retention
//	'M' rollupID(16) partition uvarint(len value) value uvarint(metric) member
//	                                                          a distinct metric's value seen in a row: first ms (8 BE)
//
// partition is uvarint(scope) uvarint(len key) key unit(1) bucket(8 BE,
// sign bit flipped) uvarint(dim+1): a partition's rows (its dimension's
// values) are one key range in byte order of their values, so a top-N
// query reads one range per bucket. Everything of a rollup is under its ID,
// so deleting it is a range deletion per keyspace.
const (
	prefixRollupDef   byte = 'R' // rollup definitions by account and name
	prefixRollupRow   byte = 'C' // rollup counter rows
	prefixRollupEvent byte = 'D' // rollup events committed, for deduplication
	prefixEventExpiry byte = 'E' // committed events by expiry, for the reaper
	prefixFired       byte = 'F' // trigger crossings that fired
	prefixOutbox      byte = 'O' // trigger firings not yet published
	prefixLastFiring  byte = 'L' // the last firing of each trigger
	prefixBucketEnd   byte = 'X' // rollup buckets by the end of their retention, for the reaper
	prefixSight       byte = 'M' // values of distinct metrics seen (rollup.Sight)
)

// bucketEndKey indexes bucket (Unix seconds) of unit u of rollup id by
// when it leaves its retention.
func bucketEndKey(expMs int64, id uuid.UUID, u rollup.Unit, bucket int64) []byte {
	k := make([]byte, 0, 1+8+16+1+8)
	k = append(k, prefixBucketEnd)
	k = binary.BigEndian.AppendUint64(k, uint64(expMs))
	k = append(k, id[:]...)
	k = append(k, unitByte(u))
	return binary.BigEndian.AppendUint64(k, uint64(bucket)^(1<<63))
}

func firingKey(kind byte, id string) []byte { return append([]byte{kind}, id...) }

func rollupDefKey(account, name string) []byte {
	k := make([]byte, 0, 1+binary.MaxVarintLen64+len(account)+len(name))
	k = append(k, prefixRollupDef)
	k = binary.AppendUvarint(k, uint64(len(account)))
	k = append(k, account...)
	return append(k, name...)
}

func rollupDefPrefix(account string) []byte { return rollupDefKey(account, "") }

// rollupPrefix is the prefix of rollup id's keys in keyspace kind.
func rollupPrefix(kind byte, id uuid.UUID) []byte {
	return append([]byte{kind}, id[:]...)
}

func unitByte(u rollup.Unit) byte {
	for i, x := range rollup.Units {
		if x == u {
			return byte(i)
		}
	}
	return 0xff
}

// partitionKey is the prefix of partition p's rows, with room for extra
// bytes more.
func partitionKey(id uuid.UUID, p rollup.Partition, extra int) []byte {
	k := make([]byte, 0, 1+16+3*binary.MaxVarintLen64+len(p.Key)+9+extra)
	return appendPartitionKey(k, id, p.Scope, p.Key, p.Unit, p.Bucket, p.Dim)
}

func appendPartitionKey(k []byte, id uuid.UUID, scope int, key string, u rollup.Unit, bucket int64, dim int) []byte {
	return appendPartitionKeyIn(k, prefixRollupRow, id, scope, key, u, bucket, dim)
}

// appendPartitionKeyIn is appendPartitionKey in keyspace kind (rows, or
// the sights of their distinct metrics, laid out alike so that the
// reaper reads the bucket of both the same way).
func appendPartitionKeyIn(k []byte, kind byte, id uuid.UUID, scope int, key string, u rollup.Unit, bucket int64, dim int) []byte {
	k = append(k, kind)
	k = append(k, id[:]...)
	k = binary.AppendUvarint(k, uint64(scope))
	k = binary.AppendUvarint(k, uint64(len(key)))
	k = append(k, key...)
	k = append(k, unitByte(u))
	k = binary.BigEndian.AppendUint64(k, uint64(bucket)^(1<<63))
	return binary.AppendUvarint(k, uint64(dim+1))
}

func rowKey(id uuid.UUID, r rollup.Row) []byte { return appendRowKey(nil, id, r) }

// appendRowKey appends row r's key to k.
func appendRowKey(k []byte, id uuid.UUID, r rollup.Row) []byte {
	return append(appendPartitionKey(k, id, r.Scope, r.Key, r.Unit, r.Bucket, r.Dim), r.Value...)
}

// sightKey is the key of sight x of rollup id: its set's row key with the
// row's value length-prefixed, then the metric and the value seen.
func sightKey(id uuid.UUID, x rollup.Sight) []byte {
	r := x.Set
	k := appendPartitionKeyIn(make([]byte, 0, 64+len(r.Key)+len(r.Value)+len(x.Value)), prefixSight, id, r.Scope, r.Key, r.Unit, r.Bucket, r.Dim)
	k = binary.AppendUvarint(k, uint64(len(r.Value)))
	k = append(k, r.Value...)
	k = binary.AppendUvarint(k, uint64(x.Metric))
	return append(k, x.Value...)
}

// shardEvent is how the record of event in commit shard k of a rollup
// names it: the ID itself in shard 0 (as before shards), else 0xFF, the
// shard as a uvarint and the ID. Event IDs are JSON strings, valid UTF-8,
// which never holds the byte 0xFF: the names of two shards never meet.
// The records of every shard share the rollup's prefix and lock.
func shardEvent(k int, event string) string {
	if k == 0 {
		return event
	}
	b := binary.AppendUvarint([]byte{0xff}, uint64(k))
	return string(append(b, event...))
}

func rollupEventKey(id uuid.UUID, event string) []byte {
	return append(rollupPrefix(prefixRollupEvent, id), event...)
}

// eventExpiryKey indexes event of rollup id by when its record expires.
func eventExpiryKey(expMs int64, id uuid.UUID, event string) []byte {
	k := make([]byte, 0, 1+8+16+len(event))
	k = append(k, prefixEventExpiry)
	k = binary.BigEndian.AppendUint64(k, uint64(expMs))
	k = append(k, id[:]...)
	return append(k, event...)
}
