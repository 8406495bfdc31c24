package rollup

import (
	"encoding/binary"
	"hash/fnv"
	"maps"
	"strconv"

	"github.com/google/uuid"
)

// Commit shards. A rollup's rows are split over CommitShards shards by
// row identity (scope, scope values, dimension and value: every period's
// buckets of one row fall in one shard, with the sets of values its
// distinct metrics saw), and each shard is committed on its own: its own
// sequence or lock, its own record of the event IDs it counted. The
// Service expands each batch once and splits it by shard (Split), and
// commits the shards at once; an engine that commits on several nodes may commit
// different shards of one rollup on different nodes.
//
// Why it stays exact: every row, every set of values seen and every
// trigger crossing (of one row, or of one row's buckets in a window)
// belongs to exactly one shard, and each shard counts each event ID at
// most once within the dedup window, as one whole rollup did: so each
// event counts once in every row. A batch whose shards committed in part
// (a node died between two) is sent again; the shards that committed
// find its events duplicates, the others count them.
//
// The number is fixed when the rollup is created: another split would
// put a row's later counts in a shard that never recorded its earlier
// events.
const MaxCommitShards = 64

// Shards is the number of d's commit shards (at least 1).
func (d *Definition) Shards() int { return max(1, d.CommitShards) }

// ShardOf is the commit shard of row r (0 with a single shard). The
// first_seen set of a row (Unit All) shares its shard: only Scope, Key,
// Dim and Value decide.
func (d *Definition) ShardOf(r Row) int {
	n := d.Shards()
	if n == 1 {
		return 0
	}
	h := fnv.New64a()
	var b [20]byte
	k := binary.AppendVarint(b[:0], int64(r.Scope))
	k = binary.AppendVarint(k, int64(r.Dim))
	k = binary.AppendUvarint(k, uint64(len(r.Key)))
	h.Write(k)
	h.Write([]byte(r.Key))
	h.Write([]byte(r.Value))
	return int(h.Sum64() % uint64(n))
}

// ShardID names commit shard k of d where an engine keys what belongs to
// one shard (its sequence, its event records): d.ID for shard 0, so that
// a rollup of one shard is keyed as every rollup was before shards, and a
// name-based UUID derived from d.ID for the others.
func (d *Definition) ShardID(k int) uuid.UUID {
	if k == 0 {
		return d.ID
	}
	return uuid.NewSHA1(d.ID, []byte("commit-shard/"+strconv.Itoa(k)))
}

// NewShardBatch returns an empty batch of d's events for commit shard k:
// it counts the events' rows and sights of that shard only, and every
// event's ID (the shard records each event it was given, rows or not).
func NewShardBatch(d *Definition, k int) *Batch {
	b := NewBatch(d)
	b.shard = k
	return b
}

// Shard is the commit shard b counts.
func (b *Batch) Shard() int { return b.shard }

// inShard reports whether row r belongs to b's shard.
func (b *Batch) inShard(r Row) bool {
	return b.shard == allShards || b.def.CommitShards <= 1 || b.def.ShardOf(r) == b.shard
}

// Split returns b's events as one batch per commit shard of its rollup:
// each holds every event's ID, and the rows and sights of its shard,
// as NewShardBatch and Add would make them, the rows expanded once.
// b must be a batch of every row (NewBatch of a rollup of one shard,
// or NewSplitBatch's), not resolved yet; the batches share b's sums.
func (b *Batch) Split() []*Batch {
	d := b.def
	out := make([]*Batch, d.Shards())
	for k := range out {
		s := NewShardBatch(d, k)
		maps.Copy(s.ids, b.ids)
		s.Events, s.Duplicates, s.Expired = b.Events, b.Duplicates, b.Expired
		out[k] = s
	}
	for r, sums := range b.rows {
		out[d.ShardOf(r)].rows[r] = sums
	}
	for x, at := range b.sights {
		out[d.ShardOf(x.Set)].sights[x] = at
	}
	return out
}

// NewSplitBatch returns an empty batch of every row of d's events, for
// Split (Add on it counts every shard's rows).
func NewSplitBatch(d *Definition) *Batch {
	b := NewBatch(d)
	b.shard = allShards
	return b
}

// allShards is the shard of a batch of every row (NewSplitBatch).
const allShards = -1
