package cachetest

import (
	"encoding/binary"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/internal/uuidv1"
)

// UUIDAt returns a version 1 (time-based) UUID of RFC 4122 whose
// timestamp is at, to 100 ns, with a random clock sequence and a random node
// id. Ids made for the same instant differ only in those random bits, so
// they tie on message time and are ordered by their bytes.
func UUIDAt(at time.Time) uuid.UUID {
	var id uuid.UUID
	uuidv1.SetTime(&id, uint64(at.Unix()*10_000_000+int64(at.Nanosecond()/100)+uuidv1.GregorianToUnix))
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
