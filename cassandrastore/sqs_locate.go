package cassandrastore

import (
	"context"
	"sync"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// Finding a message by id. A message's partition is (queue, shard,
// bucket): the bucket follows from the id's time, but the shard was chosen
// by the sender and the contract's calls by id (GetMessages,
// DeleteMessages, SaveStates) do not carry it. So each process remembers
// where it wrote or read messages (locations, bounded), and for the ids it
// does not know asks every shard of the id's bucket ("broadcast"), one
// single-partition query per shard, concurrently. On one node, or when the
// node that receives a message also sent it, reads, deletes and state
// updates go straight to one partition; otherwise they cost a broadcast
// read first (never a broadcast write: a delete or state update sent to
// every shard would leave tombstones or stray cells in all of them).

// loc is where a message lives.
type loc struct {
	shard int32
	expNs int64 // the message's expiry, for the TTL of its state cells
}

type locKey struct{ queue, id uuid.UUID }

const (
	locShards   = 64
	locShardCap = 2048 // per shard: 128 Ki entries, a few MiB, in all
)

// locations is a bounded map of message locations. A full shard forgets
// entries at random (a forgotten location costs one broadcast).
type locations struct {
	shards [locShards]struct {
		mu sync.Mutex
		m  map[locKey]loc
	}
}

func (l *locations) init() {
	for i := range l.shards {
		l.shards[i].m = make(map[locKey]loc)
	}
}

func (l *locations) shard(k locKey) int { return int(k.id[15]^k.id[3]^k.queue[15]) % locShards }

func (l *locations) get(queue, id uuid.UUID) (loc, bool) {
	k := locKey{queue, id}
	s := &l.shards[l.shard(k)]
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	return v, ok
}

func (l *locations) put(queue, id uuid.UUID, v loc) {
	k := locKey{queue, id}
	s := &l.shards[l.shard(k)]
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[k]; !ok && len(s.m) >= locShardCap {
		n := locShardCap / 8
		for k := range s.m { // map order is random enough
			delete(s.m, k)
			if n--; n == 0 {
				break
			}
		}
	}
	s.m[k] = v
}

func (l *locations) forget(queue, id uuid.UUID) {
	k := locKey{queue, id}
	s := &l.shards[l.shard(k)]
	s.mu.Lock()
	delete(s.m, k)
	s.mu.Unlock()
}

// partKey names one message partition of a queue.
type partKey struct {
	shard  int
	bucket int64
}

// partPlan maps partitions to the positions to look for in each.
type partPlan struct {
	order []partKey // first-seen order, for deterministic queries
	pos   map[partKey][][]byte
}

func (p *partPlan) add(k partKey, pos []byte) {
	if p.pos == nil {
		p.pos = make(map[partKey][][]byte)
	}
	if _, ok := p.pos[k]; !ok {
		p.order = append(p.order, k)
	}
	p.pos[k] = append(p.pos[k], pos)
}

// planReads returns the partitions to read for ids: the remembered one for
// an id whose location this process knows, every shard of its bucket
// otherwise. Repeated ids are planned once.
func (qs *queueStore) planReads(q *sqs.Queue, ids []uuid.UUID) *partPlan {
	p := &partPlan{}
	seen := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		pos, b := msgPos(id), msgBucket(id)
		if l, ok := qs.locs.get(q.ID, id); ok {
			p.add(partKey{int(l.shard), b}, pos)
			continue
		}
		for s := range shardCount(q) {
			p.add(partKey{s, b}, pos)
		}
	}
	return p
}

// located is a message found by locate.
type located struct {
	part  partKey
	pos   []byte
	expNs int64
}

// locate returns the partition and expiry of each of ids that is stored,
// unexpired in q: from memory where it can, by a broadcast
// read of positions and expiries otherwise.
func (qs *queueStore) locate(ctx context.Context, c *conn, q *sqs.Queue, ids []uuid.UUID, nowNs int64) (map[uuid.UUID]located, error) {
	out := make(map[uuid.UUID]located, len(ids))
	var unknown []uuid.UUID
	for _, id := range ids {
		if _, done := out[id]; done {
			continue
		}
		if l, ok := qs.locs.get(q.ID, id); ok {
			if !expired(l.expNs, nowNs) {
				out[id] = located{partKey{int(l.shard), msgBucket(id)}, msgPos(id), l.expNs}
			}
			continue
		}
		unknown = append(unknown, id)
	}
	if len(unknown) == 0 {
		return out, nil
	}
	plan := qs.planReads(q, unknown) // none is remembered: a broadcast
	var mu sync.Mutex
	err := forEachChunk(plan, func(k partKey, chunk [][]byte) error {
		iter := c.s.Query(qs.q.locateMessages, cqlUUID(q.ID), k.shard, k.bucket, chunk).WithContext(ctx).Iter()
		var (
			pos           []byte
			sentNs, expNs *int64
		)
		for iter.Scan(&pos, &sentNs, &expNs) {
			id, ok := posID(pos)
			if !ok || sentNs == nil || expNs == nil || expired(*expNs, nowNs) {
				continue
			}
			qs.locs.put(q.ID, id, loc{int32(k.shard), *expNs})
			mu.Lock()
			out[id] = located{k, pos, *expNs}
			mu.Unlock()
			pos = nil
		}
		return iter.Close()
	})
	return out, err
}

// inChunk bounds the values of one IN (Cassandra's guardrails may refuse
// long IN lists).
const inChunk = 100

// sqsConcurrency bounds the concurrent queries of one call.
const sqsConcurrency = 16

// forEachChunk calls fn concurrently for each partition of p and each
// chunk of at most inChunk of its positions.
func forEachChunk(p *partPlan, fn func(k partKey, chunk [][]byte) error) error {
	type job struct {
		k     partKey
		chunk [][]byte
	}
	var jobs []job
	for _, k := range p.order {
		all := p.pos[k]
		for len(all) > 0 {
			n := min(len(all), inChunk)
			jobs = append(jobs, job{k, all[:n]})
			all = all[n:]
		}
	}
	return parallel(len(jobs), sqsConcurrency, func(i int) error { return fn(jobs[i].k, jobs[i].chunk) })
}
