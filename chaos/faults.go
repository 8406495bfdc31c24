package chaos

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// FaultKind names a fault the drill can inject.
type FaultKind string

// The fault kinds.
const (
	// HeraldKill sends SIGKILL to Herald and starts it again on the same
	// port, data directory and keyspace.
	HeraldKill FaultKind = "herald-kill"
	// RedisRestart kills the drill's own redis-server and starts it empty
	// on the same port (Cassandra setup).
	RedisRestart FaultKind = "redis-restart"
	// RedisCut, CassandraCut and AMQPCut cut Herald's link to the service
	// at the drill's TCP proxy for a while, then heal it.
	RedisCut     FaultKind = "redis-cut"
	CassandraCut FaultKind = "cassandra-cut"
	AMQPCut      FaultKind = "amqp-cut"
	// CassandraRestart and RabbitMQRestart restart the shared test
	// services with scripts/services; they disturb everything else using
	// them, so they run only when asked for by name.
	CassandraRestart FaultKind = "cassandra-restart"
	RabbitMQRestart  FaultKind = "rabbitmq-restart"
)

// faultSpec says where a fault kind applies.
type faultSpec struct {
	kind      FaultKind
	cassandra bool // only on the Cassandra + Redis setup
	sqs       bool // only for scenarios whose messages pass through SQS queues (Redis holds their index)
	amqp      bool // only for scenarios that use RabbitMQ
	optional  bool // never in the default set
}

var faultSpecs = []faultSpec{
	{kind: HeraldKill},
	{kind: RedisRestart, cassandra: true, sqs: true},
	{kind: RedisCut, cassandra: true, sqs: true},
	{kind: CassandraCut, cassandra: true},
	{kind: AMQPCut, amqp: true},
	{kind: CassandraRestart, cassandra: true, optional: true},
	{kind: RabbitMQRestart, amqp: true, optional: true},
}

func specOf(k FaultKind) (faultSpec, bool) {
	for _, s := range faultSpecs {
		if s.kind == k {
			return s, true
		}
	}
	return faultSpec{}, false
}

// FaultKinds lists every fault kind.
func FaultKinds() []FaultKind {
	out := make([]FaultKind, len(faultSpecs))
	for i, s := range faultSpecs {
		out[i] = s.kind
	}
	return out
}

// uses says which parts of a setup a scenario exercises.
type uses struct {
	sqs  bool // messages pass through SQS queues
	amqp bool // Herald is started with --amqp-url
}

// applies reports whether fault kind k can hit a scenario with uses u on
// the given store.
func (s faultSpec) applies(store string, u uses) bool {
	return (!s.cassandra || store == StoreCassandra) && (!s.sqs || u.sqs) && (!s.amqp || u.amqp)
}

// DefaultFaults is the fault set used when none is asked for: every
// non-optional kind that applies to the store.
func DefaultFaults(store string) []FaultKind {
	var out []FaultKind
	for _, s := range faultSpecs {
		if !s.optional && (!s.cassandra || store == StoreCassandra) {
			out = append(out, s.kind)
		}
	}
	return out
}

// ParseFaults reads a comma-separated list of fault kinds (a kind may
// repeat: the list is the order the faults are injected in).
func ParseFaults(text string) ([]FaultKind, error) {
	var out []FaultKind
	for part := range strings.SplitSeq(text, ",") {
		k := FaultKind(strings.TrimSpace(part))
		if k == "" {
			continue
		}
		if _, ok := specOf(k); !ok {
			return nil, fmt.Errorf("unknown fault %q (the kinds: %s)", k, joinKinds(FaultKinds()))
		}
		out = append(out, k)
	}
	return out, nil
}

// checkFaults refuses kinds that cannot apply to the store at all.
func checkFaults(kinds []FaultKind, store string) error {
	for _, k := range kinds {
		s, ok := specOf(k)
		if !ok {
			return fmt.Errorf("unknown fault %q", k)
		}
		if s.cassandra && store != StoreCassandra {
			return fmt.Errorf("fault %s needs --store cassandra", k)
		}
	}
	return nil
}

// forScenario splits kinds into those that apply to a scenario with uses
// u and those that do not.
func forScenario(kinds []FaultKind, store string, u uses) (apply, skipped []FaultKind) {
	for _, k := range kinds {
		s, _ := specOf(k)
		if s.applies(store, u) {
			apply = append(apply, k)
		} else if !slices.Contains(skipped, k) {
			skipped = append(skipped, k)
		}
	}
	return apply, skipped
}

func joinKinds(ks []FaultKind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// schedule is the order and pace of faults: kinds in turn, each
// starting every after the previous one ended, for rounds passes over
// kinds (0: until the load ends).
type schedule struct {
	kinds  []FaultKind
	every  time.Duration
	rounds int
}

// total is the number of faults the schedule injects; -1 for unbounded.
func (s schedule) total() int {
	if len(s.kinds) == 0 {
		return 0
	}
	if s.rounds <= 0 {
		return -1
	}
	return s.rounds * len(s.kinds)
}

// at returns the i-th fault (from 0) and whether there is one.
func (s schedule) at(i int) (FaultKind, bool) {
	if n := s.total(); len(s.kinds) == 0 || i < 0 || (n >= 0 && i >= n) {
		return "", false
	}
	return s.kinds[i%len(s.kinds)], true
}

// injector carries out faults; the drill's world implements it.
type injector interface {
	// inject starts fault k and ends it (heals, restarts) before it
	// returns; end is when the fault ended.
	inject(ctx context.Context, k FaultKind) (end time.Time, err error)
	// healthy reports whether Herald's /healthz says every component is
	// ok (Redis not degraded).
	healthy(ctx context.Context) bool
}

// faultRunner runs a schedule against an injector while the load runs.
type faultRunner struct {
	sched  schedule
	inj    injector
	tally  *tally
	grace  time.Duration // a fault's window lasts this long after its end
	settle time.Duration // longest wait for the recovery after the last fault
	start  time.Time     // the load's start, for the records' times
	logf   func(format string, args ...any)

	stop    chan struct{} // closed by the drill: finish the fault under way, then return
	done    chan struct{} // closed when the runner returned
	records []faultRecord
}

func newFaultRunner(s schedule, inj injector, t *tally, grace, settle time.Duration, logf func(string, ...any)) *faultRunner {
	return &faultRunner{sched: s, inj: inj, tally: t, grace: grace, settle: settle, logf: logf,
		stop: make(chan struct{}), done: make(chan struct{})}
}

// run injects the schedule's faults until it is exhausted or stop is
// closed. After each fault it waits (at most settle) until the load has
// recovered when no further fault follows, so each fault's recovery is
// measured.
func (r *faultRunner) run(ctx context.Context) {
	defer close(r.done)
	var nextFault chan struct{} // closed when the next fault starts
	for i := 0; ; i++ {
		k, ok := r.sched.at(i)
		if !ok {
			return
		}
		// The window of the previous fault ends grace after it ended, or
		// when this one starts.
		wait := time.NewTimer(r.sched.every)
		graceEnd := time.NewTimer(min(r.grace, r.sched.every))
		stopped := false
	waiting:
		for {
			select {
			case <-ctx.Done():
				wait.Stop()
				graceEnd.Stop()
				return
			case <-r.stop:
				stopped = true
				break waiting
			case <-graceEnd.C:
				r.tally.enter("")
			case <-wait.C:
				break waiting
			}
		}
		wait.Stop()
		graceEnd.Stop()
		if stopped {
			if n := len(r.records); n > 0 && r.records[n-1].probe != nil {
				r.awaitRecovery(ctx, r.records[n-1].probe)
			}
			r.tally.enter("")
			return
		}
		if nextFault != nil {
			close(nextFault) // the previous fault's health watch ends
		}
		nextFault = make(chan struct{})
		r.tally.enter(string(k))
		started := time.Now()
		r.logf("fault %d: %s", i+1, k)
		end, err := r.inj.inject(ctx, k)
		rec := faultRecord{Kind: k, AtSeconds: started.Sub(r.start).Seconds(), Seconds: end.Sub(started).Seconds(), AckRecovery: -1, RecvRecovery: -1, HealthRecovery: -1}
		if err != nil {
			rec.Error = err.Error()
			r.logf("fault %d: %s failed: %v", i+1, k, err)
		} else {
			rec.probe = r.tally.arm(end)
			go r.watchHealth(ctx, rec.probe, nextFault)
		}
		r.records = append(r.records, rec)
		if ctx.Err() != nil {
			return
		}
		_, more := r.sched.at(i + 1)
		select {
		case <-r.stop:
			more = false
		default:
		}
		if !more {
			if rec.probe != nil {
				r.awaitRecovery(ctx, rec.probe)
			}
			r.tally.enter("")
			return
		}
	}
}

// watchHealth notes in p when /healthz first reports every component ok
// after the fault; it gives up when the next fault starts, after two
// minutes, or when the drill ends.
func (r *faultRunner) watchHealth(ctx context.Context, p *probe, next <-chan struct{}) {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) && ctx.Err() == nil && !isClosed(next) {
		if r.inj.healthy(ctx) {
			p.healthAt.CompareAndSwap(0, time.Now().UnixNano())
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// awaitRecovery waits until p saw an acknowledgement, a delivery and a
// healthy /healthz, at most settle.
func (r *faultRunner) awaitRecovery(ctx context.Context, p *probe) {
	deadline := time.Now().Add(r.settle)
	for !(p.recovered() && p.healthAt.Load() != 0) && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
}

// finish stops the runner after the fault under way and returns the
// records with their recovery times.
func (r *faultRunner) finish() []faultRecord {
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
	<-r.done
	for i := range r.records {
		if p := r.records[i].probe; p != nil {
			ack, recv, health := p.recovery()
			r.records[i].AckRecovery, r.records[i].RecvRecovery, r.records[i].HealthRecovery = durSeconds(ack), durSeconds(recv), durSeconds(health)
		}
	}
	return r.records
}

func durSeconds(d time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return d.Seconds()
}
