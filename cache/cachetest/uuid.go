package cachetest

import (
	"encoding/binary"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
)

// gregorianToUnix is the number of 100 ns intervals between the start of
// the Gregorian calendar (1582-10-15 00:00 UTC), where version 1 UUID time
// counts from, and the Unix epoch.
const gregorianToUnix = 122_192_928_000_000_000

// UUIDAt returns a version 1 (time-based) UUID of RFC 4122 whose
// timestamp is at, to 100 ns, with a random clock sequence and a random node
// id. Ids made for the same instant differ only in those random bits, so
// they tie on message time and are ordered by their bytes.
func UUIDAt(at time.Time) uuid.UUID {
	ticks := uint64(at.Unix()*10_000_000 + int64(at.Nanosecond()/100) + gregorianToUnix)
	var id uuid.UUID
	binary.BigEndian.PutUint32(id[0:4], uint32(ticks))                  // time_low
	binary.BigEndian.PutUint16(id[4:6], uint16(ticks>>32))              // time_mid
	binary.BigEndian.PutUint16(id[6:8], uint16(ticks>>48)&0x0fff|1<<12) // version 1, time_high
	r := rand.Uint64()
	// clock_seq with the variant bits 10 of RFC 4122 on top
	binary.BigEndian.PutUint16(id[8:10], uint16(r)&0x3fff|0x8000)
	// A random node id has its multicast bit set (RFC 4122, section 4.5),
	// so that it can never be a real network card's address.
	node := r >> 16
	for i := 15; i >= 10; i-- {
		id[i] = byte(node)
		node >>= 8
	}
	id[10] |= 0x01
	return id
}
