package cache

import (
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
)

// cursor is the state a client hands back to get the next page. It is
// opaque to clients: base64url of a small JSON document naming the query
// kind it belongs to, so a cursor from one query is refused by another.
type cursor struct {
	Kind string     `json:"k"`
	Path string     `json:"p,omitempty"`  // tree walks: the last path returned
	At   string     `json:"t,omitempty"`  // time-ordered indexes: RFC 3339 to the nanosecond
	ID   *uuid.UUID `json:"id,omitempty"` // time-ordered indexes: the last id returned
}

const (
	cursorTree    = "tree"
	cursorHistory = "history"
	cursorJournal = "journal"
)

func encodeCursor(c cursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(text, kind string) (cursor, error) {
	var c cursor
	if text == "" {
		return c, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Kind != kind {
		return cursor{}, herald.Errorf(herald.EInvalid, "cursor is not one this query returned")
	}
	return c, nil
}

func positionCursor(kind string, p Position) string {
	return encodeCursor(cursor{Kind: kind, At: p.At.UTC().Format(time.RFC3339Nano), ID: &p.ID})
}

func (c cursor) position() (Position, error) {
	if c.ID == nil && c.At == "" {
		return Position{}, nil
	}
	at, err := time.Parse(time.RFC3339Nano, c.At)
	if err != nil || c.ID == nil {
		return Position{}, herald.Errorf(herald.EInvalid, "cursor is not one this query returned")
	}
	return Position{At: at.UTC(), ID: *c.ID}, nil
}
