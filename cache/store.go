package cache

import (
	"bytes"
	"context"
	"time"

	"github.com/google/uuid"
)

// Store is the storage contract of the message cache. Every engine (the
// embedded Pebble engine, the Cassandra engine) implements it and passes the
// conformance suite in cache/cachetest.
//
// The contract is shaped so that each call reads or writes a bounded number of
// partitions, with no multi-partition transaction: a message lives once by
// its id, and the indexes (history per path in time buckets, the journal in
// time buckets, the path tree with each node's latest message) hold
// references to it. Engines never return expired messages or references.
//
// All methods are safe for concurrent use. Errors other than those the
// contract names are storage failures; engines wrap them with
// herald.Unavailable.
type Store interface {
	// PutMessage stores m (whose fields are all set and valid) and indexes
	// it under each of its paths, in the journal and in the path tree. It
	// returns only once the write is durable.
	//
	// If an unexpired message with the same ID exists, nothing is written and
	// the stored message is returned with created == false. Otherwise the
	// returned message is m and created is true.
	// (The lookup cannot be skipped even for ids Herald generates: a client
	// may store any version 1 UUID, including one Herald generates later.)
	PutMessage(ctx context.Context, m *Message) (stored *Message, created bool, err error)

	// GetMessages returns the messages with the given ids, in the same
	// order; an entry is nil when that message is missing or expired.
	GetMessages(ctx context.Context, ids []uuid.UUID) ([]*Message, error)

	// Latest returns a reference to the most recent (by message time)
	// unexpired message stored at exactly path, or nil if there is none.
	// A message arriving late never displaces a more recent one.
	Latest(ctx context.Context, path string) (*Ref, error)

	// Children lists the direct children of the node parent ("" is the
	// root, otherwise a valid path) in byte order of their words, starting
	// strictly after the word after ("" starts at the first), at most limit
	// of them. A child is listed while it or any node below it holds an
	// unexpired message (engines may list a child whose messages have just
	// expired; its Latest is then nil and walking below it finds nothing).
	Children(ctx context.Context, parent, after string, limit int) ([]Child, error)

	// History lists references to the unexpired messages of one path,
	// newest first (Ref.At is the message time), strictly after the position
	// after in that order (the zero Position starts at the newest).
	History(ctx context.Context, path string, after Position, limit int) ([]Ref, error)

	// Journal lists references to the unexpired messages received in
	// [from, to), oldest first (Ref.At is the time received), strictly after
	// the position after in that order (the zero Position starts at from).
	Journal(ctx context.Context, from, to time.Time, after Position, limit int) ([]Ref, error)

	// ExpiredSince reports whether a message received at or after from
	// has expired: whether retention removed (or is about to remove) part
	// of the journal from from on. An engine may answer true when it
	// cannot tell (a message received up to a second before from, or from
	// older than what it keeps track of), never false when one has.
	// WebSocket recovery says `truncated` by it.
	ExpiredSince(ctx context.Context, from time.Time) (bool, error)

	// Epoch names the store's incarnation: fixed for the life of its
	// data, shared by every node on it, and new when the data is wiped or
	// restored from a backup. WebSocket positions carry it (NewEpoch).
	Epoch() string

	// Close releases the engine's resources.
	Close() error
}

// Ref refers to a stored message from an index.
type Ref struct {
	ID        uuid.UUID
	At        time.Time // the index's ordering time: message time or time received
	ExpiresAt time.Time
}

// Position returns the ref's place in its index's order, for paging.
func (r Ref) Position() Position { return Position{At: r.At, ID: r.ID} }

// Child is one node of the path tree below a parent.
type Child struct {
	Word   string
	Latest *Ref // the latest unexpired message at exactly this node, or nil
	// HasChildren is false when nothing below this node holds an unexpired
	// message, so a walk need not list its children; engines may report
	// true when they cannot tell cheaply.
	HasChildren bool
}

// Position is a place in a time-ordered index: references are ordered by At,
// then by the bytes of ID.
type Position struct {
	At time.Time
	ID uuid.UUID
}

// IsZero reports whether p is the zero Position (the start of an index).
func (p Position) IsZero() bool { return p.At.IsZero() && p.ID == uuid.Nil }

// Compare orders positions by At, then by ID bytes: -1, 0 or +1.
func (p Position) Compare(q Position) int {
	if c := p.At.Compare(q.At); c != 0 {
		return c
	}
	return bytes.Compare(p.ID[:], q.ID[:])
}
