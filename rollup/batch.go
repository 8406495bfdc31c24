package rollup

import (
	"maps"
	"time"
)

// Batch combines the events of one flush in memory: one sum per (row,
// metric), so that committing it writes each distinct row once however
// many events touched it. An event ID already in the batch is not counted
// again. Not safe for concurrent use.
type Batch struct {
	def  *Definition
	rows map[Row][]int64
	ids  map[string]time.Time // event ID -> the event's time
	// sights are the values of distinct metrics the events saw, with the
	// earliest time each (distinct.go); resolved are rows with their
	// counts added, once the store resolved them (nil before).
	sights   map[Sight]time.Time
	resolved map[Row][]int64
	shard    int // the commit shard whose rows it counts (shard.go)

	Events     int // events counted
	Duplicates int // events refused for an ID already in the batch
	Expired    int // (scope, period) pairs skipped, past their retention
}

// NewBatch returns an empty batch of d's events.
func NewBatch(d *Definition) *Batch {
	return &Batch{def: d, rows: map[Row][]int64{}, ids: map[string]time.Time{}, sights: map[Sight]time.Time{}}
}

// Add counts e unless its ID is already in the batch (false then), in
// the cells that count it (every one, unless the rollup gained parts
// after e's time: see Definition.Added).
func (b *Batch) Add(e Event, now time.Time) bool { return b.add(e, now, false) }

// AddBackfill counts e, read again from a replayable source, in the cells
// of parts the rollup gained after e's time, and only there: the cells
// that live counting skipped for it.
func (b *Batch) AddBackfill(e Event, now time.Time) bool { return b.add(e, now, true) }

func (b *Batch) add(e Event, now time.Time, backfill bool) bool {
	if _, dup := b.ids[e.ID]; dup {
		b.Duplicates++
		return false
	}
	b.ids[e.ID] = e.Time
	b.Events++
	d := b.def
	masked := backfill || d.starts.any
	b.Expired += d.Expand(e, now, func(r Row) {
		if !b.inShard(r) {
			return
		}
		// Values of distinct metrics are seen in every row, in live
		// counting and in a backfill alike: the store's record of those
		// seen makes a second sight of one count nothing.
		for m, x := range d.distinct {
			if x == nil {
				continue
			}
			if v, ok := e.Values[x.Of]; ok {
				b.sight(r, m, x, v, e.Time)
			}
		}
		if masked && !d.anyCellCounts(r, e.Time, backfill) {
			return
		}
		sums, ok := b.rows[r]
		if !ok {
			sums = make([]int64, len(d.Metrics))
			b.rows[r] = sums
		}
		// An event read with another version of the definition than the
		// batch's may hold more metrics or fewer (a consumer reads with
		// the newest it has, and commits later): those the batch's
		// version lacks are left out, never a fault.
		for i, x := range e.Deltas[:min(len(e.Deltas), len(sums))] {
			if !masked || d.cellCounts(r, i, e.Time, backfill) {
				sums[i] += x
			}
		}
	})
	return true
}

// Has reports whether an event with this ID is in the batch.
func (b *Batch) Has(id string) bool { _, ok := b.ids[id]; return ok }

// IDs returns the IDs of the events counted, in no order.
func (b *Batch) IDs() []string {
	out := make([]string, 0, len(b.ids))
	for id := range b.ids {
		out = append(out, id)
	}
	return out
}

// Keys returns the keys of the events counted, in no order.
func (b *Batch) Keys() []EventKey {
	out := make([]EventKey, 0, len(b.ids))
	for id, at := range b.ids {
		out = append(out, EventKey{ID: id, Time: at})
	}
	return out
}

// Rows returns the batch's rows with their sums per metric (in the order
// of the definition's Metrics), with the counts of its distinct metrics
// once Resolve added them. The map is the batch's own.
func (b *Batch) Rows() map[Row][]int64 {
	if b.resolved != nil {
		return b.resolved
	}
	return b.rows
}

// Len is the number of distinct rows (Rows).
func (b *Batch) Len() int { return len(b.Rows()) }

// BatchFrom rebuilds a batch of d from its parts, as Rows (before
// Resolve), Keys and Sights give them: a batch handed from one node to
// the node that commits for it.
func BatchFrom(d *Definition, shard int, rows map[Row][]int64, keys []EventKey, sights map[Sight]time.Time) *Batch {
	b := NewShardBatch(d, shard)
	for r, sums := range rows {
		b.rows[r] = fit(sums, len(d.Metrics))
	}
	for _, k := range keys {
		b.ids[k.ID] = k.Time
	}
	for x, at := range sights {
		if d.distinctOf(x.Metric) != nil {
			b.sights[x] = at
		}
	}
	b.Events = len(keys)
	return b
}

// fit returns sums with n metrics: a batch of another version of the
// definition may hold more or fewer (those b's version lacks are left
// out; missing ones are 0).
func fit(sums []int64, n int) []int64 {
	if len(sums) == n {
		return sums
	}
	out := make([]int64, n)
	copy(out, sums)
	return out
}

// Merge adds o's events to b, as a committer folding the batches of
// several writers into one commit, unless b already holds some of o's
// event IDs: it then returns those IDs and changes nothing. Neither batch
// may be resolved yet; both count the same commit shard.
func (b *Batch) Merge(o *Batch) []string {
	if o.shard != b.shard {
		panic("rollup: merging batches of two commit shards")
	}
	var dups []string
	for id := range o.ids {
		if _, ok := b.ids[id]; ok {
			dups = append(dups, id)
		}
	}
	if len(dups) > 0 {
		return dups
	}
	n := len(b.def.Metrics)
	for r, sums := range o.rows {
		cur, ok := b.rows[r]
		if !ok {
			b.rows[r] = fit(append([]int64(nil), sums...), n)
			continue
		}
		for i, x := range sums[:min(len(sums), n)] {
			cur[i] += x
		}
	}
	maps.Copy(b.ids, o.ids)
	for x, at := range o.sights {
		if b.def.distinctOf(x.Metric) == nil {
			continue
		}
		if t, ok := b.sights[x]; !ok || at.Before(t) {
			b.sights[x] = at
		}
	}
	b.Events += o.Events
	b.Duplicates += o.Duplicates
	b.Expired += o.Expired
	return nil
}
