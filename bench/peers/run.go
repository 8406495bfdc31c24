package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/heraldmq/herald/load/loadgen"
	"github.com/heraldmq/herald/load/wsload"
)

// runner holds one benchmark run: its servers and what they measured.
type runner struct {
	opts         options
	repo, runDir string
	in           installer
	launcher     launcher
	log          io.Writer
	servers      map[string]*server
	started      []string // names, in start order
	cassandra    *cassandraServices
	sqs          []sqsSample
	ws           []wsSample
	warnings     []string
}

func (r *runner) herald() string   { return filepath.Join(r.launcher.bin, "herald") }
func (r *runner) tcpfloor() string { return filepath.Join(r.launcher.bin, "tcpfloor") }

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.log, "peers: "+format+"\n", args...)
}

// run installs, builds, takes the load lock, runs the benchmarks and
// writes the report.
func run(ctx context.Context, opts options, argv []string, stdout, stderr io.Writer) error {
	repo, err := repoRoot()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(opts.cacheDir, 0o755); err != nil {
		return err
	}
	installLog, err := os.OpenFile(filepath.Join(opts.cacheDir, "install.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer installLog.Close()
	in := installer{dir: opts.cacheDir, log: installLog, progress: stderr}
	fmt.Fprintf(stderr, "peers: installing into %s (npm, mvn, pip and go output: %s)\n", opts.cacheDir, installLog.Name())
	if err := installPeers(ctx, in, opts); err != nil {
		return err
	}
	if opts.installOnly {
		return nil
	}
	runDir := filepath.Join(opts.cacheDir, "runs", time.Now().Format("20060102-150405"))
	bin := filepath.Join(runDir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "peers: building herald and tcpfloor into %s\n", bin)
	if err := buildHerald(ctx, repo, bin, installLog); err != nil {
		return err
	}
	r := &runner{opts: opts, repo: repo, runDir: runDir, in: in, log: stderr, servers: map[string]*server{},
		launcher: launcher{runDir: runDir, bin: bin, in: in, messageSize: opts.messageSize}}
	if _, err := wsload.RaiseFileLimit(); err != nil {
		r.warn("raising the open-file limit: %v", err)
	}

	release, err := loadgen.TakeLock(ctx, loadgen.LockPath, stderr)
	if err != nil {
		return err
	}
	began := time.Now()
	err = r.measure(ctx)
	r.stopAll()
	release()
	if err != nil {
		return err
	}
	if !opts.keep {
		os.RemoveAll(filepath.Join(runDir, "herald-data"))
		os.RemoveAll(filepath.Join(runDir, "herald-cassandra-data"))
	}
	rep := r.report(argv, began)
	return writeReport(rep, r.outPath(), stdout, stderr)
}

// measure starts the servers and runs the rounds.
func (r *runner) measure(ctx context.Context) error {
	if err := r.startAll(ctx); err != nil {
		return err
	}
	if r.opts.sqs {
		r.warmUp(ctx)
		r.sqsRounds(ctx)
	}
	if r.opts.ws {
		r.wsRounds(ctx)
	}
	return ctx.Err()
}

func (r *runner) outPath() string {
	if r.opts.out != "" {
		return r.opts.out
	}
	return filepath.Join(r.runDir, "peers.md")
}

func (r *runner) warn(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
	r.logf("warning: "+format, args...)
}

// installPeers installs the peers the run measures.
func installPeers(ctx context.Context, in installer, o options) error {
	steps := []struct {
		name    string
		needed  bool
		install func(context.Context) error
	}{
		{sysFauxqs, o.sqs && o.measures(sysFauxqs), in.fauxqs},
		{sysElasticMQ, o.sqs && o.measures(sysElasticMQ), in.elasticmq},
		{sysMoto, o.sqs && o.measures(sysMoto), in.moto},
		{sysCentrifugo, o.ws && o.measures(sysCentrifugo), in.centrifugo},
	}
	for _, s := range steps {
		if !s.needed && !o.installOnly {
			continue
		}
		if err := s.install(ctx); err != nil {
			return err
		}
	}
	return nil
}

// sqsOrder and wsOrder are the systems of each benchmark, first round's order.
func (r *runner) sqsOrder() []string {
	return slices.DeleteFunc(slices.Clone(sqsSystems), func(n string) bool { return !r.opts.measures(n) })
}

func (r *runner) wsOrder() []string {
	return slices.DeleteFunc(slices.Clone(wsSystems), func(n string) bool { return !r.opts.measures(n) })
}

// startAll starts every server the run needs and waits until each answers.
func (r *runner) startAll(ctx context.Context) error {
	var names []string
	if r.opts.sqs {
		names = append(names, r.sqsOrder()...)
	}
	if r.opts.ws {
		for _, n := range r.wsOrder() {
			if n != sysTCPFloor && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	for _, name := range names {
		if name == sysHeraldCassandra {
			if err := r.startServices(ctx); err != nil {
				return err
			}
		}
		r.started = append(r.started, name)
		if err := r.start(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// start starts the server name on a free port and waits until it answers.
func (r *runner) start(ctx context.Context, name string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	l, err := r.launcher.launch(name, port)
	if err != nil {
		return err
	}
	log := filepath.Join(r.runDir, fmt.Sprintf("%s-%d.log", name, port))
	s, err := startServer(name, port, l, log)
	if err != nil {
		return err
	}
	r.servers[name] = s
	if err := s.waitReady(ctx, 3*time.Minute); err != nil {
		return err
	}
	if name == sysHeraldCassandra {
		if s.services, err = r.cassandra.pids(); err != nil {
			r.warn("Cassandra and Redis CPU not measured: %v", err)
		}
	}
	r.logf("%s answers on %s (pid %d)", name, s.url, s.pid())
	return nil
}

// restart replaces the server name with a fresh process (on the same data
// directory): a fan-out run's memory per connection is what a process
// grows by while the connections open, which memory an earlier run freed
// would hide.
func (r *runner) restart(ctx context.Context, name string) error {
	if s := r.servers[name]; s != nil {
		s.stop()
	}
	return r.start(ctx, name)
}

// startServices starts Cassandra and Redis for Herald on Cassandra.
func (r *runner) startServices(ctx context.Context) error {
	logFile, err := os.Create(filepath.Join(r.runDir, "services.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	r.logf("starting Cassandra and Redis with scripts/services (log: %s)", logFile.Name())
	r.cassandra, err = startCassandra(ctx, r.repo, logFile)
	if err != nil {
		return err
	}
	r.launcher.cassandra = r.cassandra
	return nil
}

// stopAll stops the servers, last started first, and drops the
// Cassandra keyspace.
func (r *runner) stopAll() {
	for i := len(r.started) - 1; i >= 0; i-- {
		if s := r.servers[r.started[i]]; s != nil {
			s.stop()
		}
	}
	r.started = nil
	if r.cassandra != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := r.cassandra.dropKeyspace(ctx); err != nil {
			r.logf("warning: %v", err)
		}
		r.cassandra = nil
	}
}

// warmUp loads each SQS server before the rounds: two thirds of its
// warm-up with the mix, a third with batches. ElasticMQ goes first, so that
// its JIT's compilations are over before anything is measured.
func (r *runner) warmUp(ctx context.Context) {
	order := r.sqsOrder()
	if i := slices.Index(order, sysElasticMQ); i > 0 {
		order = append([]string{sysElasticMQ}, slices.Delete(order, i, i+1)...)
	}
	for _, name := range order {
		d := r.opts.warmupShort
		if name == sysElasticMQ {
			d = r.opts.warmup
		}
		if d <= 0 || ctx.Err() != nil {
			continue
		}
		r.logf("warming %s up for %s", name, d)
		s := r.servers[name]
		for _, w := range []struct {
			scenario string
			d        time.Duration
		}{{scenarioMix, max(d*2/3, time.Second)}, {scenarioBatch10, max(d/3, time.Second)}} {
			if sample := r.runSQS(ctx, s, w.scenario, 0, w.d); sample.Failed != "" {
				r.warn("warming %s up (%s): %s", name, w.scenario, sample.Failed)
			}
		}
		r.sleep(ctx)
	}
}

func (r *runner) sleep(ctx context.Context) {
	select {
	case <-time.After(r.opts.pause):
	case <-ctx.Done():
	}
}

// sqsRounds runs every scenario against every SQS system, round by round.
func (r *runner) sqsRounds(ctx context.Context) {
	for round := range r.opts.rounds {
		for _, name := range rotated(r.sqsOrder(), round, r.opts.rotate) {
			for _, scenario := range []string{scenarioMix, scenarioBatch10} {
				if ctx.Err() != nil {
					return
				}
				s := r.runSQS(ctx, r.servers[name], scenario, round+1, r.opts.duration)
				r.sqs = append(r.sqs, s)
				r.logSQS(s)
				r.sleep(ctx)
			}
		}
	}
}

func (r *runner) logSQS(s sqsSample) {
	if s.Failed != "" {
		r.logf("round %d %s %s: failed: %s", s.Round, s.System, s.Scenario, s.Failed)
		return
	}
	r.logf("round %d %s %s: %.0f calls/s, %.0f msgs/s, p50 %.2f ms, p99 %.2f ms, %d errors, server %.3f CPU-s per 1,000 calls",
		s.Round, s.System, s.Scenario, s.CallsPerSec, s.MessagesPerSec, s.P50ms, s.P99ms, s.Errors, s.cpuPer1000(s.ServerCPU))
}

// wsRounds runs the fan-out at each connection count, round by round.
func (r *runner) wsRounds(ctx context.Context) {
	for _, n := range r.opts.wsConnections {
		for round := range r.opts.rounds {
			for _, name := range rotated(r.wsOrder(), round, r.opts.rotate) {
				if ctx.Err() != nil {
					return
				}
				var s wsSample
				if name == sysTCPFloor {
					s = r.runTCPFloor(ctx, n, round+1)
				} else if err := r.restart(ctx, name); err != nil {
					s = wsSample{System: name, Round: round + 1, Connections: n, Failed: err.Error()}
				} else {
					s = r.runWS(ctx, r.servers[name], n, round+1)
				}
				r.ws = append(r.ws, s)
				r.logWS(s)
				r.sleep(ctx)
			}
		}
	}
}

func (r *runner) logWS(s wsSample) {
	if s.Failed != "" {
		r.logf("round %d %s ws %d: failed: %s", s.Round, s.System, s.Connections, s.Failed)
		if s.Expected == 0 {
			return
		}
	}
	r.logf("round %d %s ws %d: p50 %.2f ms, p99 %.2f ms, %d of %d delivered, %.1f KiB resident per connection",
		s.Round, s.System, s.Connections, s.P50ms, s.P99ms, s.Delivered, s.Expected, s.ResidentPerConn/1024)
}

// cpuSnapshot reads the CPU seconds of every server (with its children)
// and every service, by pid.
func (r *runner) cpuSnapshot() map[int]float64 {
	stats := readAllStats()
	cpu := map[int]float64{}
	for _, name := range r.started {
		s := r.servers[name]
		if s == nil {
			continue
		}
		for _, pid := range append([]int{s.pid()}, slices.Collect(maps.Values(s.services))...) {
			if v, ok := treeCPU(pid, stats); ok {
				cpu[pid] = v
			}
		}
	}
	return cpu
}

// attribute splits the CPU used between two snapshots: s's own, its
// services', and the other servers' and services' (idle meanwhile).
func (r *runner) attribute(sample *sqsSample, s *server, before, after map[int]float64) {
	sample.ServerCPU = after[s.pid()] - before[s.pid()]
	for name, pid := range s.services {
		if sample.ServiceCPU == nil {
			sample.ServiceCPU = map[string]float64{}
		}
		sample.ServiceCPU[name] = after[pid] - before[pid]
	}
	for _, name := range r.started {
		o := r.servers[name]
		if o == nil || o == s {
			continue
		}
		used := after[o.pid()] - before[o.pid()]
		for _, pid := range o.services {
			used += after[pid] - before[pid]
		}
		if sample.IdleBy == nil {
			sample.IdleBy = map[string]float64{}
		}
		sample.IdleBy[name] = used
		sample.IdleCPU += used
	}
}

// repoRoot finds the Herald module's directory from the working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/heraldmq/herald\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run from within the Herald repository (go run ./bench/peers)")
		}
		dir = parent
	}
}
