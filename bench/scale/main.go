// Command scale measures how Herald's capacity grows with nodes, on the
// miniature cluster of scripts/cluster: each workload at Herald nodes
// N = 1, 2, 3, 4 (every node capped at --herald-cores, the Cassandra tier
// uncapped so that it never saturates), then at Cassandra nodes M = 1, 2, 3
// (each capped at --cassandra-cores, the Herald tier uncapped), and once
// more on the largest ring at replication factor 3. Per step it reports
// the throughput flat out, the efficiency E(N) = T(N) / (N·T(1)), the CPU
// each component spent per call (read from the tiers' cgroups) and the
// latencies at a paced half of that throughput; --json writes them,
// --plot draws them.
//
//	go run ./bench/scale --json scale.json --plot scale.png
//	go run ./bench/scale --short --min-efficiency 0.7     (CI: N = 1, 2, sqs-mix)
//
// It needs root (cgroups) and takes the load lock /tmp/herald-load.lock,
// so no other load shares the cores. bench/README.md and BENCHMARKS.md
// ("Scale-out") describe the runs and their figures.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// options is what a run is told.
type options struct {
	workloads      []string
	heraldNodes    []int
	cassandraNodes []int
	heraldCores    float64 // each Herald node's cap on the Herald tier
	cassandraCores float64 // each Cassandra node's cap on the Cassandra tier
	// On the Cassandra tier: Herald nodes, each capped at cassTierHeraldCores (0: none).
	cassTierHerald      int
	cassTierHeraldCores float64
	rf3                 bool
	oneNode             bool // also one node with nothing capped
	warmup, duration    time.Duration
	perNode             int // concurrent workers per Herald node
	rounds              int // flat-out runs per step and workload; the median counts
	clusterWarmup       time.Duration
	joinWarmup          time.Duration // the same after a node joins the ring
	pprofDir            string        // CPU profiles of the first node, one a step and workload
	fromJSON            string        // report a saved run instead of measuring
	jsonPath, plotPath  string
	minEfficiency       float64 // fail when E(2) of the Herald tier is below it
	redisCluster        bool
	heraldArgs          string
	keep                bool
}

func parseOptions(args []string) (options, error) {
	var (
		o                    options
		work, hNodes, cNodes string
		short                bool
	)
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	fs.StringVar(&work, "workloads", "sqs-mix,sqs-hot,sqs-hot-16,sns-fanout,cache,ws-fanout,rollup-queue", "workloads to run, comma-separated: "+workloadNames())
	fs.StringVar(&hNodes, "herald-nodes", "1,2,3,4", "Herald-tier steps (Herald nodes); empty skips the tier")
	fs.StringVar(&cNodes, "cassandra-nodes", "1,2,3", "Cassandra-tier steps (ring nodes, 1..3); empty skips the tier")
	fs.Float64Var(&o.heraldCores, "herald-cores", 0.15, "each Herald node's CPU cap on the Herald tier, in cores")
	fs.Float64Var(&o.cassandraCores, "cassandra-cores", 0.2, "each Cassandra node's CPU cap on the Cassandra tier, in cores")
	fs.IntVar(&o.cassTierHerald, "cassandra-tier-herald-nodes", 2, "Herald nodes on the Cassandra tier")
	fs.Float64Var(&o.cassTierHeraldCores, "cassandra-tier-herald-cores", 0, "their cap each, in cores (0: none)")
	fs.BoolVar(&o.oneNode, "one-node", true, "also measure one Herald node with no tier capped (its peak, and p95 at half of it)")
	fs.BoolVar(&o.rf3, "rf3", true, "on the Cassandra tier, run the largest ring again at replication factor 3")
	fs.DurationVar(&o.warmup, "warmup", 4*time.Second, "warm-up before each measured run")
	fs.DurationVar(&o.clusterWarmup, "cluster-warmup", time.Minute, "before each tier: the workloads through two uncapped nodes, the ring uncapped, for this long in all (a new JVM compiles first)")
	fs.DurationVar(&o.joinWarmup, "join-warmup", 10*time.Minute, "the same after a Cassandra node joins the ring (three minutes left a three-node ring at a third to half of its throughput ten minutes later: its JVMs still compiling; BENCHMARKS.md, \"Warmed longer\")")
	fs.DurationVar(&o.duration, "duration", 12*time.Second, "each measured run (flat out, then paced at half)")
	fs.IntVar(&o.perNode, "concurrency-per-node", 16, "concurrent workers per Herald node")
	fs.IntVar(&o.rounds, "rounds", 2, "flat-out runs per step and workload (their median counts; this machine's runs vary by 20% and more)")
	fs.StringVar(&o.pprofDir, "pprof-dir", "", "write a CPU profile of the first Herald node over each step's first flat-out round to this directory (WORKLOAD-TIER-N.pprof)")
	fs.StringVar(&o.fromJSON, "from-json", "", "measure nothing: print the tables of a saved --json file and draw its --plot")
	fs.StringVar(&o.jsonPath, "json", "", "write the results as JSON to this file")
	fs.StringVar(&o.plotPath, "plot", "", "draw throughput against nodes to this file (.png or .svg)")
	fs.Float64Var(&o.minEfficiency, "min-efficiency", 0, "exit 1 when a workload's E(2) on the Herald tier is below this (0: never)")
	fs.BoolVar(&o.redisCluster, "redis-cluster", false, "use the cluster's 3-node Redis Cluster instead of its single Redis")
	fs.StringVar(&o.heraldArgs, "herald-args", "", "more flags of every Herald node's serve, space-separated (e.g. \"--cassandra-rollup-commit each\")")
	fs.BoolVar(&o.keep, "keep", false, "keep the run's keyspaces and Redis keys afterwards")
	fs.BoolVar(&short, "short", false, "the CI form: sqs-mix at N = 1, 2 on the Herald tier only, 3 s warm-up, three rounds of 6 s")
	shape := fs.String("rollup-shape", "plain", "rollup-queue's rollup: plain (1 scope, 10 rows an event) or looplogic (LoopLogic's 3 scopes, 16 dimensions, 2 drill-downs, 5 periods and 18 metrics with distinct viewers and first-time viewers, plus the run's scope: 380 rows an event)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if err := setRollupShape(*shape); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if short {
		work, hNodes, cNodes, o.oneNode = "sqs-mix", "1,2", "", false
		// Three short rounds, not one long one: their median keeps one
		// disturbed round (a compaction, a neighbour's burst) from deciding
		// E(2). Six short runs of one round here gave E(2) from 0.80 to 1.43.
		o.warmup, o.duration, o.rounds, o.clusterWarmup = 3*time.Second, 6*time.Second, 3, 20*time.Second
	}
	o.workloads = splitList(work)
	for _, w := range o.workloads {
		if _, ok := workloadByName(w); !ok {
			return o, fmt.Errorf("unknown workload %q (%s)", w, workloadNames())
		}
	}
	var err error
	if o.heraldNodes, err = intList(hNodes, 1, 16); err != nil {
		return o, fmt.Errorf("--herald-nodes: %w", err)
	}
	if o.cassandraNodes, err = intList(cNodes, 1, 3); err != nil {
		return o, fmt.Errorf("--cassandra-nodes: %w", err)
	}
	if len(o.heraldNodes) == 0 && len(o.cassandraNodes) == 0 && !o.oneNode {
		return o, errors.New("nothing to run: both tiers are empty and --one-node=false")
	}
	if o.perNode < 1 || o.duration <= 0 {
		return o, errors.New("--concurrency-per-node and --duration must be positive")
	}
	return o, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// intList parses "1,2,3": ascending, each in lo..hi.
func intList(s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < lo || n > hi {
			return nil, fmt.Errorf("%q: want whole numbers %d..%d", f, lo, hi)
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("%q: steps must ascend", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func workloadNames() string {
	names := make([]string, len(workloads))
	for i, w := range workloads {
		names[i] = w.name
	}
	return strings.Join(names, ", ")
}

func main() {
	o, err := parseOptions(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}
