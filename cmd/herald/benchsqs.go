package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/heraldmq/herald/load/sqsload"
)

// benchSQSConfig is what 'herald bench sqs' is told.
type benchSQSConfig struct {
	scenario string // mix or idle-queues
	load     sqsload.Config
	jsonOut  bool
	marks    bool
}

// parseBenchSQSFlags reads the flags of 'herald bench sqs'.
func parseBenchSQSFlags(args []string, stderr io.Writer) (benchSQSConfig, error) {
	var (
		cfg benchSQSConfig
		mix string
		lc  = &cfg.load
	)
	fs := newFlagSet("bench sqs", "bench sqs [flags]   load a running server's SQS API", stderr)
	fs.StringVar(&cfg.scenario, "scenario", "mix", "mix: run --mix from every worker; idle-queues: create --queues queues and report the time and the server's memory per queue")
	fs.StringVar(&lc.Server, "server", "http://127.0.0.1:4566", "Herald server to load (only ever this address)")
	fs.IntVar(&lc.Concurrency, "concurrency", 64, "concurrent workers, each with its own keep-alive connection")
	fs.DurationVar(&lc.Duration, "duration", 10*time.Second, "how long the mix runs (0: until --requests)")
	fs.IntVar(&lc.Requests, "requests", 0, "stop the mix after this many worker cycles (0: run for --duration)")
	fs.Float64Var(&lc.Rate, "rate", 0, "pace the mix at this many worker cycles per second in all (each cycle makes the mix's calls, e.g. 3 for send=1,receive=1,delete=1); latencies then count from when each cycle was due; 0 runs flat out")
	fs.IntVar(&lc.Queues, "queues", 1, "queues the mix spreads over; with --scenario idle-queues, queues to create")
	fs.IntVar(&lc.Batch, "batch", 1, "messages per send and delete call, and at most per receive (1..10; above 1 the Batch actions are used)")
	fs.IntVar(&lc.MessageSize, "message-size", 1024, "bytes of every message body")
	fs.StringVar(&mix, "mix", "send=1,receive=1,delete=1", "each worker's cycle: send=N sends, receive=N receives, delete=1 deletes what was received; e.g. send, or receive against pre-filled queues")
	fs.IntVar(&lc.Wait, "wait", 0, "ReceiveMessage WaitTimeSeconds (0..20)")
	fs.IntVar(&lc.Visibility, "visibility-timeout", -1, "ReceiveMessage VisibilityTimeout; -1: 0 when the mix receives without deleting, else the queue's")
	fs.IntVar(&lc.Prefill, "prefill", -1, "messages sent to each queue before the mix starts; -1: 1000 when the mix receives without sending, else 0")
	fs.BoolVar(&lc.Keep, "keep", false, "do not delete the benchmark's queues afterwards")
	fs.StringVar(&lc.QueuePrefix, "queue-prefix", "", "name prefix of the benchmark's queues (default: herald-bench- and a random word)")
	fs.DurationVar(&lc.Settle, "settle", time.Second, "idle-queues: wait this long after the last CreateQueue before reading the server's memory")
	signing := signingFlags{&lc.AccessKey, &lc.SecretKey, &lc.Region}
	signing.register(fs, "service sqs")
	fs.BoolVar(&cfg.marks, "marks", false, "mix: write a line to stderr as the measured phase starts and as it ends, for a harness reading the server's CPU from outside (bench/peers)")
	fs.BoolVar(&cfg.jsonOut, "json", false, "print the results as JSON instead of text")
	if err := parseFlags(fs, args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("bench sqs: unexpected argument %q", fs.Arg(0))
	}
	if err := sqsScenarios(cfg.load).check(cfg.scenario); err != nil {
		return cfg, fmt.Errorf("bench sqs: %w", err)
	}
	if err := signing.check(); err != nil {
		return cfg, fmt.Errorf("bench sqs: %w", err)
	}
	m, err := sqsload.ParseMix(mix)
	if err != nil {
		return cfg, fmt.Errorf("bench sqs: --mix: %w", err)
	}
	lc.Mix = m
	if err := lc.Validate(); err != nil {
		return cfg, fmt.Errorf("bench sqs: %w", err)
	}
	return cfg, nil
}

func runBenchSQS(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseBenchSQSFlags(args, stderr)
	if err != nil {
		return err
	}
	if w := terminalProgress(stderr); w != nil {
		cfg.load.Progress = w
	}
	if cfg.marks {
		cfg.load.Marks = stderr
	}
	return sqsScenarios(cfg.load).run(ctx, cfg.scenario, stdout, cfg.jsonOut)
}

// sqsScenarios are the runs of 'herald bench sqs'.
func sqsScenarios(cfg sqsload.Config) scenarios {
	return scenarios{
		"mix":         func(ctx context.Context) (fmt.Stringer, error) { return sqsload.RunMix(ctx, cfg) },
		"idle-queues": func(ctx context.Context) (fmt.Stringer, error) { return sqsload.RunIdleQueues(ctx, cfg) },
	}
}
