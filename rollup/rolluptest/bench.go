package rolluptest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/rollup"
)

// BenchQueries measures the two dashboard queries of the targets
// on s: an exact top 10 of 1,000 cities over 30 day buckets, and a series
// of 30 day buckets of a channel's totals, with 18 metrics. It reports the
// latency percentiles of each (p50-ms, p99-ms) over b.N calls.
func BenchQueries(b *testing.B, s rollup.Store) {
	metrics := make([]string, 18)
	for i := range metrics {
		metrics[i] = fmt.Sprint("m", i)
	}
	raw, _ := json.Marshal(map[string]any{"name": "bench", "event": map[string]string{"id": "id", "time": "time"},
		"scopes": [][]string{{"channel"}}, "metrics": metrics, "dimensions": []string{"city"},
		"periods": []map[string]string{{"unit": "day"}, {"unit": "all"}}})
	var d rollup.Definition
	if err := json.Unmarshal(raw, &d); err != nil {
		b.Fatal(err)
	}
	if err := d.Normalize(); err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	d.Account, d.ID, d.Created = fmt.Sprintf("%012d", now.UnixNano()%1e12), uuid.New(), now
	ctx := b.Context()
	if err := s.PutDefinition(ctx, &d); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	first := now.Add(-29 * 24 * time.Hour)
	for day := range 30 {
		batch := rollup.NewBatch(&d)
		at := first.Add(time.Duration(day) * 24 * time.Hour)
		for city := range 1000 {
			deltas := make([]int64, len(metrics))
			for i := range deltas {
				deltas[i] = r.Int64N(100)
			}
			batch.Add(rollup.Event{ID: fmt.Sprintf("%d-%d", day, city), Time: at, Deltas: deltas,
				Values: map[string]string{"channel": "c", "city": fmt.Sprintf("city-%04d", city)}}, now)
		}
		if err := s.Commit(ctx, &d, batch, now); err != nil {
			b.Fatal(err)
		}
	}
	svc := rollup.NewService(rollup.Config{Store: s, DefaultAccount: d.Account, Clock: func() time.Time { return now }})
	days := rollup.Range{Unit: rollup.Day, From: first.Truncate(24 * time.Hour), To: now.Truncate(24 * time.Hour).Add(24 * time.Hour)}
	run := func(name string, query func() error) {
		b.Run(name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if err := query(); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t0))
			}
			slices.Sort(took)
			ms := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))]) / 1e6 }
			b.ReportMetric(ms(0.5), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
		})
	}
	run("Top10Of1000CitiesOver30Days", func() error {
		top, err := svc.Top(ctx, "bench", rollup.TopQuery{Selector: rollup.Selector{Scope: map[string]string{"channel": "c"}, Dim: "city"}, Range: days, N: 10})
		if err == nil && len(top.Values) != 10 {
			err = fmt.Errorf("top: %d values, want 10", len(top.Values))
		}
		return err
	})
	run("Series30Days", func() error {
		series, err := svc.Series(ctx, "bench", rollup.Selector{Scope: map[string]string{"channel": "c"}}, days, nil)
		if err == nil && len(series.Points) != 30 {
			err = fmt.Errorf("series: %d points, want 30", len(series.Points))
		}
		return err
	})
}
