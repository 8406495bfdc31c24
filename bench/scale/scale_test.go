package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
