package redisindex

import (
	"github.com/google/uuid"
)

// queueKeys are the Redis keys of one queue. The queue ID in braces is the
// Cluster hash tag: every key of a queue maps to the same slot.
type queueKeys struct {
	base        string // P{Q}:
	groupPrefix string // P{Q}:o: (a FIFO group's zset is groupPrefix + group)
	state       []string
}

func keysOf(prefix string, id uuid.UUID) queueKeys {
	base := prefix + "{" + id.String() + "}:"
	return queueKeys{
		base:        base,
		groupPrefix: base + "o:",
		// The order is the one the scripts' prelude (lua/common.lua) expects.
		state: []string{base + "m", base + "d", base + "v", base + "f", base + "gs", base + "gb"},
	}
}

func (k queueKeys) lock() string { return k.base + "lock" }

// withLock is the state keys and then the rebuild lock (KEYS 7 of the
// scripts that need it).
func (k queueKeys) withLock() []string {
	return append(append(make([]string, 0, len(k.state)+1), k.state...), k.lock())
}
func (k queueKeys) dedup(key string) string        { return k.base + "dd:" + key }
func channelOf(prefix string, id uuid.UUID) string { return prefix + "notify:" + id.String() }
