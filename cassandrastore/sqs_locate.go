package cassandrastore

import (
	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// Finding a message by id. A message's partition is (queue, shard, bucket):
// the Service stores every message in shard sqs.ShardOf(ID, q.Shards), and
// the bucket is the minute of the ID's time, so the calls by id
// (GetMessages, DeleteMessages, SaveStates) compute each id's partition and
// go straight to it, with no read before a write and nothing remembered
// between calls.

// partKey names one message partition of a queue.
type partKey struct {
	shard  int
	bucket int64
}

// homePart is the partition of message id in q.
func homePart(q *sqs.Queue, id uuid.UUID) partKey {
	return partKey{sqs.ShardOf(id, shardCount(q)), msgBucket(id)}
}

// storable reports whether id can name a stored message: message IDs are
// version 1 (time-based) UUIDs, and only those have a meaningful bucket.
// Other ids are left out of reads and, above all, of writes, which would
// otherwise leave tombstones or stray cells in an arbitrary partition.
func storable(id uuid.UUID) bool { return id.Version() == 1 }

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
