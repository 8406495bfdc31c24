// Package loadgen drives a bounded load against a Herald server and reports
// throughput and latency percentiles per operation. The `herald bench`
// commands are built on it. A run stops by itself after its duration or
// request count; it only ever targets the address it is given.
package loadgen

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Op performs one operation; worker is the calling worker's index and seq
// counts that worker's calls. It returns the number of items the call
// handled (1 for a single request, the batch size for a batch).
type Op func(ctx context.Context, worker, seq int) (items int, err error)

// Config bounds a run.
type Config struct {
	Concurrency int           // workers calling the op in parallel
	Duration    time.Duration // how long to run (0: until Requests)
	Requests    int           // stop after this many calls (0: until Duration)
	Progress    io.Writer     // where to draw a progress bar; nil for none
	// Rate, when positive, paces the run at this many calls per second in
	// all (an open-loop load, as wrk2 does): call i is due at start +
	// i/Rate, and its latency counts from when it was due, so a server
	// that falls behind shows its queueing delay instead of hiding it
	// (no coordinated omission). Zero runs every worker flat out.
	Rate float64
}

// scheduledKey carries a paced call's due time in its context.
type scheduledKey struct{}

// Scheduled returns when the call running with ctx was due under a paced
// run, or the zero time when the run is not paced. An Op that measures
// parts of itself (one API call of several) counts its first part from it.
func Scheduled(ctx context.Context) time.Time {
	t, _ := ctx.Value(scheduledKey{}).(time.Time)
	return t
}

// Result is what one run measured.
type Result struct {
	Name        string        `json:"name"`
	Concurrency int           `json:"concurrency"`
	Calls       int           `json:"calls"`
	Items       int           `json:"items"`
	Errors      int           `json:"errors"`
	FirstError  string        `json:"first_error,omitempty"`
	Elapsed     time.Duration `json:"elapsed_ns"`
	CallsPerSec float64       `json:"calls_per_sec"`
	ItemsPerSec float64       `json:"items_per_sec"`
	P50         time.Duration `json:"p50_ns"`
	P90         time.Duration `json:"p90_ns"`
	P95         time.Duration `json:"p95_ns"`
	P99         time.Duration `json:"p99_ns"`
	P999        time.Duration `json:"p999_ns"`
	Max         time.Duration `json:"max_ns"`
}

// String formats the result as one human-readable line.
func (r Result) String() string {
	s := fmt.Sprintf("%-18s %8d calls %9.0f calls/s %10.0f items/s  p50 %-9s p90 %-9s p99 %-9s p99.9 %-9s max %-9s errors %d",
		r.Name, r.Calls, r.CallsPerSec, r.ItemsPerSec, round(r.P50), round(r.P90), round(r.P99), round(r.P999), round(r.Max), r.Errors)
	if r.FirstError != "" {
		s += " (first: " + r.FirstError + ")"
	}
	return s
}

func round(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	default:
		return d.Round(time.Microsecond)
	}
}

// Run calls op from cfg.Concurrency workers until the duration passes or
// the request count is reached, and measures every call.
func Run(ctx context.Context, name string, cfg Config, op Op) Result {
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	if cfg.Duration <= 0 && cfg.Requests <= 0 {
		cfg.Duration = 10 * time.Second
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if cfg.Duration > 0 {
		runCtx, cancel = context.WithTimeout(runCtx, cfg.Duration)
		defer cancel()
	}
	var (
		issued, done, items, errs atomic.Int64
		ticket                    atomic.Int64 // paced runs: the next call's number
		firstErr                  atomic.Value
		wg                        sync.WaitGroup
		latencies                 = make([][]time.Duration, cfg.Concurrency)
	)
	start := time.Now()
	stopProgress := progress(cfg, start, &done)
	for w := range cfg.Concurrency {
		wg.Go(func() {
			for seq := 0; runCtx.Err() == nil; seq++ {
				if cfg.Requests > 0 && issued.Add(1) > int64(cfg.Requests) {
					return
				}
				opCtx, t0 := runCtx, time.Now()
				if cfg.Rate > 0 {
					due := start.Add(time.Duration(float64(ticket.Add(1)-1) / cfg.Rate * float64(time.Second)))
					if wait := time.Until(due); wait > 0 {
						select {
						case <-time.After(wait):
						case <-runCtx.Done():
							return
						}
					}
					opCtx, t0 = context.WithValue(runCtx, scheduledKey{}, due), due
				}
				n, err := op(opCtx, w, seq)
				d := time.Since(t0)
				if err != nil {
					if runCtx.Err() != nil {
						return // cut short by the end of the run, not a failure
					}
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				latencies[w] = append(latencies[w], d)
				items.Add(int64(n))
				done.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopProgress()

	first, _ := firstErr.Load().(string)
	return Summarize(Result{Name: name, Concurrency: cfg.Concurrency, Items: int(items.Load()),
		Errors: int(errs.Load()), FirstError: first, Elapsed: elapsed}, slices.Concat(latencies...))
}

// Summarize completes r, whose counts and Elapsed are set, from the
// latencies of its successful calls: Calls, the rates and the percentiles.
// It sorts latencies in place. Callers that measure several kinds of call
// inside one Op (an SQS send, receive and delete cycle) use it to report
// each kind the way Run reports one.
func Summarize(r Result, latencies []time.Duration) Result {
	slices.Sort(latencies)
	r.Calls = len(latencies)
	if len(latencies) > 0 && r.Elapsed > 0 {
		secs := r.Elapsed.Seconds()
		r.CallsPerSec = float64(r.Calls) / secs
		r.ItemsPerSec = float64(r.Items) / secs
	}
	if len(latencies) > 0 {
		r.P50, r.P90, r.P95 = quantile(latencies, 0.50), quantile(latencies, 0.90), quantile(latencies, 0.95)
		r.P99, r.P999 = quantile(latencies, 0.99), quantile(latencies, 0.999)
		r.Max = latencies[len(latencies)-1]
	}
	return r
}

// quantile returns the q-quantile of sorted samples (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// progress draws a bar on cfg.Progress every 250ms until the returned stop
// is called.
func progress(cfg Config, start time.Time, done *atomic.Int64) (stop func()) {
	if cfg.Progress == nil {
		return func() {}
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				fmt.Fprint(cfg.Progress, "\r"+strings.Repeat(" ", 72)+"\r")
				return
			case <-tick.C:
				elapsed := time.Since(start)
				frac := 0.0
				if cfg.Duration > 0 {
					frac = elapsed.Seconds() / cfg.Duration.Seconds()
				} else if cfg.Requests > 0 {
					frac = float64(done.Load()) / float64(cfg.Requests)
				}
				frac = min(frac, 1)
				bar := strings.Repeat("=", int(frac*30)) + strings.Repeat(" ", 30-int(frac*30))
				fmt.Fprintf(cfg.Progress, "\r[%s] %3.0f%% %9d calls %9.0f/s", bar, frac*100, done.Load(), float64(done.Load())/elapsed.Seconds())
			}
		}
	}()
	return func() { close(quit); <-finished }
}
