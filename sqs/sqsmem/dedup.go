package sqsmem

import (
	"hash/maphash"
	"sync"

	"github.com/google/uuid"
)

// dedupTable holds FIFO deduplication records apart from the queue states:
// they cannot be rebuilt from the Store, so evicting or dropping a queue's
// state must not forget them. Records expire with their window; each shard
// keeps a heap of expiries so that pruning costs O(log n) per record.
type dedupTable struct {
	seed   maphash.Seed
	shards [16]dedupShard
}

type dedupKey struct {
	queue uuid.UUID
	key   string
}

type dedupRecord struct {
	id    uuid.UUID
	until int64 // wall clock, Unix nanoseconds
}

// dedupExpiry is one record's expiry in a shard's heap.
type dedupExpiry struct {
	key   dedupKey
	until int64
}

type byUntil struct{}

func (byUntil) less(a, b *dedupExpiry) bool { return a.until < b.until }
func (byUntil) setIndex(*dedupExpiry, int)  {}

type dedupShard struct {
	mu       sync.Mutex
	records  map[dedupKey]dedupRecord
	expiries heap[*dedupExpiry, byUntil]
}

func (d *dedupTable) init() {
	d.seed = maphash.MakeSeed()
	for i := range d.shards {
		d.shards[i].records = make(map[dedupKey]dedupRecord)
	}
}

// record notes key of queue for window from now, unless a record of it is
// live: then it returns that record's id and true. The window is counted
// from the first record, not extended by duplicates, as SQS does.
func (d *dedupTable) record(queue uuid.UUID, key string, id uuid.UUID, now, window int64) (uuid.UUID, bool) {
	k := dedupKey{queue, key}
	var h maphash.Hash
	h.SetSeed(d.seed)
	h.Write(queue[:])
	h.WriteString(key)
	s := &d.shards[h.Sum64()%uint64(len(d.shards))]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(now)
	if r, ok := s.records[k]; ok && now < r.until {
		return r.id, true
	}
	if window <= 0 {
		return uuid.Nil, false
	}
	until := now + window
	s.records[k] = dedupRecord{id: id, until: until}
	s.expiries.push(&dedupExpiry{key: k, until: until})
	return uuid.Nil, false
}

// prune forgets the records expired at now.
func (s *dedupShard) prune(now int64) {
	for s.expiries.len() > 0 && s.expiries.top().until <= now {
		x := s.expiries.pop()
		// A key recorded again after expiring has a later record of its
		// own; only the record this expiry belongs to goes.
		if r, ok := s.records[x.key]; ok && r.until == x.until {
			delete(s.records, x.key)
		}
	}
}
