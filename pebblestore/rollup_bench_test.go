package pebblestore

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/rollup"
	"github.com/heraldmq/herald/rollup/rolluptest"
)

// BenchmarkRollupCommit commits batches of 100 LoopLogic-shaped events (3
// scopes × 2 periods × 6 dimensions + a drill-down, Zipf values) to one
// rollup. Reported per event.
func BenchmarkRollupCommit(b *testing.B) {
	db, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	st := db.Rollups()
	var d rollup.Definition
	_ = json.Unmarshal([]byte(`{"name": "bench", "event": {"id": "id", "time": "time"},
		"scopes": [["channel"], ["channel", "video"], ["channel", "video", "campaign"]],
		"metrics": ["views", "plays", "completions", "seconds"],
		"dimensions": ["country", "city", "site", "browser", "os", "device"], "drilldowns": [["city", "site"]],
		"periods": [{"unit": "day"}, {"unit": "all"}]}`), &d)
	if err := d.Normalize(); err != nil {
		b.Fatal(err)
	}
	d.Account, d.ID = "000000000000", uuid.New()
	r := rand.New(rand.NewPCG(1, 2))
	z := func(n uint64) *rand.Zipf { return rand.NewZipf(r, 1.2, 1, n) }
	ch, vid, city, site := z(20), z(200), z(1000), z(500)
	now := time.Now()
	n := 0
	b.ResetTimer()
	for b.Loop() {
		batch := rollup.NewBatch(&d)
		for range 100 {
			n++
			batch.Add(rollup.Event{ID: fmt.Sprint(n), Time: now, Deltas: []int64{1, 1, 0, 30}, Values: map[string]string{
				"channel": fmt.Sprint("c", ch.Uint64()), "video": fmt.Sprint("v", vid.Uint64()), "campaign": fmt.Sprint("k", r.IntN(5)),
				"country": fmt.Sprint("cc", r.IntN(60)), "city": fmt.Sprint("city", city.Uint64()), "site": fmt.Sprint("s", site.Uint64()),
				"browser": fmt.Sprint("b", r.IntN(5)), "os": fmt.Sprint("o", r.IntN(4)), "device": fmt.Sprint("d", r.IntN(3))}}, now)
		}
		if err := st.Commit(b.Context(), &d, batch, now); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
}

// BenchmarkRollupQueries: top 10 of 1,000 cities over 30 days and a
// 30-day series (rolluptest.BenchQueries).
func BenchmarkRollupQueries(b *testing.B) {
	db, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rolluptest.BenchQueries(b, db.Rollups())
}
