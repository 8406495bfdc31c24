package rollup

import (
	"fmt"
	"slices"
	"time"
)

// Distinct makes one of a rollup's metrics count the values of an event
// member instead of summing deltas (the event's own member named like the
// metric is never read):
//
//   - distinct: in each row, the number of different values of Of among
//     the events of the row's bucket (visitors of the hour, the day, all
//     time: each period counts its own buckets);
//   - first_seen: in each row, the number of values of Of whose first
//     event, by event time, over the rollup's life, in the row's scope
//     and dimension value, falls in the row's bucket (first-time
//     visitors). A first event arriving after a later one of the same
//     value moves the count to its own bucket.
//
// Both are exact and count each event once, as the other metrics do: a
// commit looks up the values its batch saw (a Sight each) in the store's
// record of those seen, inside the same serialized section that checks
// the events' IDs, and writes the new ones with the rows (Batch.Resolve).
// They are metrics like the others for series, totals, top and triggers;
// a total over several buckets of a distinct metric is the sum of the
// buckets' counts (a value seen in two buckets counts twice; ask the
// coarser period for the count of a day or all time), while first_seen
// sums exactly (each value counts once, ever).
type Distinct struct {
	Metric string `json:"metric"` // one of Metrics
	Of     string `json:"of"`     // the member whose values are counted
	Kind   string `json:"kind"`   // KindDistinct or KindFirstSeen
}

// The kinds of a Distinct.
const (
	KindDistinct  = "distinct"
	KindFirstSeen = "first_seen"
)

// MaxDistinct bounds a definition's distinct metrics: each multiplies the
// values a commit looks up.
const MaxDistinct = 8

// checkDistinct validates d.Distinct against the metrics and members.
func (d *Definition) checkDistinct(reserved map[string]string) error {
	if len(d.Distinct) > MaxDistinct {
		return invalid("distinct", "at most %d, got %d", MaxDistinct, len(d.Distinct))
	}
	for i, x := range d.Distinct {
		at := fmt.Sprintf("distinct[%d]", i)
		if !slices.Contains(d.Metrics, x.Metric) {
			return invalid(at+".metric", "%q is not one of the metrics", x.Metric)
		}
		if slices.ContainsFunc(d.Distinct[:i], func(o Distinct) bool { return o.Metric == x.Metric }) {
			return invalid(at+".metric", "%q appears twice", x.Metric)
		}
		if err := checkMember(at+".of", x.Of); err != nil {
			return err
		}
		if r, ok := reserved[x.Of]; ok {
			return invalid(at+".of", "%q is %s", x.Of, r)
		}
		if slices.Contains(d.Metrics, x.Of) {
			return invalid(at+".of", "%q is a metric", x.Of)
		}
		if x.Kind != KindDistinct && x.Kind != KindFirstSeen {
			return invalid(at+".kind", "%q is not %q or %q", x.Kind, KindDistinct, KindFirstSeen)
		}
	}
	return nil
}

// compileDistinct indexes d.Distinct by metric (Normalize).
func (d *Definition) compileDistinct() {
	d.distinct = nil
	if len(d.Distinct) == 0 {
		return
	}
	d.distinct = make([]*Distinct, len(d.Metrics))
	for i := range d.Distinct {
		d.distinct[slices.Index(d.Metrics, d.Distinct[i].Metric)] = &d.Distinct[i]
	}
}

// HasDistinct reports whether d has distinct metrics.
func (d *Definition) HasDistinct() bool { return d.distinct != nil }

// distinctOf returns metric m's Distinct, or nil for a sum.
func (d *Definition) distinctOf(m int) *Distinct {
	if d.distinct == nil || m >= len(d.distinct) {
		return nil
	}
	return d.distinct[m]
}

// Sight is a value of a distinct metric seen in a set: for KindDistinct
// the row (its bucket) the value was seen in; for KindFirstSeen the
// series of the row, over all time (the row with Unit All and Bucket 0).
// The store records each sight once with the time it was first seen.
type Sight struct {
	Set    Row
	Metric int
	Value  string
}

// sight records that value v of distinct metric m was seen in row r at
// at, keeping the earliest time per sight.
func (b *Batch) sight(r Row, m int, x *Distinct, v string, at time.Time) {
	if x.Kind == KindFirstSeen {
		r.Unit, r.Bucket = All, 0
	}
	s := Sight{Set: r, Metric: m, Value: v}
	if t, ok := b.sights[s]; !ok || at.Before(t) {
		b.sights[s] = at
	}
}

// Sights returns the sights of the batch's events with the earliest time
// each was seen in the batch. The map is the batch's own.
func (b *Batch) Sights() map[Sight]time.Time { return b.sights }

// Resolve turns the batch's sights into counts, given known, the sights
// the store recorded before (by the time each was first seen; absent:
// never seen): a value new to a row's bucket counts 1 there (distinct);
// a value new to a series counts 1 in each period's bucket of its time,
// and one seen only later than this batch saw it moves its count from the
// buckets of the later time to those of this one (first_seen). It
// returns the sights to record (new ones, and those seen earlier than
// recorded, with the batch's time), and from then on Rows returns the
// batch's rows with those counts added (rows gained by a move included).
// A store calls it once per attempt, inside the section that serializes
// the rollup's commits; a new call starts again from the events' sums.
func (b *Batch) Resolve(known map[Sight]time.Time, now time.Time) map[Sight]time.Time {
	if len(b.sights) == 0 {
		b.resolved = nil
		return nil
	}
	n := len(b.def.Metrics)
	rows := make(map[Row][]int64, len(b.rows)+len(b.sights))
	for r, sums := range b.rows {
		rows[r] = slices.Clone(sums)
	}
	add := func(r Row, m int, x int64) {
		sums, ok := rows[r]
		if !ok {
			sums = make([]int64, n)
			rows[r] = sums
		}
		sums[m] += x
	}
	writes := map[Sight]time.Time{}
	for s, at := range b.sights {
		old, seen := known[s]
		switch {
		case b.def.distinctOf(s.Metric).Kind == KindDistinct:
			if !seen {
				add(s.Set, s.Metric, 1)
				writes[s] = at
			}
		case !seen:
			b.def.seriesRows(s.Set, at, now, func(r Row) { add(r, s.Metric, 1) })
			writes[s] = at
		case at.Before(old):
			b.def.seriesRows(s.Set, old, now, func(r Row) { add(r, s.Metric, -1) })
			b.def.seriesRows(s.Set, at, now, func(r Row) { add(r, s.Metric, 1) })
			writes[s] = at
		}
	}
	b.resolved = rows
	return writes
}

// seriesRows calls f with the row of series set (a row with Unit All and
// Bucket 0) in each of d's periods' buckets of time at that is still kept
// at now.
func (d *Definition) seriesRows(set Row, at, now time.Time, f func(Row)) {
	loc := d.Location()
	for _, p := range d.Periods {
		r := set
		r.Unit, r.Bucket = p.Unit, 0
		if p.Unit != All {
			start := p.Unit.Bucket(at, loc)
			if p.Unit.Next(start).Add(time.Duration(p.Retention)).Before(now) {
				continue
			}
			r.Bucket = start.Unix()
		}
		f(r)
	}
}
