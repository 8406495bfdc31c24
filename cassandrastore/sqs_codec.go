package cassandrastore

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// This file converts between SQS values and the columns of the sqs_*
// tables: message positions and buckets, times in Unix nanoseconds,
// attribute blobs and partition keys.

// sqsBucketMs is the width of a message bucket in ID time: one minute (see
// sqs_schema.go for why). It shapes the stored data: changing it would
// hide the messages already written.
const sqsBucketMs = 60_000

// posLen is the size of a message position: ticks (8) + id (16).
const posLen = 8 + 16

// msgPos returns the clustering key of id: its 100 ns timestamp,
// big-endian, then its bytes, so that positions compare as (ID time, id
// as unsigned bytes).
func msgPos(id uuid.UUID) []byte {
	b := make([]byte, posLen)
	binary.BigEndian.PutUint64(b[:8], uint64(idTicks(id)))
	copy(b[8:], id[:])
	return b
}

// posID returns the id of a position; ok is false for a malformed one.
func posID(pos []byte) (id uuid.UUID, ok bool) {
	if len(pos) != posLen {
		return uuid.Nil, false
	}
	copy(id[:], pos[8:])
	return id, true
}

// msgBucket returns the bucket (start, Unix ms) holding id.
func msgBucket(id uuid.UUID) int64 {
	return bucketOf(ticksMillis(idTicks(id)), sqsBucketMs)
}

// timeBucket returns the bucket holding time t.
func timeBucket(t time.Time) int64 { return bucketOf(t.UnixMilli(), sqsBucketMs) }

// unixNs returns t in Unix nanoseconds, 0 for the zero time.
func unixNs(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// nsTime is the inverse of unixNs, in UTC.
func nsTime(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// cqlUUID converts an id for the driver, which takes its own UUID type.
func cqlUUID(id uuid.UUID) gocql.UUID { return gocql.UUID(id) }

// accountKey is the partition key of an account's queue records: Cassandra
// refuses an empty partition key, and the prefix keeps the mapping
// one-to-one.
func accountKey(account string) string { return ":" + account }

// storedAttrs is the attrs blob of a message.
type storedAttrs struct {
	User   map[string]sqs.MessageAttributeValue `json:"u,omitempty"`
	System map[string]sqs.MessageAttributeValue `json:"s,omitempty"`
}

// encodeMsgAttrs returns the attrs blob of m, empty (not nil) when it has
// none: a null would be written as a cell tombstone, and most messages
// have no attributes.
func encodeMsgAttrs(m *sqs.Message) ([]byte, error) {
	if len(m.Attributes) == 0 && len(m.SystemAttributes) == 0 {
		return []byte{}, nil
	}
	return json.Marshal(storedAttrs{User: m.Attributes, System: m.SystemAttributes})
}

// decodeMsgAttrs sets the attributes of m from its attrs blob.
func decodeMsgAttrs(b []byte, m *sqs.Message) error {
	if len(b) == 0 {
		return nil
	}
	var a storedAttrs
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("message %s: attributes: %w", m.ID, err)
	}
	m.Attributes, m.SystemAttributes = a.User, a.System
	return nil
}
