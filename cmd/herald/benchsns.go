package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/heraldmq/herald/load/snsload"
)

// benchSNSConfig is what 'herald bench sns' is told.
type benchSNSConfig struct {
	scenario string // http or queues
	load     snsload.Config
	jsonOut  bool
}

// parseBenchSNSFlags reads the flags of 'herald bench sns'.
func parseBenchSNSFlags(args []string, stderr io.Writer) (benchSNSConfig, error) {
	var (
		cfg benchSNSConfig
		lc  = &cfg.load
	)
	fs := newFlagSet("bench sns", "bench sns [flags]   measure a running server's SNS fan-out", stderr)
	fs.StringVar(&cfg.scenario, "scenario", "http", "http: publish to --subscribers local HTTP endpoints and measure deliveries/s and publish-to-arrival latency; queues: subscribe --subscribers queues, publish one message and measure when every queue has it")
	fs.StringVar(&lc.Server, "server", "http://127.0.0.1:4566", "Herald server to load (only ever this address)")
	fs.IntVar(&lc.Subscribers, "subscribers", 100, "HTTP endpoints (http) or queues (queues) subscribed to the topic (BENCHMARKS.md uses 1000 and 100000)")
	fs.IntVar(&lc.Listeners, "listeners", 10, "http: local ports (127.0.0.1) the HTTP subscribers are spread over")
	fs.IntVar(&lc.Concurrency, "concurrency", 64, "http: publishers; both: workers that subscribe, create, receive and delete")
	fs.Float64Var(&lc.Rate, "rate", 0, "http: publishes per second in all; latency then counts from when each was due; 0 publishes flat out")
	fs.DurationVar(&lc.Duration, "duration", 10*time.Second, "http: how long to publish")
	fs.IntVar(&lc.MessageSize, "message-size", 256, "bytes of every published message")
	fs.DurationVar(&lc.Drain, "drain", 5*time.Second, "http: how long to wait for late deliveries after the last publish before counting the missing as lost")
	fs.DurationVar(&lc.Timeout, "timeout", time.Minute, "how long to wait for the HTTP subscriptions to be confirmed, and (queues) for the message to reach every queue")
	fs.IntVar(&lc.Wait, "wait", 1, "queues: ReceiveMessage WaitTimeSeconds (0..20) of the polls")
	fs.BoolVar(&lc.Keep, "keep", false, "do not delete the benchmark's topic and queues afterwards")
	fs.StringVar(&lc.Prefix, "prefix", "", "name of the topic and name prefix of the queues (default: herald-bench-sns- and a random word)")
	signing := signingFlags{&lc.AccessKey, &lc.SecretKey, &lc.Region}
	signing.register(fs, "services sns and sqs")
	fs.BoolVar(&cfg.jsonOut, "json", false, "print the results as JSON instead of text")
	if err := parseFlags(fs, args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("bench sns: unexpected argument %q", fs.Arg(0))
	}
	if err := snsScenarios(cfg.load).check(cfg.scenario); err != nil {
		return cfg, fmt.Errorf("bench sns: %w", err)
	}
	if err := signing.check(); err != nil {
		return cfg, fmt.Errorf("bench sns: %w", err)
	}
	if err := lc.Validate(); err != nil {
		return cfg, fmt.Errorf("bench sns: %w", err)
	}
	return cfg, nil
}

func runBenchSNS(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseBenchSNSFlags(args, stderr)
	if err != nil {
		return err
	}
	if w := terminalProgress(stderr); w != nil {
		cfg.load.Progress = w
	}
	return snsScenarios(cfg.load).run(ctx, cfg.scenario, stdout, cfg.jsonOut)
}

// snsScenarios are the runs of 'herald bench sns'.
func snsScenarios(cfg snsload.Config) scenarios {
	return scenarios{
		"http":   func(ctx context.Context) (fmt.Stringer, error) { return snsload.RunHTTP(ctx, cfg) },
		"queues": func(ctx context.Context) (fmt.Stringer, error) { return snsload.RunQueues(ctx, cfg) },
	}
}
