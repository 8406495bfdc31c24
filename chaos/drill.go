// Package chaos is Herald's fault drill (`herald chaos`): it runs a real
// `herald serve` process (and, for the Cassandra setup, a redis-server of
// its own), drives a producer/consumer load of unique, checksummed
// messages through one scenario at a time (SQS standard and FIFO queues,
// SNS fan-out to queues and to HTTP endpoints, cache puts, AMQP ingest,
// WebSocket queue push), and injects faults on a schedule: SIGKILL of
// Herald, Redis restarted empty, Herald's links to Redis, Cassandra and
// RabbitMQ cut at TCP proxies, and on request restarts of the shared
// Cassandra and RabbitMQ.
//
// Every message is accounted for. A message is acknowledged when the
// server acknowledged its send; received when it reached the consumer
// with an intact body. After the load the drill drains until every
// acknowledged message arrived or a timeout passed; then, if some are
// still missing, it restarts Herald (on an empty Redis) and drains again:
// what arrives now was stranded (durable but not delivered), what never
// arrives was lost. The report counts sent, acknowledged, received, lost,
// stranded, duplicates (in the steady state and within each fault's
// window) and corrupt deliveries, and the recovery time after each fault.
// Report.Failed is true when anything acknowledged was lost or stranded,
// or any delivery was corrupt.
package chaos

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Run runs the drill cfg describes and returns its report; err is set when
// the drill itself could not run (a bad configuration, a process that
// does not start, ctx ended). A report whose Failed is true lost,
// stranded or corrupted messages.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	names, notes, err := cfg.scenarioList()
	if err != nil {
		return nil, err
	}
	rep := &Report{Started: time.Now().UTC(), Store: cfg.Store, Faults: cfg.Faults, FaultEvery: cfg.FaultEvery.Seconds(),
		Machine: fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())}
	w, err := newWorld(ctx, cfg, names)
	if err != nil {
		return rep, err
	}
	rep.Keyspace = w.keyspace
	for _, n := range notes {
		w.logf("%s", n)
	}
	defer func() {
		keep := rep.Failed() || err != nil
		if keep && w.temp {
			rep.WorkDir = w.dir
		}
		if keep && w.createdKeyspace {
			rep.Notes = append(rep.Notes, "the keyspace "+w.keyspace+" is kept for inspection; drop it when done")
		}
		w.close(keep)
	}()
	for _, name := range names {
		if err = ctx.Err(); err != nil {
			break
		}
		sr := w.runScenario(ctx, name)
		rep.Scenarios = append(rep.Scenarios, sr)
	}
	return rep, ctx.Err()
}

// runScenario runs one scenario on a Herald of its own: setup, load with
// faults, drain, recheck, classification.
func (w *world) runScenario(ctx context.Context, name string) (rep ScenarioReport) {
	cfg := &w.cfg
	sc := newScenario(name, cfg)
	rep = ScenarioReport{Scenario: name, Subscribers: sc.subscribers()}
	kinds, skipped := forScenario(cfg.Faults, cfg.Store, sc.uses())
	rep.Skipped = skipped
	dir := filepath.Join(w.dir, name)
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		rep.Error = err.Error()
		return rep
	}
	rep.HeraldLog = filepath.Join(dir, "herald.log")
	args := append(w.heraldArgs(sc.uses(), filepath.Join(dir, "data")), sc.heraldArgs(w)...)
	w.logf("%s: starting herald (%s)", name, cfg.Store)
	h, err := startHerald(ctx, cfg.HeraldBin, args, rep.HeraldLog)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	w.herald = h
	r := &scenarioRun{w: w, cfg: cfg, name: name, url: h.url, tally: newTally(sc.subscribers()), rep: &rep, errs: map[string]*errorCount{}}
	defer func() {
		h.stop()
		w.herald = nil
		actx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		sc.afterStop(actx, r)
		cancel()
	}()
	// The first start on a fresh keyspace creates its tables.
	if err := h.waitHealthy(ctx, 3*time.Minute); err != nil {
		rep.Error = err.Error()
		return rep
	}
	setupCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = sc.setup(setupCtx, r)
	cancel()
	if err != nil {
		rep.Error = "setup: " + err.Error()
		return rep
	}
	defer func() {
		tctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		sc.teardown(tctx, r)
		cancel()
	}()

	consumers := newWorkers()
	startConsumers := func() {
		for i := range max(cfg.Consumers, sc.subscribers()) {
			consumers.goRun(func(stop <-chan struct{}) { sc.consume(ctx, r, i, stop) })
		}
	}
	startConsumers()
	producers := newWorkers()
	limit := rate.Inf
	if cfg.Rate > 0 {
		limit = rate.Limit(cfg.Rate)
	}
	limiter := rate.NewLimiter(limit, cfg.Batch)
	for i := range cfg.Producers {
		producers.goRun(func(stop <-chan struct{}) { w.produceLoop(ctx, r, sc, i, limiter, stop) })
	}
	loadStart := time.Now()
	runner := newFaultRunner(schedule{kinds: kinds, every: cfg.FaultEvery, rounds: cfg.FaultRounds}, w, r.tally,
		cfg.Visibility+2*time.Second, cfg.Settle, func(format string, args ...any) { w.logf(name+": "+format, args...) })
	runner.start = loadStart
	go runner.run(ctx)
	w.logf("%s: load started: %d messages, at most %s, faults %s", name, cfg.Messages, cfg.Duration, orNone(joinKinds(kinds)))

	target := int64(cfg.Messages) * int64(sc.subscribers())
	deadline := loadStart.Add(cfg.Duration)
	tick := time.NewTicker(100 * time.Millisecond)
	lastProgress := time.Now()
	for ctx.Err() == nil && time.Now().Before(deadline) {
		faultsDone := runner.sched.total() < 0 || isClosed(runner.done)
		if r.tally.acked.Load() >= target && faultsDone {
			break
		}
		if time.Since(lastProgress) >= 5*time.Second {
			lastProgress = time.Now()
			w.progress(r, "load", loadStart)
		}
		<-tick.C
	}
	tick.Stop()
	if time.Now().After(deadline) {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the load ran for its whole duration (%s) before reaching its target", cfg.Duration))
	}
	rep.Faults = runner.finish()
	producers.stop()
	rep.LoadSeconds = time.Since(loadStart).Seconds()
	rep.Rate = float64(r.tally.acked.Load()) / float64(sc.subscribers()) / rep.LoadSeconds
	w.logf("%s: load ended after %s; draining", name, seconds(rep.LoadSeconds))

	// Drain: every acknowledged message should arrive.
	r.tally.setPhase(phaseDrain)
	drainStart := time.Now()
	// Messages in flight at a fault come back a visibility timeout later:
	// the drain lasts at least that long after the last fault, so the
	// duplicates it causes are counted.
	var minUntil time.Time
	for _, f := range rep.Faults {
		end := loadStart.Add(time.Duration((f.AtSeconds + f.Seconds) * float64(time.Second)))
		if u := end.Add(cfg.Visibility + 2*time.Second); u.After(minUntil) {
			minUntil = u
		}
	}
	w.drain(ctx, r, "drain", minUntil)
	rep.DrainSeconds = time.Since(drainStart).Seconds()
	if r.tally.missing() > 0 && ctx.Err() == nil {
		// Recheck: what arrives only after a restart (on an empty Redis)
		// was stranded; what never arrives was lost.
		rep.Rechecked = true
		w.logf("%s: %d acknowledged messages missing after the drain; restarting herald%s to tell stranded from lost",
			name, r.tally.missing(), map[bool]string{true: " on an empty redis", false: ""}[w.redis != nil])
		consumers.stop()
		recheckStart := time.Now()
		if err := w.restartForRecheck(ctx, h); err != nil {
			rep.Error = "recheck: " + err.Error()
		} else {
			r.tally.setPhase(phaseRecheck)
			startConsumers()
			w.drain(ctx, r, "recheck", time.Time{})
		}
		rep.RecheckSeconds = time.Since(recheckStart).Seconds()
	}
	consumers.stop()
	if ctx.Err() != nil && rep.Error == "" {
		rep.Error = "interrupted: " + ctx.Err().Error()
	}
	if crashes := h.unexpectedExits(); len(crashes) > 0 && rep.Error == "" {
		rep.Error = fmt.Sprintf("herald exited on its own %d times (%s); see its log", len(crashes), strings.Join(crashes, "; "))
	}

	rep.counts = r.tally.classify()
	if ctx.Err() != nil {
		// Interrupted: what is missing was never given its drain.
		rep.Unsettled, rep.Lost, rep.LostIDs = rep.Lost, 0, nil
	}
	rep.Windows = r.tally.windowStats()
	rep.Recovery = summarise(rep.Faults)
	r.errMu.Lock()
	if len(r.errs) > 0 {
		rep.Errors = map[string]errorCount{}
		for op, e := range r.errs {
			rep.Errors[op] = *e
		}
	}
	r.errMu.Unlock()
	sc.finish(r)
	w.logf("%s: sent %d, acknowledged %d, received %d, lost %d, stranded %d, duplicates %d, corrupt %d",
		name, rep.Sent, rep.Acknowledged, rep.Received, rep.Lost, rep.Stranded, rep.Duplicates, rep.Corrupt)
	return rep
}

// produceLoop runs one producer until stop: paced by limiter, backing off
// after failures (Herald may be down).
func (w *world) produceLoop(ctx context.Context, r *scenarioRun, sc scenario, worker int, limiter *rate.Limiter, stop <-chan struct{}) {
	backoff := 20 * time.Millisecond
	for !stopped(stop) && ctx.Err() == nil {
		if err := limiter.WaitN(ctx, w.cfg.Batch); err != nil {
			return
		}
		if err := sc.produce(ctx, r, worker, w.cfg.Batch); err != nil {
			r.fail("send", err)
			if !sleep(ctx, stop, backoff) {
				return
			}
			backoff = min(2*backoff, 100*time.Millisecond)
			continue
		}
		backoff = 20 * time.Millisecond
	}
}

// drain waits until no acknowledged message is missing and minUntil
// passed. It gives up when DrainTimeout passed without a missing message
// arriving (a backlog that still moves is waited for), and after Duration
// in any case.
func (w *world) drain(ctx context.Context, r *scenarioRun, what string, minUntil time.Time) {
	start := time.Now()
	limit := start.Add(w.cfg.Duration)
	missing, moved := r.tally.missing(), start
	lastLog := start
	for (missing > 0 || time.Now().Before(minUntil)) && ctx.Err() == nil {
		now := time.Now()
		if now.Sub(moved) > w.cfg.DrainTimeout || now.After(limit) {
			return
		}
		if now.Sub(lastLog) >= 5*time.Second {
			lastLog = now
			w.progress(r, what, start)
		}
		time.Sleep(50 * time.Millisecond)
		if m := r.tally.missing(); m < missing {
			missing, moved = m, time.Now()
		}
	}
}

// restartForRecheck stops Herald, empties Redis (Cassandra setup) and
// starts Herald again.
func (w *world) restartForRecheck(ctx context.Context, h *heraldProc) error {
	h.stop()
	if w.redis != nil {
		w.redis.kill()
		if err := w.redis.start(ctx); err != nil {
			return err
		}
	}
	if err := h.start(ctx); err != nil {
		return err
	}
	return h.waitHealthy(ctx, time.Minute)
}

func (w *world) progress(r *scenarioRun, what string, since time.Time) {
	t := r.tally
	w.logf("%s: %s %s: sent %d, acknowledged %d, delivered %d, missing %d, duplicates %d, corrupt %d",
		r.name, what, time.Since(since).Round(time.Second), t.sent.Load(), t.acked.Load(), t.deliveries.Load(), t.missing(), t.duplicates.Load(), t.corrupt.Load())
}

// workers is a group of goroutines sharing one stop channel.
type workers struct {
	mu     sync.Mutex
	stopCh chan struct{}
	wg     sync.WaitGroup
}

func newWorkers() *workers { return &workers{stopCh: make(chan struct{})} }

// goRun starts fn; it must return soon after stop is closed.
func (ws *workers) goRun(fn func(stop <-chan struct{})) {
	ws.mu.Lock()
	stop := ws.stopCh
	ws.mu.Unlock()
	ws.wg.Add(1)
	go func() {
		defer ws.wg.Done()
		fn(stop)
	}()
}

// stop closes the stop channel, waits for every goroutine, and readies
// the group for new ones.
func (ws *workers) stop() {
	ws.mu.Lock()
	close(ws.stopCh)
	ws.mu.Unlock()
	ws.wg.Wait()
	ws.mu.Lock()
	ws.stopCh = make(chan struct{})
	ws.mu.Unlock()
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
