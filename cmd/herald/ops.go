package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald/internal/buildinfo"
	"github.com/heraldmq/herald/metrics"
)

// opsConfig is what an operator sets about logs and metrics.
type opsConfig struct {
	logFormat         string
	accessLog         bool
	metricsQueueLimit int
}

func (c *opsConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.logFormat, "log-format", "text", "log format: text (key=value) or json (one JSON object a line)")
	fs.BoolVar(&c.accessLog, "access-log", false, "log every HTTP request answered (method, path, route, status, duration, remote address) at info level")
	fs.IntVar(&c.metricsQueueLimit, "metrics-queue-limit", 100, "most SQS queues /metrics shows per-queue series of (the deepest when there are more); 0 turns per-queue series off")
}

func (c opsConfig) validate() error {
	switch {
	case c.logFormat != "text" && c.logFormat != "json":
		return fmt.Errorf("--log-format %q: the formats are text and json", c.logFormat)
	case c.metricsQueueLimit < 0:
		return fmt.Errorf("--metrics-queue-limit %d: must be 0 (off) or more", c.metricsQueueLimit)
	}
	return nil
}

// newLogger returns the server's logger in the chosen level and format.
func newLogger(level, format string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		return nil, fmt.Errorf("--log-level %q: %v", level, err)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: the formats are text and json", format)
}

// registerOpsMetrics exposes herald_build_info, the embedded store's size,
// the SQS message totals and the bounded per-queue series.
func registerOpsMetrics(reg prometheus.Registerer, e *engine, q *queueService, queueLimit int) {
	reg.MustRegister(metrics.BuildInfo(buildinfo.Get()))
	if e.diskUsage != nil {
		reg.MustRegister(metrics.StoreSize(e.diskUsage))
	}
	reg.MustRegister(e.collectors...)
	st := q.svc.Stats()
	reg.MustRegister(
		metrics.Counter("herald_sqs_messages_sent_total", "SQS messages sent through this node (duplicates of a FIFO deduplication left out).", nil, &st.MessagesSent),
		metrics.Counter("herald_sqs_messages_received_total", "SQS messages handed out by ReceiveMessage on this node.", nil, &st.MessagesReceived),
		metrics.Counter("herald_sqs_messages_deleted_total", "SQS messages deleted through this node (DeleteMessage, DeleteMessageBatch).", nil, &st.MessagesDeleted),
		metrics.Counter("herald_sqs_messages_dead_lettered_total", "SQS messages this node moved to a dead-letter queue after maxReceiveCount receives.", nil, &st.MessagesDeadLettered),
		metrics.GaugeOf("herald_sqs_queues_tracked", "SQS queues this node has served since it started: those the per-queue series are chosen from.", nil,
			func() float64 { return float64(q.svc.TrackedQueues()) }),
		metrics.NewQueueCollector(q.svc, queueLimit),
	)
}

// runVersion prints which Herald this is: one line, or JSON with --json.
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "version [--json]", stderr)
	asJSON := fs.Bool("json", false, "print the version, commit and Go version as a JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("version takes no arguments, got %q", fs.Args())
	}
	info := buildinfo.Get()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(info)
	}
	_, err := fmt.Fprintln(stdout, info)
	return err
}
