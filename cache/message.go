// Package cache is Herald's message cache: messages addressed by paths, and the
// queries over them (latest of a subtree, history of a path, one message by
// id, a journal by time, the paths under a prefix).
//
// The package holds the domain types, the Store contract that every storage
// engine implements (see store.go), and the Service that validates input and
// answers queries on top of any Store. It knows nothing of HTTP or of any
// particular engine.
package cache

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/paths"
)

// Message is one cached message.
type Message struct {
	ID         uuid.UUID       // message_uuid, a version 1 (time-based) UUID
	ReplicaID  uuid.UUID       // replica_uuid, a version 1 UUID
	Metadata   json.RawMessage // a JSON object holding at least "paths"
	Paths      []string        // the paths named in Metadata, validated
	Body       []byte          // optional payload
	ReceivedAt time.Time       // when Herald first stored it, millisecond precision, UTC
	ExpiresAt  time.Time       // ReceivedAt + TTL, millisecond precision, UTC
}

// Time is the message's recency: the timestamp inside its version 1 UUID.
func (m *Message) Time() time.Time { return UUIDTime(m.ID) }

// Expired reports whether the message has expired at now.
func (m *Message) Expired(now time.Time) bool { return !now.Before(m.ExpiresAt) }

// UUIDTime returns the timestamp carried by a version 1 UUID, in UTC.
func UUIDTime(id uuid.UUID) time.Time {
	sec, nsec := id.Time().UnixTime()
	return time.Unix(sec, nsec).UTC()
}

// CheckStorable rejects a message that would break an engine's layout: no
// paths, an invalid path, an id that is not a version 1 UUID. Service
// validates far more; engines call this to guard their own invariants
// against callers that bypass it.
func CheckStorable(m *Message) error {
	if m == nil {
		return herald.Errorf(herald.EInvalid, "message is nil")
	}
	if m.ID.Version() != 1 {
		return herald.Errorf(herald.EInvalid, "message id %s is not a version 1 UUID", m.ID)
	}
	if len(m.Paths) == 0 {
		return herald.Errorf(herald.EInvalid, "message %s has no paths", m.ID)
	}
	for _, p := range m.Paths {
		if err := paths.Validate(p); err != nil {
			return herald.Errorf(herald.EInvalid, "message %s: %v", m.ID, err)
		}
	}
	return nil
}
