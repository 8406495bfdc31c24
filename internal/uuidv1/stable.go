package uuidv1

import (
	"crypto/sha1"
	"encoding/binary"
	"time"

	"github.com/google/uuid"
)

// Stable is a version 1 UUID determined by key and t: its time is t's
// millisecond plus a sub-millisecond offset, and its clock sequence and
// node come from a hash of key. The same key and time always give the same
// id, so a cache put under it is stored once however often it is repeated
// (an SNS notification delivered twice to one path); two keys give two.
func Stable(key string, t time.Time) uuid.UUID {
	sum := sha1.Sum([]byte(key))
	// 100 ns ticks since 1582-10-15, rounded down to the millisecond.
	ticks := uint64(t.UnixMilli())*10000 + GregorianToUnix
	ticks += uint64(binary.BigEndian.Uint16(sum[0:2])) % 10000
	var id uuid.UUID
	SetTime(&id, ticks)
	copy(id[8:], sum[2:10])
	id[8] = id[8]&0x3f | 0x80 // RFC 4122 variant
	return id
}
