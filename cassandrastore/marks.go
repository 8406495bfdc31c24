package cassandrastore

import (
	"hash/maphash"
	"sync"
	"time"
)

// Liveness rows (nodes.live_until and own_until, history_buckets,
// journal_buckets) only need to outlive the data they stand for. Written on
// every put they would make hot rows: every put rewrites its top word's row
// in the root partition, and every put of a 10-minute window the same
// journal_buckets row. So a put writes such a row with its expiry rounded up
// (markExpiry), and a process skips the write when it already wrote the row
// with that expiry or a later one. Under a steady load each process then
// writes each liveness row about once per rounding step instead of once per
// put. The price: a row may outlive its data by up to one step (a child
// listed with a nil Latest, an empty bucket probed), which the Store
// contract allows.

// markStepMax caps the rounding step; the step is a 64th of the TTL below
// that, so short-lived messages barely extend their rows.
const markStepMax = 30 * time.Second

// markExpiry returns expMs rounded up to the step for a message living from
// nowMs until expMs.
func markExpiry(nowMs, expMs int64) int64 {
	step := min((expMs-nowMs)/64, markStepMax.Milliseconds())
	if step <= 1 {
		return expMs
	}
	return floorDiv(expMs+step-1, step) * step
}

const (
	markShards   = 64
	markShardCap = 4096 // entries per shard before expired ones are pruned
)

// marks remembers, per liveness row, the latest expiry this process has
// written for it.
type marks struct {
	seed   maphash.Seed
	shards [markShards]markShard
}

type markShard struct {
	mu sync.Mutex
	m  map[string]int64
}

func (k *marks) init() {
	k.seed = maphash.MakeSeed()
	for i := range k.shards {
		k.shards[i].m = make(map[string]int64)
	}
}

func (k *marks) shard(key string) *markShard {
	return &k.shards[maphash.String(k.seed, key)%markShards]
}

// covered reports whether the row key was written with expiry exp or later.
func (k *marks) covered(key string, exp int64) bool {
	s := k.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key] >= exp
}

// record notes that the row key was written with expiry exp. A full shard
// first forgets rows that have expired, then, if still full, everything: a
// forgotten row is merely written again.
func (k *marks) record(key string, exp, nowMs int64) {
	s := k.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) >= markShardCap {
		for key, e := range s.m {
			if e <= nowMs {
				delete(s.m, key)
			}
		}
		if len(s.m) >= markShardCap*3/4 {
			clear(s.m)
		}
	}
	if s.m[key] < exp {
		s.m[key] = exp
	}
}

// mark is a liveness row to record once its write succeeded.
type mark struct {
	key string
	exp int64
}
