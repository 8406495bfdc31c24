package rollup

import (
	"maps"
	"slices"
	"time"
)

// MaxDimensionID bounds the numbers of dimensions and drill-downs in rows:
// a rollup may gain parts many times, each new one numbered after the
// others, and never reuses a number.
const MaxDimensionID = 1023

// dimID is the row number of dimension i.
func (d *Definition) dimID(i int) int {
	if d.DimensionIDs != nil {
		return d.DimensionIDs[i]
	}
	return i
}

// drillDownID is the row number of drill-down i.
func (d *Definition) drillDownID(i int) int {
	if d.DrillDownIDs != nil {
		return d.DrillDownIDs[i]
	}
	return len(d.Dimensions) + i
}

// checkIDs checks the row numbers a stored definition carries: one per
// dimension and per drill-down, each distinct, in range.
func (d *Definition) checkIDs() error {
	if d.DimensionIDs == nil && d.DrillDownIDs == nil {
		return nil
	}
	if len(d.DimensionIDs) != len(d.Dimensions) || len(d.DrillDownIDs) != len(d.DrillDowns) {
		return invalid("dimension_ids", "%d numbers for %d dimensions and %d for %d drill-downs", len(d.DimensionIDs), len(d.Dimensions), len(d.DrillDownIDs), len(d.DrillDowns))
	}
	seen := map[int]bool{}
	for _, id := range slices.Concat(d.DimensionIDs, d.DrillDownIDs) {
		if id < 0 || id > MaxDimensionID || seen[id] {
			return invalid("dimension_ids", "%d is out of range (0 to %d) or appears twice", id, MaxDimensionID)
		}
		seen[id] = true
	}
	return nil
}

// starts are when the parts a rollup gained start counting, by event
// time (Definition.Added), compiled by Normalize: a cell of a row and a
// metric counts the events timed from the later of its row's part's
// start and its metric's; cells of parts the rollup was created with
// count every event.
type starts struct {
	dims    map[int]time.Time // by row number (Row.Dim) of a dimension or drill-down gained
	metrics []time.Time       // by metric; zero for the first ones
	any     bool
}

// compileStarts reads d.Added into d.starts.
func (d *Definition) compileStarts() {
	d.starts = starts{}
	if len(d.Added) == 0 {
		return
	}
	d.starts.any = true
	d.starts.dims = map[int]time.Time{}
	for i, m := range d.Dimensions {
		if t, ok := d.Added["dimensions."+m]; ok {
			d.starts.dims[d.dimID(i)] = t
		}
	}
	for i, pair := range d.DrillDowns {
		if t, ok := d.Added["drilldowns."+pair[0]+"/"+pair[1]]; ok {
			d.starts.dims[d.drillDownID(i)] = t
		}
	}
	d.starts.metrics = make([]time.Time, len(d.Metrics))
	for i, m := range d.Metrics {
		d.starts.metrics[i] = d.Added["metrics."+m]
	}
}

// cellCounts reports whether the cell of row r and metric m counts an
// event timed at: live counting takes the events timed from the cell's
// start (backfill false), a backfill those before it (backfill true), so
// that each event reaches each cell once.
func (d *Definition) cellCounts(r Row, m int, at time.Time, backfill bool) bool {
	start := d.starts.dims[r.Dim] // zero for the total and every first part
	if ms := d.starts.metrics[m]; ms.After(start) {
		start = ms
	}
	return at.Before(start) == backfill
}

// anyCellCounts reports whether some cell of row r counts an event timed
// at (cellCounts).
func (d *Definition) anyCellCounts(r Row, at time.Time, backfill bool) bool {
	if !d.starts.any {
		return !backfill
	}
	for m := range d.Metrics {
		if d.cellCounts(r, m, at, backfill) {
			return true
		}
	}
	return false
}

// Evolve makes d, a definition put over the stored o, o's next version
// when all it changes is adding parts after o's own (kept unchanged and
// in order): metrics (new ones may count values, Distinct), dimensions,
// drill-downs and computed members, with the same event members, scopes,
// period units, time zone and dedup window (retentions, sources, tiles
// and triggers may change as in any replacement). d then keeps o's ID and
// creation, o's row numbers, with new ones after them for its new
// dimensions and drill-downs, and o's Added, with start for each part it
// adds: counts of o's parts carry over, the new ones count the events
// timed from start (which the caller puts far enough ahead for every node
// to have learned of them; a distinct metric counts the values of every
// event it sees, Distinct). It reports false, changing nothing, when d
// changes o otherwise.
func (d *Definition) Evolve(o *Definition, start time.Time) bool {
	now := start.UTC().Truncate(time.Second) // shown in whole seconds, never before start
	if now.Before(start) {
		now = now.Add(time.Second)
	}
	if d.CommitShards == 0 {
		d.CommitShards = o.CommitShards // not given: kept
	}
	if d.Event != o.Event || d.TimeZone != o.TimeZone || d.DedupWindow != o.DedupWindow || d.Shards() != o.Shards() ||
		!slices.EqualFunc(d.Scopes, o.Scopes, slices.Equal) ||
		!slices.EqualFunc(d.Periods, o.Periods, func(a, b Period) bool { return a.Unit == b.Unit }) ||
		!extends(d.Metrics, o.Metrics, func(a, b string) bool { return a == b }) ||
		!extends(d.Dimensions, o.Dimensions, func(a, b string) bool { return a == b }) ||
		!extends(d.DrillDowns, o.DrillDowns, slices.Equal) ||
		!extends(d.Computed, o.Computed, sameComputed) ||
		!extends(d.Distinct, o.Distinct, func(a, b Distinct) bool { return a == b }) {
		return false
	}
	for _, x := range d.Distinct[len(o.Distinct):] {
		if slices.Contains(o.Metrics, x.Metric) {
			return false // a metric that summed deltas cannot start counting values
		}
	}
	next := 0
	dims, drills := make([]int, len(d.Dimensions)), make([]int, len(d.DrillDowns))
	for i := range o.Dimensions {
		dims[i] = o.dimID(i)
		next = max(next, dims[i]+1)
	}
	for i := range o.DrillDowns {
		drills[i] = o.drillDownID(i)
		next = max(next, drills[i]+1)
	}
	if next+len(d.Dimensions)-len(o.Dimensions)+len(d.DrillDowns)-len(o.DrillDowns) > MaxDimensionID+1 {
		return false
	}
	added := maps.Clone(o.Added)
	mark := func(part string) {
		if added == nil {
			added = map[string]time.Time{}
		}
		added[part] = now
	}
	for i := len(o.Dimensions); i < len(d.Dimensions); i++ {
		dims[i], next = next, next+1
		mark("dimensions." + d.Dimensions[i])
	}
	for i := len(o.DrillDowns); i < len(d.DrillDowns); i++ {
		drills[i], next = next, next+1
		mark("drilldowns." + d.DrillDowns[i][0] + "/" + d.DrillDowns[i][1])
	}
	for _, m := range d.Metrics[len(o.Metrics):] {
		mark("metrics." + m)
	}
	d.DimensionIDs, d.DrillDownIDs, d.Added = nil, nil, added
	if o.DimensionIDs != nil || len(d.Dimensions) > len(o.Dimensions) || len(d.DrillDowns) > len(o.DrillDowns) {
		d.DimensionIDs, d.DrillDownIDs = dims, drills
	}
	d.ID, d.Created = o.ID, o.Created
	d.ms = d.matchers() // triggers on dimensions watch rows by their numbers
	d.compileStarts()
	return true
}

// extends reports whether s is base followed by zero or more elements.
func extends[T any](s, base []T, eq func(a, b T) bool) bool {
	return len(s) >= len(base) && slices.EqualFunc(s[:len(base)], base, eq)
}

func sameComputed(a, b Computed) bool {
	return a.Name == b.Name && a.Fn == b.Fn && a.Member == b.Member && a.Length == b.Length &&
		a.Default == b.Default && maps.Equal(a.Table, b.Table)
}
