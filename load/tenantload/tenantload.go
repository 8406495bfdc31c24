// Package tenantload is 'herald bench tenants' (docs/benchmarks.md): the
// noisy-neighbour measurement of a Herald shared by accounts. Account B
// sends at a steady rate, first alone, then while account A floods the
// same node at a multiple of that rate; the report compares B's throughput
// and latency in the two phases and says what A got back (throttling
// answers, or failures and timeouts), with the server's peak memory.
package tenantload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heraldmq/herald/internal/promtext"
	"github.com/heraldmq/herald/load/loadgen"
	"github.com/heraldmq/herald/load/sqsload"
)

// Config is a run.
type Config struct {
	Server string
	// Keys of the two accounts: AKID:SECRET each (the server must know
	// both, in two accounts).
	KeyA, KeyB string
	Region     string
	// RateB is B's steady rate of SendMessage calls per second; A floods
	// at Flood times it.
	RateB float64
	Flood float64
	// ConcurrencyB and ConcurrencyA are each account's workers.
	ConcurrencyB, ConcurrencyA int
	Duration                   time.Duration // of each phase
	MessageSize                int
	Progress                   io.Writer
}

// Phase is what one account measured in one phase.
type Phase struct {
	Calls       int     `json:"calls"`
	PerSecond   float64 `json:"per_second"`
	P50ms       float64 `json:"p50_ms"`
	P99ms       float64 `json:"p99_ms"`
	Errors      int     `json:"errors"`
	Throttled   int64   `json:"throttled"`
	OtherErrors int64   `json:"other_errors"` // timeouts, 5xx: what must not happen
	FirstError  string  `json:"first_error,omitempty"`
}

// Report is a run's outcome.
type Report struct {
	RateB          float64 `json:"rate_b"`
	Flood          float64 `json:"flood"`
	BAlone         Phase   `json:"b_alone"`
	BWithFlood     Phase   `json:"b_with_flood"`
	AFlood         Phase   `json:"a_flood"`
	ThroughputKept float64 `json:"b_throughput_kept"` // B's throughput with the flood over alone
	P99Ratio       float64 `json:"b_p99_ratio"`       // B's p99 with the flood over alone
	// ServerCores is the server's CPU (cores busy) in each phase, and
	// ServerUsPerCall its CPU per call answered (admitted or refused).
	ServerCoresAlone     float64 `json:"server_cores_b_alone"`
	ServerCoresFlood     float64 `json:"server_cores_flood"`
	ServerUsPerCallAlone float64 `json:"server_us_per_call_b_alone"`
	ServerUsPerCallFlood float64 `json:"server_us_per_call_flood"`
	RSSBeforeMB          float64 `json:"rss_before_mb"`
	RSSPeakMB            float64 `json:"rss_peak_mb"`
	// Met: B kept at least 90% of its throughput, its p99 within 1.5x,
	// and A got throttling answers, never other failures.
	Met bool `json:"met"`
}

func (r Report) String() string {
	var b strings.Builder
	line := func(name string, p Phase) {
		fmt.Fprintf(&b, "%-14s %8.0f calls/s  p50 %7.2f ms  p99 %7.2f ms  throttled %d  other errors %d\n", name, p.PerSecond, p.P50ms, p.P99ms, p.Throttled, p.OtherErrors)
	}
	line("B alone", r.BAlone)
	line("B, A flooding", r.BWithFlood)
	line("A flooding", r.AFlood)
	fmt.Fprintf(&b, "server: %.2f cores, %.0f µs a call with B alone; %.2f cores, %.0f µs a call with A flooding\n",
		r.ServerCoresAlone, r.ServerUsPerCallAlone, r.ServerCoresFlood, r.ServerUsPerCallFlood)
	fmt.Fprintf(&b, "B kept %.1f%% of its throughput, p99 x%.2f; server RSS %.0f MB before, %.0f MB at most; targets (>= 90%%, <= x1.5, A only throttled) %s\n",
		100*r.ThroughputKept, r.P99Ratio, r.RSSBeforeMB, r.RSSPeakMB, map[bool]string{true: "met", false: "NOT met"}[r.Met])
	return b.String()
}

// account is one account's client and queue.
type account struct {
	c     *sqsload.Client
	queue string
}

func open(ctx context.Context, cfg Config, key, name string, conns int) (*account, error) {
	id, secret, ok := strings.Cut(key, ":")
	if !ok {
		return nil, fmt.Errorf("key %q: want AKID:SECRET", key)
	}
	c := sqsload.NewClient(cfg.Server, sqsload.Options{Connections: conns, Timeout: 10 * time.Second, AccessKey: id, SecretKey: secret, Region: cfg.Region})
	url, err := c.CreateQueue(ctx, name, nil)
	if err != nil {
		return nil, fmt.Errorf("create queue %s: %w", name, err)
	}
	return &account{c: c, queue: url}, nil
}

// sender is an account's SendMessage op, counting throttling answers and
// other failures apart.
func (a *account) sender(size int, throttled, other *atomic.Int64) loadgen.Op {
	req := a.c.SendRequest(a.queue, []string{strings.Repeat("x", size)})
	return func(ctx context.Context, _, _ int) (int, error) {
		_, err := a.c.Send(ctx, req, 1)
		var ae *sqsload.APIError
		switch {
		case err == nil:
			return 1, nil
		case ctx.Err() != nil:
			return 0, err // cut short by the end of the phase, as loadgen counts it
		case errors.As(err, &ae) && ae.Code == "RequestThrottled":
			throttled.Add(1)
		default:
			other.Add(1)
		}
		return 0, err
	}
}

func phase(r loadgen.Result, throttled, other *atomic.Int64) Phase {
	return Phase{Calls: r.Calls, PerSecond: float64(r.Items) / r.Elapsed.Seconds(), P50ms: ms(r.P50), P99ms: ms(r.P99),
		Errors: r.Errors, Throttled: throttled.Load(), OtherErrors: other.Load(), FirstError: r.FirstError}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Run measures B alone, then B while A floods.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.RateB <= 0 || cfg.Flood <= 0 || cfg.Duration <= 0 {
		return Report{}, errors.New("rate, flood and duration must be positive")
	}
	cfg.ConcurrencyA = max(cfg.ConcurrencyA, 1)
	cfg.ConcurrencyB = max(cfg.ConcurrencyB, 1)
	suffix := fmt.Sprint(time.Now().UnixNano() % 1_000_000)
	a, err := open(ctx, cfg, cfg.KeyA, "herald-bench-tenant-a-"+suffix, cfg.ConcurrencyA)
	if err != nil {
		return Report{}, err
	}
	b, err := open(ctx, cfg, cfg.KeyB, "herald-bench-tenant-b-"+suffix, cfg.ConcurrencyB)
	if err != nil {
		return Report{}, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		for _, x := range []*account{a, b} {
			for x.c.DeleteQueue(cctx, x.queue) != nil && cctx.Err() == nil {
				time.Sleep(200 * time.Millisecond) // a throttled delete: try again
			}
			x.c.Close()
		}
	}()
	hc := &http.Client{Timeout: 5 * time.Second}
	metricsURL := strings.TrimRight(cfg.Server, "/") + "/metrics"
	rep := Report{RateB: cfg.RateB, Flood: cfg.Flood}
	if m, err := promtext.FetchMemory(ctx, hc, metricsURL); err == nil {
		rep.RSSBeforeMB = m.ResidentBytes / 1e6
	}

	cpu := func() float64 {
		got, err := promtext.Fetch(ctx, hc, metricsURL, "process_cpu_seconds_total")
		if err != nil {
			return 0
		}
		return got["process_cpu_seconds_total"]
	}
	var bThrottled, bOther atomic.Int64
	cpu0 := cpu()
	alone := loadgen.Run(ctx, "B alone", loadgen.Config{Concurrency: cfg.ConcurrencyB, Duration: cfg.Duration, Rate: cfg.RateB, Progress: cfg.Progress},
		b.sender(cfg.MessageSize, &bThrottled, &bOther))
	rep.BAlone = phase(alone, &bThrottled, &bOther)
	cpu1 := cpu()
	rep.ServerCoresAlone = (cpu1 - cpu0) / alone.Elapsed.Seconds()
	if alone.Calls > 0 {
		rep.ServerUsPerCallAlone = (cpu1 - cpu0) * 1e6 / float64(alone.Calls+alone.Errors)
	}

	var b2Throttled, b2Other, aThrottled, aOther atomic.Int64
	peak := promtext.SamplePeakRSS(ctx, hc, metricsURL, time.Second)
	var flood loadgen.Result
	var both sync.WaitGroup
	both.Go(func() {
		flood = loadgen.Run(ctx, "A flooding", loadgen.Config{Concurrency: cfg.ConcurrencyA, Duration: cfg.Duration, Rate: cfg.Flood * cfg.RateB},
			a.sender(cfg.MessageSize, &aThrottled, &aOther))
	})
	with := loadgen.Run(ctx, "B, A flooding", loadgen.Config{Concurrency: cfg.ConcurrencyB, Duration: cfg.Duration, Rate: cfg.RateB, Progress: cfg.Progress},
		b.sender(cfg.MessageSize, &b2Throttled, &b2Other))
	both.Wait()
	cpu2 := cpu()
	peakRSS := peak.Stop()
	rep.BWithFlood = phase(with, &b2Throttled, &b2Other)
	rep.AFlood = phase(flood, &aThrottled, &aOther)
	rep.RSSPeakMB = peakRSS / 1e6
	rep.ServerCoresFlood = (cpu2 - cpu1) / with.Elapsed.Seconds()
	if n := with.Calls + with.Errors + flood.Calls + flood.Errors; n > 0 {
		rep.ServerUsPerCallFlood = (cpu2 - cpu1) * 1e6 / float64(n)
	}
	if rep.BAlone.PerSecond > 0 {
		rep.ThroughputKept = rep.BWithFlood.PerSecond / rep.BAlone.PerSecond
	}
	if rep.BAlone.P99ms > 0 {
		rep.P99Ratio = rep.BWithFlood.P99ms / rep.BAlone.P99ms
	}
	rep.Met = rep.ThroughputKept >= 0.9 && rep.P99Ratio <= 1.5 && rep.AFlood.OtherErrors == 0 && rep.BWithFlood.Errors == 0
	return rep, ctx.Err()
}
