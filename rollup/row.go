package rollup

import (
	"strings"
	"time"
)

// Sep joins the values of a scope, or of a drill-down, in a row's key.
// Values never contain it (ParseEvents refuses control characters).
const Sep = "\x1f"

// Total is Row.Dim of a scope's total row.
const Total = -1

// Row names one counter row: the counters of one scope's values, in one
// bucket of one period, for one value of one dimension (or all of them).
type Row struct {
	Scope  int    // index in Definition.Scopes
	Key    string // the scope's values, joined by Sep
	Unit   Unit
	Bucket int64 // Unix seconds of the bucket's start; 0 for All
	// Dim is Total or the number of a dimension or a drill-down
	// (Definition.DimensionIDs, DrillDownIDs).
	Dim   int
	Value string // the dimension's value; a drill-down's two joined by Sep; "" for Total
}

// KeptUntil is when the bucket of unit u starting at bucket (Unix
// seconds) leaves d's retention: the end of the bucket plus its period's
// retention. ok is false for All's bucket, kept for good.
func (d *Definition) KeptUntil(u Unit, bucket int64) (until time.Time, ok bool) {
	if u == All {
		return time.Time{}, false
	}
	var keep time.Duration
	for _, p := range d.Periods {
		if p.Unit == u {
			keep = time.Duration(p.Retention)
		}
	}
	return u.Next(time.Unix(bucket, 0).In(d.Location())).Add(keep), true
}

// Expand calls add for every row event e updates: for each scope whose
// members e all has and each period whose bucket of e's time is still
// kept at now, the scope's total, each dimension e has a value for and
// each drill-down e has both values of. It returns how many (scope,
// period) pairs were skipped because their bucket was past its retention.
func (d *Definition) Expand(e Event, now time.Time, add func(Row)) (expired int) {
	loc := d.Location()
	var key strings.Builder
	for si, scope := range d.Scopes {
		key.Reset()
		whole := true
		for j, m := range scope {
			v, ok := e.Values[m]
			if !ok {
				whole = false
				break
			}
			if j > 0 {
				key.WriteString(Sep)
			}
			key.WriteString(v)
		}
		if !whole {
			continue
		}
		k := key.String()
		for _, p := range d.Periods {
			var bucket int64
			if p.Unit != All {
				start := p.Unit.Bucket(e.Time, loc)
				if p.Unit.Next(start).Add(time.Duration(p.Retention)).Before(now) {
					expired++
					continue
				}
				bucket = start.Unix()
			}
			r := Row{Scope: si, Key: k, Unit: p.Unit, Bucket: bucket, Dim: Total}
			add(r)
			for di, m := range d.Dimensions {
				if v, ok := e.Values[m]; ok {
					r.Dim, r.Value = d.dimID(di), v
					add(r)
				}
			}
			for i, pair := range d.DrillDowns {
				outer, ok1 := e.Values[pair[0]]
				inner, ok2 := e.Values[pair[1]]
				if ok1 && ok2 {
					r.Dim, r.Value = d.drillDownID(i), outer+Sep+inner
					add(r)
				}
			}
		}
	}
	return expired
}
