package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heraldmq/herald/client"
	"github.com/heraldmq/herald/load/loadgen"
	"github.com/heraldmq/herald/load/rollups"
	"github.com/heraldmq/herald/load/sqsload"
	"github.com/heraldmq/herald/rollup"
)

// The shape of rollup-queue.
const (
	rollupEventsPerMessage = 10 // as herald bench rollups packs them
	rollupMessagesPerCall  = 10 // one SendMessageBatch
	rollupEventsPerCall    = rollupEventsPerMessage * rollupMessagesPerCall
	rollupChannels         = 20 // Zipf-distributed, as herald bench rollups
	// Flat out, the senders keep the events sent and not yet counted
	// under rollupBacklog of the rate counted so far (at least
	// rollupMinBacklog): enough that every node's consumer always finds a
	// batch waiting, and the queue drains within seconds at the end.
	rollupBacklogPlain = 2 * time.Second
	rollupMinBacklog   = 1000
	rollupPoll         = 100 * time.Millisecond // how often the senders' gate reads the count
	rollupSettlePlain  = time.Minute            // longest wait for the count once the last event is sent
	rollupVisible      = 10 * time.Second       // longest wait, once the total matched, for every other row to match
	rollupProbeEvery   = 200 * time.Millisecond // paced: the most often a freshness probe is sent
)

// rollupDimensions are the dimensions the check compares each value of
// (all of them members of rollups.Generator's events): the rollup's own
// in the plain shape, three of LoopLogic's in that one.
var rollupDimensions = []string{"channel", "country", "city"}

// rollupShape is --rollup-shape: "plain" (rollupDefinition's) or
// "looplogic" (LoopLogic's, rollupLoopLogic). LoopLogic's events cost
// about 100 times the plain shape's to count (Herald's CPU), so its gate
// and its wait for the count are set apart (setRollupShape).
var (
	rollupShape     = "plain"
	rollupMinQueued = int64(rollupMinBacklog)
	rollupSettle    = rollupSettlePlain
	rollupBacklog   = rollupBacklogPlain
)

// setRollupShape checks and sets --rollup-shape.
func setRollupShape(s string) error {
	switch s {
	case "plain":
		rollupDimensions = []string{"channel", "country", "city"}
		rollupMinQueued, rollupSettle, rollupBacklog = rollupMinBacklog, rollupSettlePlain, rollupBacklogPlain
	case "looplogic":
		rollupDimensions = []string{"country", "city", "site"}
		// A commit of a batch of these events takes seconds on a node
		// of 0.15 cores: the backlog must cover that for every node's
		// consumer to find a batch waiting (Little's law), so 10 s of
		// the rate counted so far, at least 400 events.
		rollupMinQueued, rollupSettle, rollupBacklog = 400, 3*time.Minute, 10*time.Second
	default:
		return fmt.Errorf("--rollup-shape %q: want plain or looplogic", s)
	}
	rollupShape = s
	return nil
}

// rollupLoopLogic is LoopLogic's definition (rollups.Definition: 3
// scopes × 5 periods × (1 + 16 dimensions + 2 drill-downs), 18 metrics
// of which viewers counts distinct viewers and first_time first-time
// ones) with the run's own scope first and the metric events, for the
// check: 4 × 5 × 19 = 380 rows an event. Fed by queueURL.
func rollupLoopLogic(queueURL string) json.RawMessage {
	d := rollups.Definition(queueURL, false)
	d["scopes"] = append([][]string{{"run"}}, d["scopes"].([][]string)...)
	d["metrics"] = append(slices.Clone(d["metrics"].([]string)), "events")
	def, _ := json.Marshal(d)
	return def
}

var rollupRuns atomic.Int64 // names each run's rollup and queue apart

// rollupDefinition is the rollup of a run: one scope (the run, a member
// every event of the run carries), the metrics events (1 an event) and
// plays, split by channel, country and city, and cities within countries,
// by day and in all: 1 × 2 × (1 + 3 + 1) = 10 rows an event. Fed by
// queueURL.
func rollupDefinition(queueURL string) json.RawMessage {
	def, _ := json.Marshal(map[string]any{
		"event":      map[string]string{"id": "id", "time": "time"},
		"scopes":     [][]string{{"run"}},
		"metrics":    []string{"events", "plays"},
		"dimensions": rollupDimensions,
		"drilldowns": [][]string{{"country", "city"}},
		"periods":    []map[string]string{{"unit": "day"}, {"unit": "all"}},
		"sources":    map[string]string{"queue": queueURL},
	})
	return def
}

// rollupQueue: a rollup of its own per run (rollupDefinition) fed by an
// SQS queue of its own, defined through every node so that each node
// consumes the queue at once. Each worker sends LoopLogic-shaped events
// (rollups.Generator, every event with its run and events: 1 added),
// rollupEventsPerMessage to a message and rollupMessagesPerCall messages
// to a SendMessageBatch, through its node. A call is one event counted:
// the throughput is the events sent over the time from the first send
// until the rollup's count of the run equals them (read with a totals
// query), so it is the rate the nodes commit at, not the rate the queue
// takes messages. Flat out, the senders are held back while more than
// rollupBacklog of events are sent and not yet counted. The count is then
// checked: the run's totals and every value of every dimension (top
// queries) must equal what the workers sent; each difference is an error,
// as is each failed send (whose events may or may not count, so that only
// the run's total is then checked, within bounds). Latency (paced runs
// only) is freshness: probe events, one at a time and at most one every
// rollupProbeEvery, each timed from its send until a totals query shows
// it; flat out, no latency is measured.
func rollupQueue(ctx context.Context, l load) (outcome, error) {
	run := rollupRuns.Add(1)
	name := fmt.Sprintf("%s-rq%d", l.prefix, run)
	sqsc := make([]*sqsload.Client, len(l.servers))
	for i, s := range l.servers {
		sqsc[i] = sqsload.NewClient(s, sqsload.Options{Connections: l.perServer(), Timeout: 30 * time.Second})
		defer sqsc[i].Close()
	}
	hc, closeIdle := apiClients(l.servers, 4)
	defer closeIdle()
	qurl, err := sqsc[0].CreateQueue(ctx, name, nil)
	if err != nil {
		return outcome{}, fmt.Errorf("rollup-queue: CreateQueue: %w", err)
	}
	defer func() { _ = sqsc[0].DeleteQueue(context.WithoutCancel(ctx), qurl) }()
	def := rollupDefinition(qurl)
	if rollupShape == "looplogic" {
		def = rollupLoopLogic(qurl)
	}
	// A node starts consuming a rollup's queue at once when the rollup is
	// defined through it, and within 5 s otherwise: the same definition
	// through every node (the first creates it, the others replace it
	// with itself) has every node consume from the first event.
	defer func() { _ = hc[0].DeleteRollup(context.WithoutCancel(ctx), name) }()
	for i, c := range hc {
		if _, _, err := c.PutRollup(ctx, name, def); err != nil {
			return outcome{}, fmt.Errorf("rollup-queue: defining the rollup through %s: %w", l.servers[i], err)
		}
	}

	counter := func(i int) (int64, error) {
		ev, _, err := rollupTotal(ctx, hc[i%len(hc)], name, name)
		return ev, err
	}
	var gate *rollupGate
	runCtx, stop := context.WithCancel(ctx) // the senders' gate and the probes
	var background sync.WaitGroup
	defer background.Wait()
	defer stop()
	if l.rate <= 0 {
		gate = newRollupGate()
		background.Go(func() { gate.poll(runCtx, counter) })
	}
	probes := make(chan []time.Duration, 1)
	if l.rate > 0 {
		background.Go(func() { probes <- rollupProbes(runCtx, sqsc, hc, name, qurl) })
	} else {
		probes <- nil
	}

	sent := make([]*rollupCounts, l.concurrency) // each worker's events, of the calls that succeeded
	for w := range sent {
		sent[w] = newRollupCounts()
	}
	var uncertain atomic.Int64 // events of the calls that failed
	var firstErr atomic.Value
	seed := uint64(run) << 16
	gens := make([]*rollups.Generator, l.concurrency)
	for w := range gens {
		gens[w] = rollups.NewGenerator(seed+uint64(w), rollupChannels)
	}
	start := time.Now()
	r := loadgen.Run(ctx, "rollup-queue", loadgen.Config{Concurrency: l.concurrency, Duration: l.duration, Rate: l.rate / rollupEventsPerCall},
		func(opCtx context.Context, worker, seq int) (int, error) {
			if gate != nil {
				if err := gate.acquire(opCtx, rollupEventsPerCall); err != nil {
					return 0, err // the end of the run
				}
			}
			at := time.Now()
			call := newRollupCounts()
			bodies := make([]string, rollupMessagesPerCall)
			for m := range bodies {
				events := make([]map[string]any, rollupEventsPerMessage)
				for i := range events {
					e := gens[worker].Event(fmt.Sprintf("%d-%d-%d-%d", worker, seq, m, i), at)
					e["run"], e["events"] = name, 1
					call.add(e)
					events[i] = e
				}
				b, _ := json.Marshal(events)
				bodies[m] = string(b)
			}
			c := sqsc[worker%len(sqsc)]
			// With the run's context, not the call's: a send cut short at
			// the end of the run might still be taken, and every event
			// must be known sent or failed.
			if _, err := c.Send(ctx, c.SendRequest(qurl, bodies), len(bodies)); err != nil {
				uncertain.Add(call.events)
				if gate != nil {
					gate.release(rollupEventsPerCall)
				}
				firstErr.CompareAndSwap(nil, err.Error())
				return 0, err
			}
			sent[worker].merge(call)
			return rollupEventsPerCall, nil
		})
	want := newRollupCounts()
	for _, s := range sent {
		want.merge(s)
	}
	// Wait until the rollup counted every event sent.
	var counted int64
	end := time.Now()
	polls := 0
	err = checkFor(ctx, rollupSettle, 50*time.Millisecond, func() error {
		n, err := counter(polls)
		polls++
		if err != nil {
			return err
		}
		counted, end = n, time.Now()
		if n < want.events {
			return fmt.Errorf("%d of %d events counted", n, want.events)
		}
		return nil
	})
	if ctx.Err() != nil {
		return outcome{}, ctx.Err()
	}
	stop()
	lat := <-probes

	o := outcome{Calls: int(min(counted, want.events)), Elapsed: end.Sub(start)}
	if len(lat) > 0 {
		res := loadgen.Summarize(loadgen.Result{}, lat)
		o.P50, o.P95, o.P99 = res.P50, res.P95, res.P99
	}
	failed := r.Errors
	if u := uncertain.Load(); u > 0 {
		failed = max(failed, int(u/rollupEventsPerCall))
	}
	problems := 0
	if err != nil {
		// Each event not counted is an error (one at least: the count
		// could not be read).
		problems = int(max(1, want.events-counted))
		o.FirstError = fmt.Sprintf("rollup-queue: not every event counted within %s of the last send: %v", rollupSettle, err)
	} else {
		// The rows of the last commit land in several writes, so the
		// total can be read before its other rows: the counts are
		// compared until they agree, or still differ after
		// rollupVisible.
		var diffs []string
		err := checkFor(ctx, rollupVisible, 50*time.Millisecond, func() error {
			got, err := rollupRead(ctx, hc[0], name, name)
			if err != nil {
				return err
			}
			if diffs = compareRollup(want, uncertain.Load(), got); len(diffs) > 0 {
				return fmt.Errorf("%d differences", len(diffs))
			}
			return nil
		})
		if err != nil && len(diffs) == 0 {
			return outcome{}, fmt.Errorf("rollup-queue: reading the counts: %w", err)
		}
		problems = len(diffs)
		if problems > 0 {
			o.FirstError = fmt.Sprintf("rollup-queue: %d differences from the events sent, %s after the total matched, first: %s", problems, rollupVisible, diffs[0])
		}
	}
	o.Errors = failed + problems
	if o.FirstError == "" && failed > 0 {
		o.FirstError, _ = firstErr.Load().(string)
	}
	return o, nil
}

// rollupCounts is what a set of events adds up to: in all, and by each
// value of each dimension, [events, plays].
type rollupCounts struct {
	events, plays int64
	by            map[string]map[string][2]int64 // dimension → value → counts
	// viewers are the events' distinct viewers (sent); read, the run's
	// all-time viewers and first_time (the LoopLogic shape only).
	viewers           map[string]bool
	distinct, firstTs int64
}

func newRollupCounts() *rollupCounts {
	c := &rollupCounts{by: map[string]map[string][2]int64{}, viewers: map[string]bool{}}
	for _, d := range rollupDimensions {
		c.by[d] = map[string][2]int64{}
	}
	return c
}

// add counts one event (as rollups.Generator makes them: string
// dimension values, int plays).
func (c *rollupCounts) add(e map[string]any) {
	plays, _ := e["plays"].(int)
	if v, ok := e["viewer"].(string); ok {
		c.viewers[v] = true
	}
	c.events++
	c.plays += int64(plays)
	for _, d := range rollupDimensions {
		if v, ok := e[d].(string); ok && v != "" {
			x := c.by[d][v]
			c.by[d][v] = [2]int64{x[0] + 1, x[1] + int64(plays)}
		}
	}
}

func (c *rollupCounts) merge(o *rollupCounts) {
	for v := range o.viewers {
		c.viewers[v] = true
	}
	c.events += o.events
	c.plays += o.plays
	for d, vs := range o.by {
		for v, n := range vs {
			x := c.by[d][v]
			c.by[d][v] = [2]int64{x[0] + n[0], x[1] + n[1]}
		}
	}
}

// compareRollup lists how got differs from want. uncertain events (of
// failed sends) may or may not have counted: then only the total events
// are checked, between want's and want's plus uncertain.
func compareRollup(want *rollupCounts, uncertain int64, got *rollupCounts) []string {
	var diffs []string
	if uncertain > 0 {
		if got.events < want.events || got.events > want.events+uncertain {
			diffs = append(diffs, fmt.Sprintf("events: %d counted, want %d to %d", got.events, want.events, want.events+uncertain))
		}
		return diffs
	}
	if got.events != want.events || got.plays != want.plays {
		diffs = append(diffs, fmt.Sprintf("in all: %d events, %d plays counted; want %d, %d", got.events, got.plays, want.events, want.plays))
	}
	if n := int64(len(want.viewers)); rollupShape == "looplogic" && (got.distinct != n || got.firstTs != n) {
		diffs = append(diffs, fmt.Sprintf("in all: %d viewers, %d first-time viewers counted; want %d distinct viewers", got.distinct, got.firstTs, n))
	}
	for _, d := range rollupDimensions {
		values := slices.Sorted(maps.Keys(want.by[d]))
		for v := range got.by[d] {
			if _, ok := want.by[d][v]; !ok {
				values = append(values, v)
			}
		}
		for _, v := range values {
			if g, w := got.by[d][v], want.by[d][v]; g != w {
				diffs = append(diffs, fmt.Sprintf("%s %s: %d events, %d plays counted; want %d, %d", d, v, g[0], g[1], w[0], w[1]))
			}
		}
	}
	return diffs
}

// rollupTotal reads the all-time events and plays of a run's scope.
func rollupTotal(ctx context.Context, c *client.Client, name, run string) (events, plays int64, err error) {
	raw, err := c.QueryRollup(ctx, name, "totals", url.Values{"scope.run": {run}, "unit": {"all"}, "metrics": {"events,plays"}})
	if err != nil {
		return 0, 0, err
	}
	var t rollup.Totals
	if err := json.Unmarshal(raw, &t); err != nil {
		return 0, 0, err
	}
	if len(t.Values) != 2 {
		return 0, 0, fmt.Errorf("totals: %d values, want 2 (events, plays)", len(t.Values))
	}
	return t.Values[0], t.Values[1], nil
}

// rollupRead reads a run's counts: its totals, and every value of every
// dimension (top queries, paged).
func rollupRead(ctx context.Context, c *client.Client, name, run string) (*rollupCounts, error) {
	got := newRollupCounts()
	var err error
	if got.events, got.plays, err = rollupTotal(ctx, c, name, run); err != nil {
		return nil, err
	}
	if rollupShape == "looplogic" {
		raw, err := c.QueryRollup(ctx, name, "totals", url.Values{"scope.run": {run}, "unit": {"all"}, "metrics": {"viewers,first_time"}})
		if err != nil {
			return nil, err
		}
		var t rollup.Totals
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, err
		}
		if len(t.Values) != 2 {
			return nil, fmt.Errorf("totals: %d values, want 2 (viewers, first_time)", len(t.Values))
		}
		got.distinct, got.firstTs = t.Values[0], t.Values[1]
	}
	for _, d := range rollupDimensions {
		for offset := 0; ; {
			q := url.Values{"scope.run": {run}, "unit": {"all"}, "dimension": {d}, "order_by": {"events"}, "n": {"1000"}}
			if offset > 0 {
				q.Set("offset", strconv.Itoa(offset))
			}
			raw, err := c.QueryRollup(ctx, name, "top", q)
			if err != nil {
				return nil, err
			}
			var top rollup.Top
			if err := json.Unmarshal(raw, &top); err != nil {
				return nil, err
			}
			ev, pl := slices.Index(top.Metrics, "events"), slices.Index(top.Metrics, "plays")
			if ev < 0 || pl < 0 {
				return nil, fmt.Errorf("top %s: metrics %v, want events and plays among them", d, top.Metrics)
			}
			for _, v := range top.Values {
				if len(v.Values) != len(top.Metrics) {
					return nil, fmt.Errorf("top %s: %q has %d values, want %d", d, v.Value, len(v.Values), len(top.Metrics))
				}
				got.by[d][v.Value] = [2]int64{v.Values[ev], v.Values[pl]}
			}
			if top.Next <= offset {
				break
			}
			offset = top.Next
		}
	}
	return got, nil
}

// rollupGate holds flat-out senders back while the events they sent (or
// are sending) and the rollup has not counted yet reach a bound: a
// rollupBacklog of the rate counted so far, at least rollupMinBacklog.
type rollupGate struct {
	mu       sync.Mutex
	reserved int64 // events being sent or sent
	counted  int64 // as last read
	bound    int64
	changed  chan struct{} // closed, and replaced, at every reading
	started  time.Time
}

func newRollupGate() *rollupGate {
	return &rollupGate{bound: rollupMinQueued, changed: make(chan struct{}), started: time.Now()}
}

// acquire reserves n events, waiting while the backlog is full (a sender
// with nothing outstanding always goes), until ctx ends.
func (g *rollupGate) acquire(ctx context.Context, n int64) error {
	for {
		g.mu.Lock()
		if g.reserved == g.counted || g.reserved-g.counted+n <= g.bound {
			g.reserved += n
			g.mu.Unlock()
			return nil
		}
		ch := g.changed
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release gives back n events reserved and not sent.
func (g *rollupGate) release(n int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reserved -= n
	g.wake()
}

// update takes a reading of the count at now.
func (g *rollupGate) update(counted int64, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.counted = counted
	if secs := now.Sub(g.started).Seconds(); secs > 0 {
		g.bound = max(rollupMinQueued, int64(float64(counted)/secs*rollupBacklog.Seconds()))
	}
	g.wake()
}

// wake tells the waiting senders that the backlog changed; g.mu is held.
func (g *rollupGate) wake() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// poll reads the count every rollupPoll, from the nodes in turn, until
// ctx ends; a failed reading is skipped.
func (g *rollupGate) poll(ctx context.Context, count func(node int) (int64, error)) {
	t := time.NewTicker(rollupPoll)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, err := count(i); err == nil {
			g.update(n, time.Now())
		}
	}
}

// rollupProbes measures freshness until ctx ends: one probe event at a
// time, in a scope of its own (run = name-probe, so that the run's counts
// stay the workers'), sent through the nodes in turn and timed until a
// totals query shows it; at most one every rollupProbeEvery.
func rollupProbes(ctx context.Context, sqsc []*sqsload.Client, hc []*client.Client, name, qurl string) []time.Duration {
	var lat []time.Duration
	run := name + "-probe"
	for k := 0; ctx.Err() == nil; k++ {
		next := time.Now().Add(rollupProbeEvery)
		body, _ := json.Marshal(map[string]any{"id": "probe-" + strconv.Itoa(k), "time": time.Now().UTC().Format(time.RFC3339Nano), "run": run, "events": 1})
		c := sqsc[k%len(sqsc)]
		sent := time.Now()
		if _, err := c.Send(ctx, c.SendRequest(qurl, []string{string(body)}), 1); err != nil {
			return lat
		}
		polls := 0
		err := checkFor(ctx, 30*time.Second, 20*time.Millisecond, func() error {
			n, _, err := rollupTotal(ctx, hc[(k+polls)%len(hc)], name, run)
			polls++
			if err == nil && n < int64(k+1) {
				err = fmt.Errorf("probe %d not counted yet", k)
			}
			return err
		})
		if err != nil {
			return lat // the end of the run, or a probe that never came
		}
		lat = append(lat, time.Since(sent))
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(next)):
		}
	}
	return lat
}
