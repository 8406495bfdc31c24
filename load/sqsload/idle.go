package sqsload

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/heraldmq/herald/load/loadgen"
)

// IdleQueuesReport is what the idle-queues scenario measured: how long
// creating the queues took and how much server memory they hold.
type IdleQueuesReport struct {
	Scenario     string         `json:"scenario"`
	Server       string         `json:"server"`
	Concurrency  int            `json:"concurrency"`
	Queues       int            `json:"queues"`  // asked for
	Created      int            `json:"created"` // created without error
	Elapsed      time.Duration  `json:"elapsed_ns"`
	QueuesPerSec float64        `json:"queues_per_sec"`
	Create       loadgen.Result `json:"create"`
	// Before and After are the server's memory before the first and after
	// the last CreateQueue (and Settle); nil when /metrics could not be read.
	Before                 *Memory         `json:"memory_before,omitempty"`
	After                  *Memory         `json:"memory_after,omitempty"`
	ResidentDeltaBytes     float64         `json:"resident_delta_bytes"`
	HeapInuseDeltaBytes    float64         `json:"heap_inuse_delta_bytes"`
	ResidentBytesPerQueue  float64         `json:"resident_bytes_per_queue"`
	HeapInuseBytesPerQueue float64         `json:"heap_inuse_bytes_per_queue"`
	MemoryError            string          `json:"memory_error,omitempty"`
	Delete                 *loadgen.Result `json:"delete,omitempty"` // nil with Keep
	QueuesLeft             string          `json:"queues_left,omitempty"`
}

// String renders the report for a terminal.
func (r IdleQueuesReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sqs idle-queues: created %d of %d queues in %s (%.0f queues/s) from %d workers\n",
		r.Created, r.Queues, r.Elapsed.Round(time.Millisecond), r.QueuesPerSec, r.Concurrency)
	fmt.Fprintln(&b, r.Create)
	if r.Before != nil && r.After != nil {
		fmt.Fprintf(&b, "server memory: resident %s → %s (%+.1f MiB, %.0f bytes/queue); heap in use %s → %s (%+.1f MiB, %.0f bytes/queue)\n",
			mib(r.Before.ResidentBytes), mib(r.After.ResidentBytes), r.ResidentDeltaBytes/(1<<20), r.ResidentBytesPerQueue,
			mib(r.Before.HeapInuseBytes), mib(r.After.HeapInuseBytes), r.HeapInuseDeltaBytes/(1<<20), r.HeapInuseBytesPerQueue)
	}
	if r.MemoryError != "" {
		fmt.Fprintf(&b, "server memory: %s\n", r.MemoryError)
	}
	if r.Delete != nil {
		fmt.Fprintln(&b, *r.Delete)
	}
	if r.QueuesLeft != "" {
		fmt.Fprintf(&b, "queues left on the server: %s-*\n", r.QueuesLeft)
	}
	return b.String()
}

func mib(bytes float64) string { return fmt.Sprintf("%.1f MiB", bytes/(1<<20)) }

// RunIdleQueues creates cfg.Queues empty queues as fast as cfg.Concurrency
// workers can, reading the server's memory from /metrics before and after,
// and deletes them again unless cfg.Keep.
func RunIdleQueues(ctx context.Context, cfg Config) (report IdleQueuesReport, err error) {
	if cfg, err = cfg.withDefaults(); err != nil {
		return IdleQueuesReport{}, err
	}
	c := cfg.client()
	defer c.Close()
	report = IdleQueuesReport{Scenario: "idle-queues", Server: cfg.Server, Concurrency: cfg.Concurrency, Queues: cfg.Queues}

	before, beforeErr := c.ReadMemory(ctx)
	urls, created := createQueues(ctx, c, cfg, cfg.Queues, cfg.Progress)
	report.Create, report.Created, report.Elapsed = created, len(urls), created.Elapsed
	if created.Elapsed > 0 {
		report.QueuesPerSec = float64(len(urls)) / created.Elapsed.Seconds()
	}
	if cfg.Settle > 0 {
		select {
		case <-time.After(cfg.Settle):
		case <-ctx.Done():
		}
	}
	after, afterErr := c.ReadMemory(ctx)
	switch {
	case beforeErr != nil:
		report.MemoryError = beforeErr.Error()
	case afterErr != nil:
		report.MemoryError = afterErr.Error()
	default:
		report.Before, report.After = &before, &after
		report.ResidentDeltaBytes = after.ResidentBytes - before.ResidentBytes
		report.HeapInuseDeltaBytes = after.HeapInuseBytes - before.HeapInuseBytes
		if len(urls) > 0 {
			report.ResidentBytesPerQueue = report.ResidentDeltaBytes / float64(len(urls))
			report.HeapInuseBytesPerQueue = report.HeapInuseDeltaBytes / float64(len(urls))
		}
	}

	// An interrupted run leaves its queues: deleting 100k of them takes as
	// long as creating them, and the user asked to stop.
	if cfg.Keep || ctx.Err() != nil {
		report.QueuesLeft = cfg.QueuePrefix
	} else {
		d := deleteQueues(ctx, c, urls, cfg.Concurrency, cfg.Progress)
		report.Delete = &d
		if d.Errors > 0 {
			report.QueuesLeft = cfg.QueuePrefix
		}
	}
	if created.Errors > 0 {
		return report, fmt.Errorf("creating queues: %d of %d failed, first: %s", created.Errors, cfg.Queues, created.FirstError)
	}
	return report, nil
}
