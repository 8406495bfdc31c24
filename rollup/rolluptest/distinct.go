package rolluptest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/heraldmq/herald/rollup"
)

// distinctDef counts plays, visitors (distinct viewers per bucket) and new
// visitors (viewers first seen, over all time) per channel and city.
const distinctDef = `{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]],
	"metrics": ["plays", "visitors", "new_visitors"], "dimensions": ["city"],
	"distinct": [{"metric": "visitors", "of": "viewer", "kind": "distinct"},
		{"metric": "new_visitors", "of": "viewer", "kind": "first_seen"}],
	"periods": [{"unit": "hour"}, {"unit": "day"}, {"unit": "all"}]}`

// distinctEvent is one event of the distinct cases.
type distinctEvent struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Channel string    `json:"channel"`
	City    string    `json:"city,omitempty"`
	Viewer  string    `json:"viewer,omitempty"`
	Plays   int64     `json:"plays"`
}

// distinctRows is what a brute force over events says each row of
// distinctDef holds: every event counted once by ID; visitors the number
// of viewers among the row's events; new visitors the number of viewers
// whose earliest event of the row's series falls in the row's bucket.
func distinctRows(events []distinctEvent) map[rollup.Row][]int64 {
	byID := map[string]distinctEvent{}
	for _, ev := range events {
		byID[ev.ID] = ev
	}
	type series struct {
		channel, city string // city "" is the total
	}
	rowOf := func(s series, u rollup.Unit, at time.Time) rollup.Row {
		r := rollup.Row{Key: s.channel, Unit: u, Dim: rollup.Total}
		if u != rollup.All {
			r.Bucket = u.Bucket(at, time.UTC).Unix()
		}
		if s.city != "" {
			r.Dim, r.Value = 0, s.city
		}
		return r
	}
	units := []rollup.Unit{rollup.Hour, rollup.Day, rollup.All}
	rows := map[rollup.Row][]int64{}
	seen := map[rollup.Row]map[string]bool{}
	first := map[series]map[string]time.Time{}
	for _, ev := range byID {
		ss := []series{{ev.Channel, ""}}
		if ev.City != "" {
			ss = append(ss, series{ev.Channel, ev.City})
		}
		for _, s := range ss {
			for _, u := range units {
				r := rowOf(s, u, ev.Time)
				if rows[r] == nil {
					rows[r] = make([]int64, 3)
					seen[r] = map[string]bool{}
				}
				rows[r][0] += ev.Plays
				if ev.Viewer != "" && !seen[r][ev.Viewer] {
					seen[r][ev.Viewer] = true
					rows[r][1]++
				}
			}
			if ev.Viewer != "" {
				if first[s] == nil {
					first[s] = map[string]time.Time{}
				}
				if t, ok := first[s][ev.Viewer]; !ok || ev.Time.Before(t) {
					first[s][ev.Viewer] = ev.Time
				}
			}
		}
	}
	for s, viewers := range first {
		for _, at := range viewers {
			for _, u := range units {
				rows[rowOf(s, u, at)][2]++
			}
		}
	}
	return rows
}

// wantDistinctRows checks every row the brute force names on store s.
func (e *env) wantDistinctRows(s rollup.Store, d *rollup.Definition, want map[rollup.Row][]int64) {
	e.t.Helper()
	rows := make([]rollup.Row, 0, len(want))
	for r := range want {
		rows = append(rows, r)
	}
	got, err := s.ReadRows(e.ctx, d, rows)
	if err != nil {
		e.t.Fatalf("ReadRows: %v", err)
	}
	bad := 0
	for i, r := range rows {
		if !slices.Equal(got[i], want[r]) {
			if bad++; bad <= 5 {
				e.t.Errorf("row %+v = %v; the brute force says %v", r, got[i], want[r])
			}
		}
	}
	if bad > 5 {
		e.t.Errorf("and %d more rows differ, of %d", bad-5, len(rows))
	}
}

// testDistinctCounts: distinct and first_seen metrics count each viewer
// once per bucket and once ever, through a redelivered batch and a first
// event that arrives after a later one of the same viewer (the count
// moves to the earlier event's buckets).
func testDistinctCounts(e *env) {
	svc := e.service(e.s)
	if _, _, err := svc.Put(e.ctx, "visits", []byte(distinctDef)); err != nil {
		e.t.Fatalf("Put: %v", err)
	}
	d, err := e.s.GetDefinition(e.ctx, e.account, "visits")
	if err != nil {
		e.t.Fatal(err)
	}
	at := func(h int) time.Time {
		return now.Add(time.Duration(-h) * time.Hour).Truncate(time.Hour).Add(time.Minute)
	}
	var sent []distinctEvent
	send := func(evs ...distinctEvent) {
		e.t.Helper()
		body, _ := json.Marshal(evs)
		if _, err := svc.Ingest(e.ctx, "visits", body); err != nil {
			e.t.Fatalf("Ingest: %v", err)
		}
		sent = append(sent, evs...)
	}
	send(distinctEvent{ID: "1", Time: at(2), Channel: "c", City: "Paris", Viewer: "ann", Plays: 1},
		distinctEvent{ID: "2", Time: at(2), Channel: "c", City: "Lyon", Viewer: "ann", Plays: 1},
		distinctEvent{ID: "3", Time: at(2), Channel: "c", City: "Paris", Viewer: "bob", Plays: 1})
	send(distinctEvent{ID: "1", Time: at(2), Channel: "c", City: "Paris", Viewer: "ann", Plays: 1}, // redelivered
		distinctEvent{ID: "4", Time: at(1), Channel: "c", City: "Paris", Viewer: "bob", Plays: 1})
	hour := func(h int) rollup.Row {
		return rollup.Row{Key: "c", Unit: rollup.Hour, Bucket: at(h).Truncate(time.Hour).Unix(), Dim: rollup.Total}
	}
	e.wantRow(d, hour(2), []int64{3, 2, 2})
	e.wantRow(d, hour(1), []int64{1, 1, 0}) // bob again: a visitor of the hour, not new
	// Bob's first event arrives last: his new visit moves three hours back.
	send(distinctEvent{ID: "5", Time: at(3), Channel: "c", City: "Nice", Viewer: "bob", Plays: 1})
	e.wantRow(d, hour(3), []int64{1, 1, 1})
	e.wantRow(d, hour(2), []int64{3, 2, 1})
	e.wantDistinctRows(e.s, d, distinctRows(sent))
}

// testPairDistinctExact: writers on two nodes send events of a few
// hundred viewers, each event in two writers' batches and in no time
// order, and every row's distinct and first_seen counts equal a brute
// force over the events.
func testPairDistinctExact(e *env, other rollup.Store) {
	const (
		writers = 8 // half on each node
		batches = 10
		size    = 40
		viewers = 300
	)
	nodes := []*rollup.Service{e.service(e.s), e.service(other)}
	if _, _, err := nodes[0].Put(e.ctx, "visits", []byte(distinctDef)); err != nil {
		e.t.Fatalf("Put: %v", err)
	}
	d, err := e.s.GetDefinition(e.ctx, e.account, "visits")
	if err != nil {
		e.t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// Writer w's batch k: half its own new events, half those of writer
	// w-1's batch k (a redelivery racing the first send).
	own := make([][][]distinctEvent, writers)
	var all []distinctEvent
	for w := range writers {
		own[w] = make([][]distinctEvent, batches)
		for k := range batches {
			for i := range size / 2 {
				ev := distinctEvent{ID: fmt.Sprintf("w%d-b%d-%d", w, k, i),
					Time:    now.Add(-time.Duration(rng.IntN(5*60)) * time.Minute),
					Channel: [...]string{"news", "sport"}[rng.IntN(2)], Plays: int64(rng.IntN(3) + 1)}
				if rng.IntN(10) > 0 {
					ev.City = [...]string{"Paris", "Lyon", "Nice"}[rng.IntN(3)]
				}
				if rng.IntN(20) > 0 {
					ev.Viewer = fmt.Sprintf("v%d", rng.IntN(viewers))
				}
				own[w][k] = append(own[w][k], ev)
				all = append(all, ev)
			}
		}
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures []error
		start    = make(chan struct{})
	)
	for w := range writers {
		wg.Go(func() {
			<-start
			for k := range batches {
				evs := slices.Concat(own[w][k], own[(w+writers-1)%writers][k])
				body, _ := json.Marshal(evs)
				if _, err := nodes[w%2].Ingest(e.ctx, "visits", body); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Errorf("writer %d batch %d: %w", w, k, err))
					mu.Unlock()
				}
			}
		})
	}
	close(start)
	wg.Wait()
	for _, err := range failures {
		e.t.Error(err)
	}
	want := distinctRows(all)
	e.wantDistinctRows(e.s, d, want)
	e.wantDistinctRows(other, d, want)
}
