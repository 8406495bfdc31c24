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
	Kind string    `json:"k"`
	Path string    `json:"p,omitempty"`  // tree walks: the last path returned
	At   int64     `json:"t,omitempty"`  // time-ordered indexes: unix nanoseconds
	ID   uuid.UUID `json:"id,omitempty"` // time-ordered indexes: the last id returned
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
	return encodeCursor(cursor{Kind: kind, At: p.At.UnixNano(), ID: p.ID})
}

func (c cursor) position() Position {
	if c.At == 0 && c.ID == uuid.Nil {
		return Position{}
	}
	return Position{At: time.Unix(0, c.At).UTC(), ID: c.ID}
}
