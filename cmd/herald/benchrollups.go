package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/heraldmq/herald/load/rollups"
)

// runBenchRollups is 'herald bench rollups': the LoopLogic-shaped rollup
// load (load/rollups).
func runBenchRollups(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg rollups.Config
	var jsonOut bool
	fs := newFlagSet("bench rollups", "bench rollups [flags]   feed a rollup through an SQS queue of a running server and check its totals", stderr)
	fs.StringVar(&cfg.Server, "server", "http://127.0.0.1:4566", "Herald server to load (only ever this address)")
	limitEnv(fs, "server")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "how long events are sent (60s for the figures of BENCHMARKS.md)")
	fs.Float64Var(&cfg.Rate, "rate", 0, "events per second in all (0: as fast as the senders go)")
	fs.IntVar(&cfg.Senders, "senders", 4, "concurrent SendMessageBatch callers (the queue door)")
	fs.IntVar(&cfg.APISenders, "api-senders", 0, "concurrent POST /v1/rollups/NAME/events callers (the API door)")
	fs.Float64Var(&cfg.Overlap, "overlap", 0, "fraction of each batch made of events another sender sent before, the other door's first (0 to 1): redeliveries and retries")
	fs.IntVar(&cfg.EventsPerMessage, "events-per-message", 10, "events packed in one message")
	fs.IntVar(&cfg.Channels, "channels", 20, "distinct channels (Zipf); videos are 10 per channel")
	fs.StringVar(&cfg.Name, "name", "", "rollup and queue name (default bench-<unix time>)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the rollup and its queue afterwards")
	fs.BoolVar(&cfg.Plain, "plain", false, "count viewers and first_time as sums of deltas, not as distinct and first_seen metrics of the events' viewer")
	fs.BoolVar(&jsonOut, "json", false, "print the report as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	cfg.Progress = stderr
	rep, err := rollups.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
		return benchRollupsVerdict(rep)
	}
	fmt.Fprintf(stdout, "events %d in %d messages over %.1fs; %.0f events/s counted (%d rows, %d counters per event: %.0f counter updates/s)\n",
		rep.Events, rep.Messages, rep.Seconds, rep.EventsPerSecond, rep.RowsPerEvent, rep.CountersPerEvent, rep.CounterUpdatesPerS)
	if cfg.Overlap > 0 || cfg.APISenders > 0 {
		fmt.Fprintf(stdout, "%d events sent a second time by another sender (%.0f%% of all sent); the API door answered %d as duplicates\n",
			rep.Resent, 100*float64(rep.Resent)/float64(max(rep.Events+rep.Resent, 1)), rep.APIDuplicates)
	}
	fmt.Fprintf(stdout, "settled %s after the last send; freshness p50 %s, p99 %s over %d probes\n",
		rep.Settled.Round(time.Millisecond), rep.FreshnessP50.Round(time.Millisecond), rep.FreshnessP99.Round(time.Millisecond), rep.FreshnessProbes)
	if rep.Errors > 0 {
		fmt.Fprintf(stdout, "%d failed calls (each retried); the first: %s\n", rep.Errors, rep.FirstError)
	}
	if rep.Exact {
		fmt.Fprintln(stdout, "totals equal to the reference: exact")
	}
	return benchRollupsVerdict(rep)
}

// benchRollupsVerdict fails a run whose totals are off or whose calls
// failed, whatever the output's form.
func benchRollupsVerdict(rep rollups.Report) error {
	if !rep.Exact {
		return fmt.Errorf("totals differ from the reference: %v", rep.Mismatches[:min(5, len(rep.Mismatches))])
	}
	if rep.Errors > 0 {
		return fmt.Errorf("%d calls failed", rep.Errors)
	}
	return nil
}
