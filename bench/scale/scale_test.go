package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/rollup"
)

func TestIntListAscendsWithinBounds(t *testing.T) {
	cases := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"1,2,3", []int{1, 2, 3}, ""},
		{" 2 , 3 ", []int{2, 3}, ""},
		{"", nil, ""},
		{"0,1", nil, "want whole numbers 1..3"},
		{"1,4", nil, "want whole numbers 1..3"},
		{"2,1", nil, "must ascend"},
		{"1,1", nil, "must ascend"},
		{"x", nil, "want whole numbers"},
	}
	for _, tc := range cases {
		got, err := intList(tc.in, 1, 3)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("intList(%q) error %v, want one saying %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("intList(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("intList(%q) = %v, want %v", tc.in, got, tc.want)
			}
		}
	}
}

func TestShortFormIsCIsRun(t *testing.T) {
	o, err := parseOptions([]string{"--short", "--min-efficiency", "0.7"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.workloads) != 1 || o.workloads[0] != "sqs-mix" || len(o.heraldNodes) != 2 || o.heraldNodes[1] != 2 ||
		len(o.cassandraNodes) != 0 || o.rounds != 3 || o.minEfficiency != 0.7 {
		t.Errorf("short options %+v: want sqs-mix at N = 1, 2, no Cassandra tier, three rounds", o)
	}
	if _, err := parseOptions([]string{"--workloads", "sqs-mix,nope"}); err == nil || !strings.Contains(err.Error(), `unknown workload "nope"`) {
		t.Errorf("an unknown workload: error %v", err)
	}
	if _, err := parseOptions([]string{"--herald-nodes", "", "--cassandra-nodes", "", "--one-node=false"}); err == nil {
		t.Error("no tier at all: want an error")
	}
}

// E(N) = T(N) / (N/N0 · T(N0)), N0 the tier's first step.
func TestEfficienciesAgainstTheFirstStep(t *testing.T) {
	ps := map[string]*point{
		"1": {Nodes: 1, PerS: 100},
		"2": {Nodes: 2, PerS: 180},
		"4": {Nodes: 4, PerS: 320},
	}
	efficiencies(ps)
	for k, want := range map[string]float64{"1": 1, "2": 0.9, "4": 0.8} {
		if got := ps[k].Efficiency; math.Abs(got-want) > 1e-9 {
			t.Errorf("E(%s) = %v, want %v", k, got, want)
		}
	}
	ring := map[string]*point{"2": {Nodes: 2, PerS: 200}, "3": {Nodes: 3, PerS: 270}}
	efficiencies(ring)
	if got := ring["3"].Efficiency; math.Abs(got-0.9) > 1e-9 {
		t.Errorf("E(3) from a first step of 2 = %v, want 0.9 (270 / (1.5 · 200))", got)
	}
}

func TestMedianAndComponents(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median of 3 = %v, want 2", m)
	}
	if m := median([]float64{4, 1}); m != 2.5 {
		t.Errorf("median of 2 = %v, want 2.5", m)
	}
	for group, want := range map[string]string{"herald-3": "herald", "cassandra-2": "cassandra", "redis": "redis",
		"redis-cluster": "redis", "rabbitmq": "rabbitmq", "client": "client"} {
		if got := component(group); got != want {
			t.Errorf("component(%q) = %q, want %q", group, got, want)
		}
	}
}

// checkEfficiency fails a run on E(2) below the floor and on any error.
func TestCheckEfficiency(t *testing.T) {
	results := func(e2 float64, errs int) map[string]*tierResult {
		return map[string]*tierResult{"sqs-mix": {HeraldNodes: map[string]*point{
			"1": {Nodes: 1, PerS: 100, Efficiency: 1},
			"2": {Nodes: 2, PerS: 200 * e2, Efficiency: e2, Errors: errs},
		}}}
	}
	o := options{workloads: []string{"sqs-mix"}, minEfficiency: 0.7}
	if err := checkEfficiency(o, results(0.95, 0)); err != nil {
		t.Errorf("E(2) 0.95: %v", err)
	}
	if err := checkEfficiency(o, results(0.6, 0)); err == nil || !strings.Contains(err.Error(), "E(2) on the Herald tier is 0.60, below 0.70") {
		t.Errorf("E(2) 0.6: error %v", err)
	}
	if err := checkEfficiency(o, results(0.95, 3)); err == nil || !strings.Contains(err.Error(), "3 errors") {
		t.Errorf("errors in a run: error %v", err)
	}
}

// The JSON has the shape BENCHMARKS.md and the issue name, and the plot
// is a PNG.
func TestOutputs(t *testing.T) {
	dir := t.TempDir()
	results := map[string]*tierResult{"sqs-mix": {
		HeraldNodes:    map[string]*point{"1": {Nodes: 1, PerS: 100, P95ms: 9}, "2": {Nodes: 2, PerS: 190}},
		CassandraNodes: map[string]*point{"1": {Nodes: 1, PerS: 300}, "2": {Nodes: 2, PerS: 500}},
	}}
	finish(results)
	o := options{workloads: []string{"sqs-mix"}, jsonPath: filepath.Join(dir, "s.json"), plotPath: filepath.Join(dir, "s.png")}
	if err := writeOutputs(o, results); err != nil {
		t.Fatal(err)
	}
	var got map[string]struct {
		HeraldNodes map[string]struct {
			PerS       float64 `json:"per_s"`
			Efficiency float64 `json:"efficiency"`
			P95        float64 `json:"p95_ms"`
		} `json:"herald_nodes"`
		CassandraNodes map[string]json.RawMessage `json:"cassandra_nodes"`
	}
	b, err := os.ReadFile(o.jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	h := got["sqs-mix"].HeraldNodes
	if h["1"].PerS != 100 || h["1"].P95 != 9 || math.Abs(h["2"].Efficiency-0.95) > 1e-9 || len(got["sqs-mix"].CassandraNodes) != 2 {
		t.Errorf("JSON %s", b)
	}
	png, err := os.ReadFile(o.plotPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("the plot is not a PNG (%d bytes)", len(png))
	}
	if err := drawPlot(filepath.Join(dir, "s.gif"), o.workloads, results); err == nil {
		t.Error("a .gif plot: want an error")
	}
}

// checkFor polls until its function succeeds, and gives up at its limit
// with the last error.
func TestCheckForPolls(t *testing.T) {
	n := 0
	err := checkFor(t.Context(), time.Second, time.Millisecond, func() error {
		if n++; n < 3 {
			return os.ErrNotExist
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Errorf("checkFor: %v after %d calls, want success on the third", err, n)
	}
	err = checkFor(t.Context(), 5*time.Millisecond, time.Millisecond, func() error { return os.ErrNotExist })
	if err == nil || !strings.Contains(err.Error(), "not ready within") {
		t.Errorf("checkFor past its limit: %v", err)
	}
}

func TestBitset(t *testing.T) {
	var b bitset
	for _, n := range []int{3, 64, 200, 3} {
		b.set(n)
	}
	if b.set(64) || !b.set(65) {
		t.Error("set: 64 again reported new, or 65 not new")
	}
	var got []int
	b.each(func(n int) { got = append(got, n) })
	if !slices.Equal(got, []int{3, 64, 65, 200}) || !b.has(200) || b.has(201) || b.has(1<<20) {
		t.Errorf("members %v", got)
	}
}

// Two workers of three puts each over wsPatterns patterns: every
// connection is owed the stored messages of its pattern, and a delivery
// missing, repeated, of another pattern, foreign or never put counts
// against the run; one of a failed put (perhaps stored) does not.
func TestFanoutPlanTally(t *testing.T) {
	states := [][]msgState{{msgSent, msgSent, msgFailed}, {msgSent, msgSent, msgSent}}
	plan := newFanoutPlan(states)
	// Worker 0's messages are patterns 0, 1, 2 and numbers 0, 2, 4;
	// worker 1's patterns 1, 2, 3 and numbers 1, 3, 5.
	if k, st, ok := plan.message(4); !ok || k != 2 || st != msgFailed {
		t.Fatalf("message 4: pattern %d, state %d, %v", k, st, ok)
	}
	if _, _, ok := plan.message(6); ok {
		t.Fatal("message 6 was never put")
	}
	if plan.failed() != 1 {
		t.Errorf("failed %d, want 1", plan.failed())
	}
	sent := time.Now()
	got := func(ns ...int) *wsReceived {
		r := &wsReceived{}
		for _, n := range ns {
			r.add(n, sent, sent.Add(time.Millisecond))
		}
		return r
	}
	// Pattern 2 is owed messages 3 (worker 1) and not 4 (failed).
	perfect := plan.tally(2, got(3, 4))
	if perfect != (fanoutTally{expected: 1, delivered: 1, uncertain: 1}) || perfect.problems() != 0 {
		t.Errorf("pattern 2, all received: %+v", perfect)
	}
	// Pattern 1 is owed 1 and 2: 2 missing, 1 twice, 5 (pattern 3's),
	// 99 (never put) and a foreign frame.
	bad := plan.tally(1, got(1, 1, 5, 99, -1))
	want := fanoutTally{expected: 2, delivered: 1, missing: 1, duplicates: 1, unexpected: 3}
	if bad != want || bad.problems() != 5 {
		t.Errorf("pattern 1: %+v, want %+v", bad, want)
	}
	if sum := perfect.add(bad); sum.expected != 3 || sum.delivered != 2 || sum.String() != "1 of 3 deliveries missing, 1 duplicates, 3 unexpected" {
		t.Errorf("sum %+v: %s", sum, sum)
	}
	if r := got(0, 7); len(r.latencies) != 2 || r.latencies[0] != time.Millisecond || !r.last.Equal(sent.Add(time.Millisecond)) {
		t.Errorf("latencies %v, last %v", r.latencies, r.last)
	}
	// Every pattern's connections are spread over the nodes.
	for nodes := 1; nodes <= 4; nodes++ {
		on := map[[2]int]int{}
		for i := range wsConnections {
			on[[2]int{i % wsPatterns, (i / wsPatterns) % nodes}]++
		}
		for k := range wsPatterns {
			for n := range nodes {
				if c := on[[2]int{k, n}]; c < wsFanoutRatio/nodes {
					t.Errorf("%d nodes: pattern %d has %d connections on node %d", nodes, k, c, n)
				}
			}
		}
	}
}

func TestCompareRollup(t *testing.T) {
	events := []map[string]any{
		{"channel": "c1", "country": "cc1", "city": "city1", "plays": 2},
		{"channel": "c1", "country": "cc2", "city": "city1", "plays": 0},
		{"channel": "c2", "country": "cc1", "city": "city2", "plays": 1},
	}
	want, half := newRollupCounts(), newRollupCounts()
	for i, e := range events {
		want.add(e)
		if i < 2 {
			half.add(e)
		}
	}
	if want.events != 3 || want.plays != 3 || want.by["city"]["city1"] != [2]int64{2, 2} || want.by["country"]["cc1"] != [2]int64{2, 3} {
		t.Fatalf("counts %+v", want)
	}
	got := newRollupCounts()
	got.merge(half)
	got.add(events[2])
	if d := compareRollup(want, 0, got); len(d) != 0 {
		t.Errorf("equal counts: %v", d)
	}
	got.by["city"]["city2"] = [2]int64{1, 2}
	got.by["city"]["city9"] = [2]int64{1, 0}
	d := compareRollup(want, 0, got)
	if len(d) != 2 || !strings.Contains(d[0], "city city2: 1 events, 2 plays counted; want 1, 1") || !strings.Contains(d[1], "city9") {
		t.Errorf("a wrong and an extra city: %v", d)
	}
	if d := compareRollup(want, 0, half); len(d) == 0 || !strings.Contains(d[0], "in all: 2 events") {
		t.Errorf("an event missing: %v", d)
	}
	// With a failed send, only the total is checked, within bounds.
	if d := compareRollup(half, 100, want); len(d) != 0 {
		t.Errorf("events of a failed send counted: %v", d)
	}
	if d := compareRollup(want, 100, half); len(d) != 1 || !strings.Contains(d[0], "want 3 to 103") {
		t.Errorf("fewer than sent, with a failed send: %v", d)
	}
}

// The gate lets senders go while the backlog is under its bound (and
// always a sender when nothing is outstanding), and holds them until a
// reading makes room or their run ends.
func TestRollupGate(t *testing.T) {
	g := newRollupGate()
	ctx := t.Context()
	if err := g.acquire(ctx, 2*rollupMinBacklog); err != nil {
		t.Fatalf("nothing outstanding: %v", err)
	}
	done, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := g.acquire(done, 1); err == nil {
		t.Fatal("a full backlog let a sender go")
	}
	went := make(chan error, 1)
	go func() { went <- g.acquire(ctx, 100) }()
	g.update(rollupMinBacklog+50, g.started.Add(time.Second)) // 1,050 counted in 1 s: room for 2,100
	if err := <-went; err != nil {
		t.Fatal(err)
	}
	if g.bound != 2*(rollupMinBacklog+50) || g.reserved != 2*rollupMinBacklog+100 {
		t.Errorf("bound %d, reserved %d", g.bound, g.reserved)
	}
	g.release(100)
	if g.reserved != 2*rollupMinBacklog {
		t.Errorf("reserved %d after a release", g.reserved)
	}
}

// The rollup's definition is one Herald accepts: the dimensions the check
// reads, fed by the queue.
func TestRollupDefinition(t *testing.T) {
	var def rollup.Definition
	if err := json.Unmarshal(rollupDefinition("http://127.0.0.1:1/000000000000/q"), &def); err != nil {
		t.Fatal(err)
	}
	def.Name = "scale1-rq1"
	if err := def.Normalize(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(def.Dimensions, rollupDimensions) || def.Sources.Queue == "" {
		t.Errorf("definition %+v", def)
	}
}
