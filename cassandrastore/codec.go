package cassandrastore

import (
	"encoding/binary"
	"hash/fnv"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// This file converts between Go values and the stored columns: times in
// 100 ns ticks (history), milliseconds (expiry, journal) and microseconds
// (write timestamps), buckets, TTLs and the encoded latest reference.

const (
	// gregorianTicks is the number of 100 ns ticks from the start of the
	// UUID calendar (1582-10-15 UTC) to the Unix epoch.
	gregorianTicks = 122_192_928_000_000_000
	// maxTicks is the largest timestamp a version 1 UUID holds (60 bits).
	maxTicks = 1<<60 - 1
	// maxTTLSeconds is Cassandra's largest TTL (20 years).
	maxTTLSeconds = 630_720_000
	// ttlSlack is added to every TTL: Cassandra counts a TTL from its own
	// clock, so a node whose clock runs ahead of Herald's would otherwise
	// drop a message before its ExpiresAt. Reads compare ExpiresAt with
	// Herald's clock, so the slack never makes expired data visible.
	ttlSlack = 1
)

// idTicks returns the message time of a version 1 UUID in 100 ns ticks
// since the UUID epoch: the history's ordering key.
func idTicks(id uuid.UUID) int64 { return int64(id.Time()) }

// ticksTime converts ticks since the UUID epoch to a UTC time.
func ticksTime(ticks int64) time.Time {
	d := ticks - gregorianTicks
	return time.Unix(floorDiv(d, 10_000_000), floorMod(d, 10_000_000)*100).UTC()
}

// ticksMillis converts ticks to Unix milliseconds, rounding down.
func ticksMillis(ticks int64) int64 { return floorDiv(ticks-gregorianTicks, 10_000) }

// ticksMicros converts ticks to Unix microseconds, rounding down: the write
// timestamp of a node's latest reference.
func ticksMicros(ticks int64) int64 { return floorDiv(ticks-gregorianTicks, 10) }

// ticksOf converts t to ticks, rounding down. before reports that t
// precedes the UUID epoch, after that it is past every UUID timestamp;
// exact is false when t has a part smaller than a tick.
func ticksOf(t time.Time) (ticks int64, exact, before, after bool) {
	const epochSec = gregorianTicks / 10_000_000
	sec := t.Unix()
	switch {
	case sec < -epochSec:
		return 0, false, true, false
	case sec > maxTicks/10_000_000-epochSec:
		return 0, false, false, true
	}
	ns := int64(t.Nanosecond())
	ticks = (sec+epochSec)*10_000_000 + ns/100
	if ticks > maxTicks {
		return 0, false, false, true
	}
	return ticks, ns%100 == 0, false, false
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// bucketOf returns the start of the bucket of width w holding ms.
func bucketOf(ms, w int64) int64 { return floorDiv(ms, w) * w }

// ttlSeconds returns the TTL of a cell that must live until expMs (Unix
// ms): the seconds from now, rounded up, plus the slack, within the limits
// Cassandra accepts.
func ttlSeconds(nowMs, expMs int64) int {
	d := expMs - nowMs
	s := floorDiv(d+999, 1000) + ttlSlack
	return int(min(max(s, 1), maxTTLSeconds))
}

// shardOf returns the journal shard of id among n.
func shardOf(id uuid.UUID, n int) int {
	h := fnv.New32a()
	h.Write(id[:])
	return int(h.Sum32() % uint32(n))
}

// latestLen is the size of an encoded latest reference.
const latestLen = 8 + 16 + 8

// encodeLatest encodes a node's latest reference into one cell: the ticks
// (big-endian, so bytes compare as numbers), the id, the expiry (Unix ms).
// One cell rather than three columns, because Cassandra reconciles
// concurrent writes cell by cell: two messages written with the same
// timestamp could otherwise leave the id of one with the time of the
// other. For equal timestamps Cassandra keeps the cell that expires later,
// then the greater value: the later ticks, then the greater id bytes (see
// nodeWrites).
func encodeLatest(ticks int64, id uuid.UUID, expMs int64) []byte {
	b := make([]byte, latestLen)
	binary.BigEndian.PutUint64(b[0:8], uint64(ticks))
	copy(b[8:24], id[:])
	binary.BigEndian.PutUint64(b[24:32], uint64(expMs))
	return b
}

// decodeLatest decodes a latest reference; ok is false for a missing or
// malformed cell.
func decodeLatest(b []byte) (ref cache.Ref, expMs int64, ok bool) {
	if len(b) != latestLen {
		return cache.Ref{}, 0, false
	}
	ticks := int64(binary.BigEndian.Uint64(b[0:8]))
	var id uuid.UUID
	copy(id[:], b[8:24])
	expMs = int64(binary.BigEndian.Uint64(b[24:32]))
	return cache.Ref{ID: id, At: ticksTime(ticks), ExpiresAt: time.UnixMilli(expMs).UTC()}, expMs, true
}

// msTime converts Unix milliseconds to a UTC time.
func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
