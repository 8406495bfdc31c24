package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// options are the benchmark's flags.
type options struct {
	rounds        int
	duration      time.Duration
	warmup        time.Duration // ElasticMQ's (a JVM)
	warmupShort   time.Duration // every other server's
	pause         time.Duration
	only          []string
	cassandra     bool
	sqs, ws       bool
	rotate        bool
	wsConnections []int
	wsMessages    int
	wsRate        float64
	concurrency   int
	messageSize   int
	out           string
	cacheDir      string
	installOnly   bool
	smoke         bool
	keep          bool

	serveCeiling string // internal: run as the ceiling server on this address
}

// peers are the systems --only may name.
var peers = []string{sysHerald, sysHeraldCassandra, sysFauxqs, sysElasticMQ, sysMoto, sysCentrifugo}

func parseOptions(args []string) (options, error) {
	var o options
	var only, conns string
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.IntVar(&o.rounds, "rounds", 3, "interleaved rounds; every system runs once per round")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "length of each SQS run (each system, scenario and round)")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Minute, "load ElasticMQ gets before the rounds: its JVM takes minutes of load to reach a steady state (after 1 minute it still gained from round to round)")
	fs.DurationVar(&o.warmupShort, "warmup-short", 5*time.Second, "load every other SQS server gets before the rounds")
	fs.DurationVar(&o.pause, "pause", time.Second, "idle time between two runs")
	fs.StringVar(&only, "only", "", "comma-separated systems to measure, of "+strings.Join(peers, ",")+" (default: all but herald-cassandra; the ceiling and tcpfloor always run)")
	fs.BoolVar(&o.cassandra, "cassandra", false, "also measure Herald on Cassandra + Redis, started with scripts/services")
	fs.BoolVar(&o.sqs, "sqs", true, "run the SQS benchmark")
	fs.BoolVar(&o.ws, "ws", true, "run the WebSocket fan-out benchmark")
	fs.BoolVar(&o.rotate, "rotate", true, "rotate the order of the systems from one round to the next")
	fs.StringVar(&conns, "ws-connections", "2000", "comma-separated connection counts of the fan-out runs (10000 is heavy on 2 cores: ask for it)")
	fs.IntVar(&o.wsMessages, "ws-messages", 20, "messages each fan-out run publishes to every connection")
	fs.Float64Var(&o.wsRate, "ws-rate", 2, "messages per second of the fan-out runs")
	fs.IntVar(&o.concurrency, "concurrency", 64, "SQS workers, each with its own connection")
	fs.IntVar(&o.messageSize, "message-size", 1024, "SQS message body bytes")
	fs.StringVar(&o.out, "out", "", "markdown file of the results (default: peers.md in the run's directory); the samples go beside it as JSON")
	fs.StringVar(&o.cacheDir, "cache-dir", defaultCacheDir(), "where the peers are installed and runs keep their logs (HERALD_PEERS_DIR)")
	fs.BoolVar(&o.installOnly, "install-only", false, "install the peers and stop")
	fs.BoolVar(&o.smoke, "smoke", false, "check the harness: every system once for about 3s, short warm-ups, 200 connections")
	fs.BoolVar(&o.keep, "keep", false, "keep Herald's data directories after the run")
	fs.StringVar(&o.serveCeiling, "serve-ceiling", "", "internal: serve the ceiling on this address")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.smoke {
		o.rounds, o.duration, o.warmup, o.warmupShort, o.pause = 1, 3*time.Second, 2*time.Second, time.Second, 200*time.Millisecond
		o.wsMessages, conns = 6, "200"
	}
	for _, c := range strings.Split(conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return o, fmt.Errorf("--ws-connections: %q is not a count", c)
		}
		o.wsConnections = append(o.wsConnections, n)
	}
	o.only = []string{sysHerald, sysFauxqs, sysElasticMQ, sysMoto, sysCentrifugo}
	if only != "" {
		o.only = nil
		for _, name := range strings.Split(only, ",") {
			name = strings.TrimSpace(name)
			if !slices.Contains(peers, name) {
				return o, fmt.Errorf("--only: unknown system %q (%s)", name, strings.Join(peers, ", "))
			}
			o.only = append(o.only, name)
		}
	}
	if o.cassandra && !slices.Contains(o.only, sysHeraldCassandra) {
		o.only = append(o.only, sysHeraldCassandra)
	}
	switch {
	case o.rounds < 1:
		return o, errors.New("--rounds: at least 1")
	case o.duration < time.Second:
		return o, errors.New("--duration: at least 1s")
	case o.warmup < 0 || o.warmupShort < 0 || o.pause < 0:
		return o, errors.New("--warmup, --warmup-short and --pause cannot be negative")
	case o.wsMessages < 1 || o.wsRate <= 0:
		return o, errors.New("--ws-messages and --ws-rate must be positive")
	case o.concurrency < 1 || o.messageSize < 1:
		return o, errors.New("--concurrency and --message-size must be positive")
	}
	return o, nil
}

// measures reports whether name is among the systems to measure; the
// references always are.
func (o options) measures(name string) bool {
	return name == sysCeiling || name == sysTCPFloor || slices.Contains(o.only, name)
}

func defaultCacheDir() string {
	if d := os.Getenv("HERALD_PEERS_DIR"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "herald", "peers")
	}
	return filepath.Join(os.TempDir(), "herald-peers")
}

// rotated is systems in the order of round (0-based): the first round's
// order, rotated left once per round when rotate is set.
func rotated(systems []string, round int, rotate bool) []string {
	if !rotate || len(systems) == 0 {
		return systems
	}
	k := round % len(systems)
	return append(slices.Clone(systems[k:]), systems[:k]...)
}
