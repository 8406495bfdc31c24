package rollup

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heraldmq/herald"
)

// Query limits: they bound what one query reads.
const (
	MaxBuckets  = 1000  // buckets of one series, top or totals query
	MaxTop      = 1000  // N of a top query
	MaxTopRows  = 20000 // values one top query reads per bucket
	DefaultTopN = 10
)

// Selector picks one scope's values and, optionally, one dimension value:
// what every query starts from. Scope maps each member of one of the
// definition's scopes to a value (channel=c1, video=v9).
type Selector struct {
	Scope map[string]string
	Dim   string // a dimension, or "" for the scope's totals
	Value string // Dim's value
	// Within narrows Dim to one value of the dimension it is drilled
	// down from (a drill-down pair [Within's dimension, Dim]).
	WithinDim, WithinValue string
}

// Range is a period unit and a span of time [From, To): the buckets of
// Unit that start in it.
type Range struct {
	Unit     Unit
	From, To time.Time
}

// Point is one bucket of a series.
type Point struct {
	Bucket time.Time `json:"bucket"`
	Values []int64   `json:"values"` // one per metric asked for
}

// Series is the answer to a series query.
type Series struct {
	Metrics []string `json:"metrics"`
	Points  []Point  `json:"points"`
}

// Ranked is one value of a top query.
type Ranked struct {
	Value  string  `json:"value"`
	Values []int64 `json:"values"` // one per metric of the definition
}

// Top is the answer to a top query.
type Top struct {
	Dimension string   `json:"dimension"`
	Metrics   []string `json:"metrics"`
	OrderBy   string   `json:"order_by"`
	Values    []Ranked `json:"values"`
	Distinct  int      `json:"distinct"`              // values the range holds in all
	Next      int      `json:"next_offset,omitempty"` // offset of the next page; 0 at the end
}

// Totals is the answer to a totals query.
type Totals struct {
	Metrics []string `json:"metrics"`
	Values  []int64  `json:"values"`
	Buckets int      `json:"buckets"`
}

// scopeOf resolves a selector's scope: the index of the definition's
// scope with exactly those members, and its key.
func (d *Definition) scopeOf(sel map[string]string) (int, string, error) {
	i, vals, ok := d.scopeWith(sel)
	if !ok {
		members := slices.Sorted(maps.Keys(sel))
		return 0, "", invalid("scope", "%s is not one of the rollup's scopes %v", herald.Clip(strings.Join(members, ",")), d.Scopes)
	}
	return i, strings.Join(vals, Sep), nil
}

// scopeWith finds the scope with exactly the members of sel and returns
// its index and sel's values in the scope's order; ok is false when no
// scope has those members or a value is "".
func (d *Definition) scopeWith(sel map[string]string) (int, []string, bool) {
	for i, scope := range d.Scopes {
		if len(scope) != len(sel) {
			continue
		}
		vals := make([]string, len(scope))
		whole := true
		for j, m := range scope {
			v, ok := sel[m]
			if !ok || v == "" {
				whole = false
				break
			}
			vals[j] = v
		}
		if whole {
			return i, vals, true
		}
	}
	return 0, nil, false
}

// dimOf resolves a selector's dimension to a Row.Dim and value (or value
// prefix, for a drill-down within a value).
func (d *Definition) dimOf(sel Selector) (dim int, value string, err error) {
	if sel.WithinDim != "" {
		for i, pair := range d.DrillDowns {
			if pair[0] == sel.WithinDim && pair[1] == sel.Dim {
				return d.drillDownID(i), sel.WithinValue + Sep + sel.Value, nil
			}
		}
		return 0, "", invalid("within", "no drill-down from %s into %s in this rollup", herald.Clip(sel.WithinDim), herald.Clip(sel.Dim))
	}
	if sel.Dim == "" {
		return Total, "", nil
	}
	if i := slices.Index(d.Dimensions, sel.Dim); i >= 0 {
		return d.dimID(i), sel.Value, nil
	}
	return 0, "", invalid("dimension", "%s is not one of the rollup's dimensions", herald.Clip(sel.Dim))
}

// buckets lists the starts of r's buckets, checking r against d.
func (d *Definition) buckets(r Range) ([]int64, error) {
	if !slices.ContainsFunc(d.Periods, func(p Period) bool { return p.Unit == r.Unit }) {
		return nil, invalid("unit", "%s is not one of the rollup's periods", herald.Clip(string(r.Unit)))
	}
	if r.Unit == All {
		return []int64{0}, nil
	}
	if !r.From.Before(r.To) {
		return nil, invalid("from", "the range is empty: from must be before to")
	}
	loc := d.Location()
	b := r.Unit.Bucket(r.From, loc)
	if b.Before(r.From) {
		b = r.Unit.Next(b)
	}
	var out []int64
	for ; b.Before(r.To); b = r.Unit.Next(b) {
		if len(out) == MaxBuckets {
			return nil, invalid("to", "the range spans more than %d %s buckets", MaxBuckets, r.Unit)
		}
		out = append(out, b.Unix())
	}
	return out, nil
}

// metricIndexes resolves metric names ("" or none: all of them).
func (d *Definition) metricIndexes(names []string) ([]int, []string, error) {
	if len(names) == 0 {
		idx := make([]int, len(d.Metrics))
		for i := range idx {
			idx[i] = i
		}
		return idx, d.Metrics, nil
	}
	idx := make([]int, len(names))
	for i, n := range names {
		j := slices.Index(d.Metrics, n)
		if j < 0 {
			return nil, nil, invalid("metrics", "%s is not one of the rollup's metrics", herald.Clip(n))
		}
		idx[i] = j
	}
	return idx, names, nil
}

// Series returns metrics (all when none are named) of one selector in
// each bucket of r, zeros included, oldest first.
func (s *Service) Series(ctx context.Context, name string, sel Selector, r Range, metrics []string) (Series, error) {
	d, err := s.Get(ctx, name)
	if err != nil {
		return Series{}, err
	}
	scope, key, err := d.scopeOf(sel.Scope)
	if err != nil {
		return Series{}, err
	}
	dim, value, err := d.dimOf(sel)
	if err != nil {
		return Series{}, err
	}
	if dim != Total && sel.Value == "" {
		return Series{}, invalid("value", "a series of a dimension needs one of its values")
	}
	idx, names, err := d.metricIndexes(metrics)
	if err != nil {
		return Series{}, err
	}
	buckets, err := d.buckets(r)
	if err != nil {
		return Series{}, err
	}
	rows := make([]Row, len(buckets))
	for i, b := range buckets {
		rows[i] = Row{Scope: scope, Key: key, Unit: r.Unit, Bucket: b, Dim: dim, Value: value}
	}
	sums, err := s.store.ReadRows(ctx, d, rows)
	if err != nil {
		return Series{}, err
	}
	out := Series{Metrics: names, Points: make([]Point, len(buckets))}
	for i, b := range buckets {
		p := Point{Bucket: time.Unix(b, 0).In(d.Location()), Values: make([]int64, len(idx))}
		if sums[i] != nil {
			for j, m := range idx {
				p.Values[j] = sums[i][m]
			}
		}
		out.Points[i] = p
	}
	return out, nil
}

// Totals sums metrics of one selector over the buckets of r.
func (s *Service) Totals(ctx context.Context, name string, sel Selector, r Range, metrics []string) (Totals, error) {
	series, err := s.Series(ctx, name, sel, r, metrics)
	if err != nil {
		return Totals{}, err
	}
	out := Totals{Metrics: series.Metrics, Values: make([]int64, len(series.Metrics)), Buckets: len(series.Points)}
	for _, p := range series.Points {
		for i, x := range p.Values {
			out.Values[i] += x
		}
	}
	return out, nil
}

// TopQuery asks for the values of one dimension ranked by a metric.
type TopQuery struct {
	Selector         // Scope, Dim (required), WithinDim and WithinValue
	Range            // the buckets summed
	OrderBy   string // a metric; the first when ""
	N         int    // values per page (DefaultTopN when 0)
	Offset    int    // values skipped (paging)
	Ascending bool
}

// Top ranks the values of a dimension (within a value of the dimension
// it drills down from, if asked) by a metric summed over a range: exact,
// as every bucket's values are read and summed. Ties are broken by value.
func (s *Service) Top(ctx context.Context, name string, q TopQuery) (Top, error) {
	d, err := s.Get(ctx, name)
	if err != nil {
		return Top{}, err
	}
	if q.Dim == "" {
		return Top{}, invalid("dimension", "a top query ranks the values of one dimension")
	}
	scope, key, err := d.scopeOf(q.Scope)
	if err != nil {
		return Top{}, err
	}
	sel := q.Selector
	sel.Value = ""
	dim, prefix, err := d.dimOf(sel)
	if err != nil {
		return Top{}, err
	}
	order := 0
	if q.OrderBy != "" {
		if order = slices.Index(d.Metrics, q.OrderBy); order < 0 {
			return Top{}, invalid("order_by", "%s is not one of the rollup's metrics", herald.Clip(q.OrderBy))
		}
	}
	switch {
	case q.N == 0:
		q.N = DefaultTopN
	case q.N < 0 || q.N > MaxTop:
		return Top{}, invalid("n", "want 1 to %d, got %d", MaxTop, q.N)
	}
	if q.Offset < 0 {
		return Top{}, invalid("offset", "must not be negative")
	}
	buckets, err := d.buckets(q.Range)
	if err != nil {
		return Top{}, err
	}
	// The buckets' partitions are read concurrently (topReaders at a
	// time), each summed on its own, then merged.
	partial := make([]map[string][]int64, len(buckets))
	errs := make([]error, len(buckets))
	sem := make(chan struct{}, topReaders)
	var wg sync.WaitGroup
	for i, b := range buckets {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			partial[i], errs[i] = s.readTopPartition(ctx, d, Partition{Scope: scope, Key: key, Unit: q.Unit, Bucket: b, Dim: dim}, prefix, q.Dim)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return Top{}, err
		}
	}
	sums := partial[0]
	for _, m := range partial[1:] {
		for v, vals := range m {
			acc, ok := sums[v]
			if !ok {
				sums[v] = vals
				continue
			}
			for i, x := range vals {
				acc[i] += x
			}
		}
	}
	ranked := make([]Ranked, 0, len(sums))
	for v, vals := range sums {
		ranked = append(ranked, Ranked{Value: v, Values: vals})
	}
	slices.SortFunc(ranked, func(a, b Ranked) int {
		c := cmp.Compare(b.Values[order], a.Values[order])
		if q.Ascending {
			c = -c
		}
		if c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
	out := Top{Dimension: q.Dim, Metrics: d.Metrics, OrderBy: d.Metrics[order], Distinct: len(ranked)}
	if q.Offset < len(ranked) {
		end := min(len(ranked), q.Offset+q.N)
		out.Values = ranked[q.Offset:end]
		if end < len(ranked) {
			out.Next = end
		}
	}
	if out.Values == nil {
		out.Values = []Ranked{}
	}
	return out, nil
}

// topReaders bounds the partitions one top query reads at once.
const topReaders = 8

// readTopPartition sums the rows of partition p whose values start with
// prefix (a drill-down's outer value and Sep), by value without it.
func (s *Service) readTopPartition(ctx context.Context, d *Definition, p Partition, prefix, dimName string) (map[string][]int64, error) {
	sums := map[string][]int64{}
	read := 0
	var rerr error
	err := s.store.ReadPartition(ctx, d, p, prefix, func(v string, vals []int64) bool {
		if !strings.HasPrefix(v, prefix) {
			return false // past the drill-down's outer value
		}
		if read++; read > MaxTopRows {
			rerr = herald.Errorf(herald.ETooLarge, "dimension %s has more than %d values in one bucket; a top query reads at most that many", dimName, MaxTopRows)
			return false
		}
		v = v[len(prefix):]
		acc, ok := sums[v]
		if !ok {
			acc = make([]int64, len(d.Metrics))
			sums[v] = acc
		}
		for i, x := range vals {
			acc[i] += x
		}
		return true
	})
	if err == nil {
		err = rerr
	}
	return sums, err
}

// String describes a range, for errors and logs.
func (r Range) String() string {
	return fmt.Sprintf("%s buckets from %s to %s", r.Unit, r.From.Format(time.RFC3339), r.To.Format(time.RFC3339))
}
