package pebblestore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// Message record, the value of an 'm' key (the id is the key):
//
//	version      1 byte (recordVersion)
//	replica id   16 bytes
//	received     8 bytes, Unix ms, big-endian int64
//	expires      8 bytes, Unix ms, big-endian int64
//	metadata     uvarint length, bytes
//	paths        uvarint count, then each: uvarint length, bytes
//	body         the remaining bytes
const recordVersion = 1

// recordHeaderLen is the size of the fixed part of a record.
const recordHeaderLen = 1 + idLen + 8 + 8

var errCorrupt = errors.New("pebblestore: corrupt message record")

// recordSize returns an upper bound of the encoded size of m.
func recordSize(m *cache.Message) int {
	n := recordHeaderLen + 2*binary.MaxVarintLen64 + len(m.Metadata) + len(m.Body)
	for _, p := range m.Paths {
		n += binary.MaxVarintLen64 + len(p)
	}
	return n
}

// appendRecord appends the record of m to dst.
func appendRecord(dst []byte, m *cache.Message) []byte {
	dst = append(dst, recordVersion)
	dst = append(dst, m.ReplicaID[:]...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.ReceivedAt.UnixMilli()))
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.ExpiresAt.UnixMilli()))
	dst = binary.AppendUvarint(dst, uint64(len(m.Metadata)))
	dst = append(dst, m.Metadata...)
	dst = binary.AppendUvarint(dst, uint64(len(m.Paths)))
	for _, p := range m.Paths {
		dst = binary.AppendUvarint(dst, uint64(len(p)))
		dst = append(dst, p...)
	}
	return append(dst, m.Body...)
}

// decodeRecord decodes the record of message id. The result does not alias
// rec. An empty body decodes as nil.
func decodeRecord(id uuid.UUID, rec []byte) (*cache.Message, error) {
	if len(rec) < recordHeaderLen {
		return nil, fmt.Errorf("%w %s: %d bytes", errCorrupt, id, len(rec))
	}
	if rec[0] != recordVersion {
		return nil, fmt.Errorf("%w %s: version %d", errCorrupt, id, rec[0])
	}
	buf := append([]byte(nil), rec...) // Metadata and Body share this copy
	m := &cache.Message{ID: id}
	copy(m.ReplicaID[:], buf[1:])
	m.ReceivedAt = time.UnixMilli(int64(binary.BigEndian.Uint64(buf[1+idLen:]))).UTC()
	m.ExpiresAt = time.UnixMilli(int64(binary.BigEndian.Uint64(buf[1+idLen+8:]))).UTC()
	rest := buf[recordHeaderLen:]

	chunk := func() ([]byte, bool) {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return nil, false
		}
		b := rest[k : k+int(n) : k+int(n)]
		rest = rest[k+int(n):]
		return b, true
	}
	meta, ok := chunk()
	if !ok {
		return nil, fmt.Errorf("%w %s: metadata", errCorrupt, id)
	}
	m.Metadata = meta
	count, k := binary.Uvarint(rest)
	if k <= 0 || count > uint64(len(rest)) { // each path takes at least one byte
		return nil, fmt.Errorf("%w %s: path count", errCorrupt, id)
	}
	rest = rest[k:]
	m.Paths = make([]string, count)
	for i := range m.Paths {
		p, ok := chunk()
		if !ok {
			return nil, fmt.Errorf("%w %s: path %d", errCorrupt, id, i)
		}
		m.Paths[i] = string(p)
	}
	if len(rest) > 0 {
		m.Body = rest
	}
	return m, nil
}
