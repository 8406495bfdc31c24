package pebblestore

import (
	"encoding/binary"

	"github.com/google/uuid"
)

// Keyspaces of the SQS queue store (QueueStore), sharing the DB with the
// message cache; keys.go has the whole table.
//
//	'q' uvarint(len account) account name          queue record (sqs_codec.go)
//	'u' queueID(16)                                  empty: queue may lack Index entries
//	's' queueID(16) shard(2 BE) tid(16)             message record
//	's' queueID(16) shard(2 BE) tid(16) 0x01        message state
//	'e' ms(expiry bucket end) queueID shard sbucket  empty: messages to reap
//
// tid is the message id with its timestamp first (as in 'm' keys), so a
// shard's messages sort oldest first by id time and a queue, a shard, or
// the messages sent in a span of time are each one key range. The state
// key extends its record's key, so it sorts right after it: a scan or a
// seek reads a message and its state together, yet a receive rewrites only
// the small state.
//
// 'e' entries are coarse: one per queue shard, span of sending
// (sbucket: the first 8 bytes of tid, rounded down to bucketTicks) and span
// of expiry (rounded up to expiryBucket). A put writes the entry of its
// messages in its batch (the same key again and again, absorbed by the
// memtable); deletes never touch it, so they need no read. The reaper scans
// each due entry's span of messages and deletes the expired ones.
const (
	prefixQueue     byte = 'q' // SQS queue records by account and name
	prefixUnindexed byte = 'u' // SQS queues whose Index may lack messages
	prefixSQSMsg    byte = 's' // SQS messages and their states
	prefixSQSExpiry byte = 'e' // SQS expiry buckets for the reaper
)

// sqsStateSuffix ends a state key; sqsAfterSuffix sorts after it, to resume
// a scan past one message.
const (
	sqsStateSuffix byte = 0x01
	sqsAfterSuffix byte = 0x02
)

const (
	shardLen          = 2
	sqsShardPrefixLen = 1 + idLen + shardLen
	sqsMsgKeyLen      = sqsShardPrefixLen + idLen
	sqsStateKeyLen    = sqsMsgKeyLen + 1
	sqsExpiryKeyLen   = 1 + msLen + idLen + shardLen + 8
)

// Expiry buckets. One minute of sending per entry keeps entries few (one
// per busy queue shard and minute) while a reap scans a small span; one
// minute of expiry granularity delays reclaiming by at most that.
const (
	bucketTicks    = 60 * 10_000_000 // 60 s in 100 ns UUID ticks
	expiryBucketMs = 60_000
)

// queueKey returns the key of the queue record of account and name.
func queueKey(account, name string) []byte {
	k := queueAccountPrefix(account, len(name))
	return append(k, name...)
}

// queueAccountPrefix returns the prefix shared by the queues of account;
// extra is spare capacity for a name.
func queueAccountPrefix(account string, extra int) []byte {
	k := make([]byte, 0, 1+binary.MaxVarintLen64+len(account)+extra)
	k = append(k, prefixQueue)
	k = binary.AppendUvarint(k, uint64(len(account)))
	return append(k, account...)
}

// nameFromQueueKey returns the queue name at the end of a key of the
// account whose prefix is accountPrefix.
func nameFromQueueKey(key, accountPrefix []byte) string {
	return string(key[len(accountPrefix):])
}

// unindexedKey returns the mark of a queue whose Index may lack messages.
func unindexedKey(queueID uuid.UUID) []byte {
	k := make([]byte, 0, 1+idLen)
	k = append(k, prefixUnindexed)
	return append(k, queueID[:]...)
}

// sqsQueuePrefix returns the prefix of all the messages of a queue.
func sqsQueuePrefix(queueID uuid.UUID) []byte {
	k := make([]byte, 0, 1+idLen)
	k = append(k, prefixSQSMsg)
	return append(k, queueID[:]...)
}

// sqsShardPrefix returns the prefix of the messages of one shard of a
// queue; spare capacity is left for a message id and suffix.
func sqsShardPrefix(queueID uuid.UUID, shard int) []byte {
	return appendSQSShardPrefix(make([]byte, 0, sqsStateKeyLen+1), queueID, shard)
}

// appendSQSShardPrefix appends the prefix of the messages of one shard of
// a queue to dst.
func appendSQSShardPrefix(dst []byte, queueID uuid.UUID, shard int) []byte {
	dst = append(dst, prefixSQSMsg)
	dst = append(dst, queueID[:]...)
	return binary.BigEndian.AppendUint16(dst, uint16(shard))
}

// appendTID appends id with its timestamp first: time_hi (with the
// version), time_mid, time_low, then clock sequence and node.
func appendTID(dst []byte, id uuid.UUID) []byte {
	dst = append(dst, id[6:8]...)
	dst = append(dst, id[4:6]...)
	dst = append(dst, id[0:4]...)
	return append(dst, id[8:]...)
}

// tidToID inverts appendTID.
func tidToID(tid []byte) (id uuid.UUID) {
	copy(id[6:8], tid[0:2])
	copy(id[4:6], tid[2:4])
	copy(id[0:4], tid[4:8])
	copy(id[8:], tid[8:16])
	return id
}

// tidHigh returns the first 8 bytes of id's tid as a number: for a v1 UUID,
// the version in the top 4 bits and the 100 ns timestamp below.
func tidHigh(id uuid.UUID) uint64 {
	return uint64(id[6])<<56 | uint64(id[7])<<48 | uint64(id[4])<<40 | uint64(id[5])<<32 |
		uint64(id[0])<<24 | uint64(id[1])<<16 | uint64(id[2])<<8 | uint64(id[3])
}

// sqsMsgKey returns the key of a message record.
func sqsMsgKey(queueID uuid.UUID, shard int, id uuid.UUID) []byte {
	return appendTID(sqsShardPrefix(queueID, shard), id)
}

// sqsStateKey returns the key of a message's state.
func sqsStateKey(queueID uuid.UUID, shard int, id uuid.UUID) []byte {
	return append(sqsMsgKey(queueID, shard, id), sqsStateSuffix)
}

// sqsHighBound returns the first key of a shard at tidHigh value high: the
// bound between the messages before and from it.
func sqsHighBound(queueID uuid.UUID, shard int, high uint64) []byte {
	return binary.BigEndian.AppendUint64(sqsShardPrefix(queueID, shard), high)
}

// parseSQSMsgKey splits a message or state key. state is true for a state
// key; ok is false for a key of neither shape.
func parseSQSMsgKey(key []byte) (shard int, id uuid.UUID, state, ok bool) {
	switch {
	case len(key) == sqsMsgKeyLen:
	case len(key) == sqsStateKeyLen && key[sqsMsgKeyLen] == sqsStateSuffix:
		state = true
	default:
		return 0, id, false, false
	}
	shard = int(binary.BigEndian.Uint16(key[1+idLen:]))
	return shard, tidToID(key[sqsShardPrefixLen:sqsMsgKeyLen]), state, true
}

// sqsExpiry is one entry of the SQS expiry index: the messages of a queue
// shard sent in [high, high+bucketTicks) (tidHigh values) whose expiry
// falls in the bucket ending at endMs.
type sqsExpiry struct {
	endMs   int64
	queueID uuid.UUID
	shard   int
	high    uint64
}

// sqsExpiryOf returns the expiry entry covering a message.
func sqsExpiryOf(queueID uuid.UUID, shard int, id uuid.UUID, expiresMs int64) sqsExpiry {
	// Round up to a bucket boundary (Go's % truncates toward zero, hence
	// the two corrections for negative times).
	end := expiresMs - expiresMs%expiryBucketMs
	if end > expiresMs {
		end -= expiryBucketMs
	}
	if end < expiresMs {
		end += expiryBucketMs
	}
	h := tidHigh(id)
	return sqsExpiry{endMs: end, queueID: queueID, shard: shard, high: h - h%bucketTicks}
}

// key returns the entry's key.
func (e sqsExpiry) key() []byte {
	k := make([]byte, 0, sqsExpiryKeyLen)
	k = append(k, prefixSQSExpiry)
	k = binary.BigEndian.AppendUint64(k, msKey(e.endMs))
	k = append(k, e.queueID[:]...)
	k = binary.BigEndian.AppendUint16(k, uint16(e.shard))
	return binary.BigEndian.AppendUint64(k, e.high)
}

// parseSQSExpiryKey inverts sqsExpiry.key.
func parseSQSExpiryKey(key []byte) (e sqsExpiry, ok bool) {
	if len(key) != sqsExpiryKeyLen || key[0] != prefixSQSExpiry {
		return e, false
	}
	e.endMs = msFromKey(binary.BigEndian.Uint64(key[1:]))
	copy(e.queueID[:], key[1+msLen:])
	e.shard = int(binary.BigEndian.Uint16(key[1+msLen+idLen:]))
	e.high = binary.BigEndian.Uint64(key[1+msLen+idLen+shardLen:])
	return e, true
}

// span returns the key range of the messages the entry covers.
func (e sqsExpiry) span() (lo, hi []byte) {
	lo = sqsHighBound(e.queueID, e.shard, e.high)
	if e.high > ^uint64(0)-bucketTicks {
		return lo, prefixEnd(sqsShardPrefix(e.queueID, e.shard))
	}
	return lo, sqsHighBound(e.queueID, e.shard, e.high+bucketTicks)
}
