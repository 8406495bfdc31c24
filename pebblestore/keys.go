package pebblestore

import (
	"encoding/binary"
	"math"

	"github.com/google/uuid"
)

// Key layout. Every key starts with one prefix byte naming its keyspace;
// Pebble orders keys bytewise, and each query below is one range scan.
//
//	prefix  key after the prefix                        value
//	------  ------------------------------------------  -------------------------
//	0x00    "format"                                    layout version (formatVersion)
//	0x00    "epoch"                                     the store's incarnation (epoch.go)
//	0x00    "secret/" name                              32 random bytes (secret.go)
//	'h'     encPath 0x00 ^ticks(8 BE) ^id(16)           expires ms (8 BE)
//	'j'     ms(received) id(16)                         expires ms (8 BE)
//	'm'     id(16), timestamp bytes first               message record (codec.go)
//	'x'     ms(expires) id(16)                          empty
//
// SQS queues (QueueStore; sqs_keys.go explains them, sqs_codec.go has the
// records):
//
//	'e'     ms(expiry bucket end) queueID(16) shard(2 BE) sent bucket(8 BE)  empty
//	'q'     uvarint(len account) account name           queue record
//	's'     queueID(16) shard(2 BE) tid(16)             SQS message record
//	's'     queueID(16) shard(2 BE) tid(16) 0x01        SQS message state
//	'u'     queueID(16)                                 empty (queue to reindex)
//
// SNS topics (TopicStore; sns_keys.go, records in sns_codec.go):
//
//	'a'     uvarint(len account) account uvarint(len kind) kind key   account record (version byte, value)
//	'n'     topicID(16) subscriptionID(16)              subscription record
//	'f'     topicID(16) uvarint(len key) key subscriptionID(16)   subscription record (the filter index)
//	't'     uvarint(len account) account name           topic record
//
// Rollups (RollupStore; rollup_keys.go):
//
//	'C'     rollupID(16) partition value                row: zigzag varint per metric
//	'D'     rollupID(16) eventID                        committed event: expiry ms (8 BE)
//	'E'     expiry ms(8 BE) rollupID(16) eventID        empty (the reaper's index of 'D')
//	'F'     firingID                                    empty: a trigger crossing that fired
//	'L'     rollupID(16) triggerID                      a trigger's last firing (JSON)
//	'M'     rollupID(16) partition value metric member  a distinct metric's value seen: first ms (8 BE)
//	'O'     firingID                                    a firing to publish (JSON)
//	'R'     uvarint(len account) account name           rollup definition (JSON)
//	'X'     expiry ms(8 BE) rollupID(16) unit bucket     account 0x00 name (the reaper's index of rollup buckets)
//
// encPath is the path's words joined by 0x01 instead of '.'. Words only hold
// [A-Za-z0-9_:-], so 0x00, 0x01 and 0x02 never occur inside one, and:
//   - a node's own history entries (encPath 0x00 ...) sort before those of its
//     children (encPath 0x01 word ...);
//   - a node's whole subtree is the contiguous range [encPath 0x00, encPath 0x02);
//   - children sort in the byte order of their words ("ab" 0x00 < "ab" 0x01 <
//     "ab" 0x02 < "abc").
//
// ticks is the 100 ns timestamp carried by the v1 UUID; ^ is bitwise
// inversion, so a path's entries sort newest first (by message time, then by
// id bytes, both descending).
//
// ms(t) is a Unix millisecond time as 8 big-endian bytes with the sign bit
// flipped, so that keys order correctly for any int64 (values hold plain
// two's complement int64 big-endian).
//
// Reserved for other keyspaces sharing this DB: every prefix byte not
// listed above. 0x00–0x1f are for engine metadata, lower-case
// letters for data keyspaces.
const (
	prefixMeta    byte = 0x00 // engine metadata
	prefixHistory byte = 'h'  // per-path history, newest first; also the path tree
	prefixJournal byte = 'j'  // journal by time received, oldest first
	prefixMessage byte = 'm'  // message records by id
	prefixExpiry  byte = 'x'  // expiry index for the reaper
)

// Separators inside history keys, after a node's encoded path.
const (
	sepOwn     byte = 0x00 // the node's own entries follow
	sepChild   byte = 0x01 // a child's word follows (also joins path words)
	sepSubtree byte = 0x02 // sorts after the node's whole subtree
)

// keyFormat holds the layout version; Open refuses a DB written with another.
var keyFormat = []byte{prefixMeta, 'f', 'o', 'r', 'm', 'a', 't'}

// keyExpiredThrough holds the latest time received (ms, 8 bytes BE) of
// the messages the reaper deleted (Store.ExpiredSince).
var keyExpiredThrough = []byte{prefixMeta, 'e', 'x', 'p', 'i', 'r', 'e', 'd'}

// keyEpoch holds the store's incarnation (Store.Epoch).
var keyEpoch = []byte{prefixMeta, 'e', 'p', 'o', 'c', 'h'}

// formatVersion is the current key layout and record format. Version 3
// added the body's MD5 to SQS message records (version 2 records, which
// lack it, are still read).
const formatVersion = "herald-pebblestore/3"

// upgradableFormats are the older layouts this version reads as they are:
// Open upgrades their marker to formatVersion, after which Heralds that only
// read the older layout refuse the directory instead of misreading records
// written since.
var upgradableFormats = []string{"herald-pebblestore/2"}

const (
	idLen       = 16
	orderKeyLen = 8 + idLen
	msLen       = 8
)

// messageKey returns the key of a message record.
func messageKey(id uuid.UUID) []byte {
	return appendMessageKey(make([]byte, 0, 1+idLen), id)
}

// appendMessageKey appends the key of a message record to dst: the id's
// bytes with its timestamp first (time_hi and version, time_mid, time_low,
// then clock sequence and node). Records thus sort by message time, and the
// duplicate lookup every put makes for a new id lands past the key range of
// every flushed file: Pebble answers it from the memtables alone, instead
// of probing a bloom filter in each file.
func appendMessageKey(dst []byte, id uuid.UUID) []byte {
	dst = append(dst, prefixMessage)
	dst = append(dst, id[6:8]...)
	dst = append(dst, id[4:6]...)
	dst = append(dst, id[0:4]...)
	return append(dst, id[8:]...)
}

// appendEncPath appends path with its '.' separators replaced by sepChild.
func appendEncPath(dst []byte, path string) []byte {
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c == '.' {
			c = sepChild
		}
		dst = append(dst, c)
	}
	return dst
}

// historyPrefix returns the prefix of the own history entries of path.
func historyPrefix(path string) []byte {
	k := make([]byte, 0, 2+len(path)+orderKeyLen)
	k = append(k, prefixHistory)
	k = appendEncPath(k, path)
	return append(k, sepOwn)
}

// childrenPrefix returns the prefix shared by the subtrees of all children
// of parent ("" is the root).
func childrenPrefix(parent string) []byte {
	k := make([]byte, 0, 2+len(parent))
	k = append(k, prefixHistory)
	if parent == "" {
		return k
	}
	k = appendEncPath(k, parent)
	return append(k, sepChild)
}

// uuidTicks returns the 100 ns timestamp of a v1 UUID, as cache.UUIDTime
// reads it.
func uuidTicks(id uuid.UUID) uint64 { return uint64(id.Time()) }

// appendOrderKey appends the newest-first order key of (ticks, id).
func appendOrderKey(dst []byte, ticks uint64, id uuid.UUID) []byte {
	dst = binary.BigEndian.AppendUint64(dst, ^ticks)
	for _, b := range id {
		dst = append(dst, ^b)
	}
	return dst
}

// historyKey returns the history entry key of message id at path.
func historyKey(path string, id uuid.UUID) []byte {
	return appendOrderKey(historyPrefix(path), uuidTicks(id), id)
}

// idFromOrderKey returns the id at the end of a history key.
func idFromOrderKey(key []byte) (id uuid.UUID, ok bool) {
	if len(key) < orderKeyLen {
		return id, false
	}
	tail := key[len(key)-idLen:]
	for i := range id {
		id[i] = ^tail[i]
	}
	return id, true
}

// msKey maps a Unix millisecond time to an unsigned value of the same order.
func msKey(ms int64) uint64 { return uint64(ms) ^ (1 << 63) }

// msFromKey inverts msKey.
func msFromKey(u uint64) int64 { return int64(u ^ (1 << 63)) }

// timeKey returns prefix ms(ms) id, the shape of journal and expiry keys.
func timeKey(prefix byte, ms int64, id uuid.UUID) []byte {
	k := make([]byte, 0, 1+msLen+idLen)
	k = append(k, prefix)
	k = binary.BigEndian.AppendUint64(k, msKey(ms))
	return append(k, id[:]...)
}

// timeBound returns prefix ms(ms): the first possible key at ms.
func timeBound(prefix byte, ms int64) []byte {
	k := make([]byte, 0, 1+msLen)
	k = append(k, prefix)
	return binary.BigEndian.AppendUint64(k, msKey(ms))
}

// parseTimeKey splits a journal or expiry key into its time and id.
func parseTimeKey(key []byte) (ms int64, id uuid.UUID, ok bool) {
	if len(key) != 1+msLen+idLen {
		return 0, id, false
	}
	ms = msFromKey(binary.BigEndian.Uint64(key[1:]))
	copy(id[:], key[1+msLen:])
	return ms, id, true
}

// journalKey returns the journal key of a message received at ms.
func journalKey(receivedMs int64, id uuid.UUID) []byte {
	return timeKey(prefixJournal, receivedMs, id)
}

// expiryKey returns the expiry index key of a message expiring at ms.
func expiryKey(expiresMs int64, id uuid.UUID) []byte {
	return timeKey(prefixExpiry, expiresMs, id)
}

// prefixEnd returns the smallest key greater than every key starting with
// prefix, or nil when there is none.
func prefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// successor returns the smallest key greater than key.
func successor(key []byte) []byte {
	s := make([]byte, len(key)+1)
	copy(s, key)
	return s
}

// encodeMs and decodeMs are the 8-byte values of history and journal entries.
func encodeMs(ms int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(ms)) }

func decodeMs(v []byte) (int64, bool) {
	if len(v) != 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(v)), true
}

// maxTicks bounds UUID timestamps, which have 60 bits.
const maxTicks = math.MaxUint64 >> 4
