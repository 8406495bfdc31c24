package cache

import (
	"crypto/rand"
	"encoding/hex"
)

// NewEpoch returns a new store incarnation name (Store.Epoch): 16
// lowercase hex digits from 64 random bits.
func NewEpoch() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// ValidEpoch reports whether s has NewEpoch's shape; engines check what
// they read back.
func ValidEpoch(s string) bool {
	if len(s) != 16 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
