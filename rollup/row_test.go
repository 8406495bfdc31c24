package rollup

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func rowsOf(d *Definition, e Event, now time.Time) []Row {
	var out []Row
	d.Expand(e, now, func(r Row) { out = append(out, r) })
	return out
}

func TestExpand(t *testing.T) {
	d := parseDef(t, videoJSON)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	full := parseOne(t, d, `{"id": "e", "time": "2026-12-01T10:30:00Z", "channel": "c", "video": "v",
		"country": "FR", "city": "Paris", "site": "s.example", "plays": 1}`)
	rows := rowsOf(d, full, now)
	if len(rows) != 2*3*5 {
		t.Fatalf("%d rows, want 30 (2 scopes × 3 periods × (total + 3 dimensions + 1 drill-down))", len(rows))
	}
	hour := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC).Unix()
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Unix()
	for _, want := range []Row{
		{Scope: 0, Key: "c", Unit: Hour, Bucket: hour, Dim: Total},
		{Scope: 1, Key: "c" + Sep + "v", Unit: Day, Bucket: day, Dim: 1, Value: "Paris"},
		{Scope: 1, Key: "c" + Sep + "v", Unit: All, Bucket: 0, Dim: 3, Value: "Paris" + Sep + "s.example"},
		{Scope: 0, Key: "c", Unit: All, Dim: 2, Value: "s.example"},
	} {
		if !slices.Contains(rows, want) {
			t.Errorf("no row %+v in %+v", want, rows)
		}
	}
	// Without a video the second scope is skipped; without a site, the
	// site dimension and the drill-down.
	part := parseOne(t, d, `{"id": "p", "time": "2026-12-01T10:30:00Z", "channel": "c", "city": "Paris"}`)
	if rows := rowsOf(d, part, now); len(rows) != 1*3*2 {
		t.Errorf("%d rows, want 6 (1 scope × 3 periods × (total + city)): %+v", len(rows), rows)
	}
	// An event whose hour bucket is past its retention (35 days) still
	// counts in its day and all-time buckets.
	old := full
	old.Time = now.Add(-40 * 24 * time.Hour)
	var n int
	if expired := d.Expand(old, now, func(Row) { n++ }); expired != 2 || n != 2*2*5 {
		t.Errorf("old event: %d rows, %d expired; want 20 rows, 2 expired (hour, for each scope)", n, expired)
	}
}

// TestBatchSums: a batch's sums equal the sums of the events' deltas, row
// by row, computed the slow way (one Expand per event, summed in a map of
// strings), and an event repeated within the batch counts once.
func TestBatchSums(t *testing.T) {
	d := parseDef(t, videoJSON)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(3, 4))
	pick := func(prefix string, n int) string { return fmt.Sprintf("%s%d", prefix, r.IntN(n)) }
	b := NewBatch(d)
	want := map[string]int64{}
	for i := range 5000 {
		e := Event{
			ID:     fmt.Sprint(i),
			Time:   now.Add(-time.Duration(r.IntN(72*3600)) * time.Second),
			Values: map[string]string{"channel": pick("c", 3), "video": pick("v", 10), "country": pick("k", 5), "city": pick("city", 20)},
			Deltas: []int64{int64(r.IntN(3)), int64(r.IntN(3) - 1)},
		}
		if r.IntN(2) == 0 {
			e.Values["site"] = pick("s", 50)
		}
		if !b.Add(e, now) {
			t.Fatalf("event %s refused", e.ID)
		}
		if i%10 == 0 && b.Add(e, now) {
			t.Fatalf("event %s counted twice", e.ID)
		}
		d.Expand(e, now, func(row Row) {
			for m, x := range e.Deltas {
				want[fmt.Sprintf("%+v/%d", row, m)] += x
			}
		})
	}
	got := map[string]int64{}
	for row, sums := range b.Rows() {
		for m, x := range sums {
			if x != 0 {
				got[fmt.Sprintf("%+v/%d", row, m)] = x
			}
		}
	}
	for k, x := range want {
		if x == 0 {
			delete(want, k)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d nonzero sums, want %d", len(got), len(want))
	}
	for k, x := range want {
		if got[k] != x {
			t.Fatalf("sum %s = %d, want %d", k, got[k], x)
		}
	}
	if b.Events != 5000 || b.Duplicates != 500 {
		t.Errorf("Events %d, Duplicates %d; want 5000, 500", b.Events, b.Duplicates)
	}
	if b.Len() >= 5000*30 {
		t.Errorf("%d rows for 5000 events: nothing combined", b.Len())
	}
}
