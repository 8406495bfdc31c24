package cache

import (
	"time"

	"github.com/heraldmq/herald/limits"
)

// Config holds the cache's limits. Every limit is configuration; the defaults
// are DefaultConfig's.
type Config struct {
	DefaultTTL       time.Duration // TTL of a message that names none
	MaxTTL           time.Duration // longest TTL a message may ask for
	MaxMetadataBytes int           // size of the metadata JSON object
	MaxBodyBytes     int           // size of the body
	MaxPaths         int           // paths per message
	DefaultLimit     int           // page size when a query names none
	MaxLimit         int           // largest page a query may ask for
	MaxBatch         int           // messages in one batch put

	// RequireIdentity refuses requests whose context carries no
	// access.Identity (access.go); off, such requests may do everything.
	RequireIdentity bool

	// Limits, when set, admits every put and query that came in through
	// a door (limits.DoorOf): per the caller's account, one request per
	// message put or query, and each message's bytes (metadata and body).
	Limits *limits.Limiter
}

// DefaultConfig returns Herald's default limits.
func DefaultConfig() Config {
	return Config{
		DefaultTTL:       7 * 24 * time.Hour,
		MaxTTL:           30 * 24 * time.Hour,
		MaxMetadataBytes: 64 << 10,
		MaxBodyBytes:     1 << 20,
		MaxPaths:         16,
		DefaultLimit:     100,
		MaxLimit:         1000,
		MaxBatch:         100,
	}
}
