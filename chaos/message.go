package chaos

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// checksumLen is the number of hex digits of SHA-256 a body carries.
const checksumLen = 16

// newID returns a fresh version 1 UUID: unique within the drill, and a
// valid message_uuid for the cache and AMQP ingest.
func newID() uuid.UUID {
	for {
		if id, err := uuid.NewUUID(); err == nil {
			return id
		}
	}
}

// checksum is the first checksumLen hex digits of SHA-256(id + payload).
func checksum(id, payload string) string {
	sum := sha256.Sum256([]byte(id + payload))
	return hex.EncodeToString(sum[:])[:checksumLen]
}

// encodeBody returns a message body that names its id and proves its
// integrity: id "." checksum "." payload.
func encodeBody(id uuid.UUID, payload string) string {
	s := id.String()
	return s + "." + checksum(s, payload) + "." + payload
}

// errNoID is returned by decodeBody for a body that does not even name an
// id (its delivery cannot be attributed to a message).
var errNoID = errors.New("the body names no message id")

// decodeBody checks a received body. It returns the id the body names and
// its payload; err is set when the body is corrupt, and id is still set
// when the id itself could be read (so the delivery can be attributed).
func decodeBody(body string) (id uuid.UUID, payload string, err error) {
	idText, rest, ok := strings.Cut(body, ".")
	if !ok {
		return uuid.Nil, "", errNoID
	}
	id, perr := uuid.Parse(idText)
	if perr != nil || len(idText) != 36 {
		return uuid.Nil, "", errNoID
	}
	sum, payload, ok := strings.Cut(rest, ".")
	if !ok || len(sum) != checksumLen {
		return id, "", fmt.Errorf("message %s: no checksum", id)
	}
	if want := checksum(idText, payload); sum != want {
		return id, payload, fmt.Errorf("message %s: checksum %s, want %s (body altered)", id, sum, want)
	}
	return id, payload, nil
}

// filler returns a payload of n bytes (n ≥ len(prefix)): prefix then
// printable characters that vary with the id, so equal-length bodies
// still differ throughout.
func filler(prefix string, id uuid.UUID, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
	if n <= len(prefix) {
		return prefix
	}
	b := make([]byte, n)
	copy(b, prefix)
	for i := len(prefix); i < n; i++ {
		b[i] = alphabet[(int(id[i%16])+i)%len(alphabet)]
	}
	return string(b)
}
