package rolluptest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/heraldmq/herald/rollup"
)

// testPairOverlappingIngest: writers on two nodes post batches whose
// events are also in other writers' batches, as redeliveries and retried
// sends make them. No Ingest fails for having met events
// another writer committed first (they are duplicates, dropped; the rest
// commits), every event counts once, and each writer's accepted and
// duplicate events add up to what it sent.
func testPairOverlappingIngest(e *env, other rollup.Store) {
	const (
		writers = 16 // half on each node
		batches = 12 // per writer
		parts   = 6  // writers whose events one batch holds
		size    = 48 // events per batch
	)
	nodes := []*rollup.Service{e.service(e.s), e.service(other)}
	def := `{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]], "metrics": ["plays"],
		"dimensions": ["city"], "periods": [{"unit": "hour"}, {"unit": "all"}]}`
	if _, _, err := nodes[0].Put(e.ctx, "overlap", []byte(def)); err != nil {
		e.t.Fatalf("Put: %v", err)
	}
	// Writer w's batch k holds size/parts events of its own and as many
	// of each of the next parts-1 writers' batch k: every event is sent by
	// parts writers on both nodes at about the same moment, and a batch
	// can meet events committed by several others, one after another.
	plays := func(id string) int64 { return int64(len(id)%5 + 1) }
	eventsOf := func(w, k int) []map[string]any {
		var out []map[string]any
		for i := range size {
			owner := (w + i/(size/parts)) % writers
			id := fmt.Sprintf("w%d-b%d-e%d", owner, k, i%(size/parts))
			city := [...]string{"Paris", "Lyon", "Nice"}[i%3]
			out = append(out, map[string]any{"id": id, "time": now.Add(-time.Duration(k) * time.Minute).Format(time.RFC3339),
				"channel": "c", "city": city, "plays": plays(id)})
		}
		rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	var (
		want     int64
		distinct = map[string]bool{}
	)
	for w := range writers {
		for k := range batches {
			for _, ev := range eventsOf(w, k) {
				id := ev["id"].(string)
				if !distinct[id] {
					distinct[id] = true
					want += plays(id)
				}
			}
		}
	}
	var (
		wg             sync.WaitGroup
		mu             sync.Mutex
		accepted, dups int
		failures       []error
		start          = make(chan struct{})
	)
	for w := range writers {
		wg.Go(func() {
			<-start
			for k := range batches {
				body, _ := json.Marshal(eventsOf(w, k))
				res, err := nodes[w%2].Ingest(e.ctx, "overlap", body)
				mu.Lock()
				if err != nil {
					failures = append(failures, fmt.Errorf("writer %d batch %d: %w", w, k, err))
				} else if res.Accepted+res.Duplicates != size {
					failures = append(failures, fmt.Errorf("writer %d batch %d: accepted %d + duplicates %d, want %d", w, k, res.Accepted, res.Duplicates, size))
				}
				accepted += res.Accepted
				dups += res.Duplicates
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	for _, err := range failures {
		e.t.Error(err)
	}
	if accepted != len(distinct) || dups != writers*batches*size-len(distinct) {
		e.t.Errorf("accepted %d and duplicates %d; want %d and %d", accepted, dups, len(distinct), writers*batches*size-len(distinct))
	}
	for i, n := range nodes {
		got, err := n.Totals(e.ctx, "overlap", rollup.Selector{Scope: map[string]string{"channel": "c"}}, rollup.Range{Unit: rollup.All}, []string{"plays"})
		if err != nil || len(got.Values) != 1 || got.Values[0] != want {
			e.t.Errorf("node %d: all-time plays %+v, %v; want %d", i, got, err, want)
		}
	}
}
