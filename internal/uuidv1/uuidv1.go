// Package uuidv1 writes version 1 UUIDs (RFC 4122): the timestamp, whose
// 60-bit layout the message ids Herald makes and the ones its tests forge
// share (SetTime), and ids determined by a key and a time (Stable), which
// make repeated cache puts of one event idempotent.
package uuidv1

import (
	"encoding/binary"

	"github.com/google/uuid"
)

// GregorianToUnix is the number of 100 ns intervals between the start of
// the Gregorian calendar (1582-10-15 00:00 UTC), where version 1 time
// counts from, and the Unix epoch.
const GregorianToUnix = 122_192_928_000_000_000

// SetTime writes the 60-bit time ticks (100 ns since 1582-10-15) into id:
// time_low, time_mid, then time_hi with the version (1) in its top four
// bits. The clock sequence and node are left as they are.
func SetTime(id *uuid.UUID, ticks uint64) {
	binary.BigEndian.PutUint32(id[0:4], uint32(ticks))
	binary.BigEndian.PutUint16(id[4:6], uint16(ticks>>32))
	binary.BigEndian.PutUint16(id[6:8], uint16(ticks>>48)&0x0fff|0x1000)
}
