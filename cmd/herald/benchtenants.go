package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/heraldmq/herald/load/tenantload"
)

// runBenchTenants runs 'herald bench tenants' (docs/benchmarks.md): the
// noisy neighbour. Account B sends at a steady rate alone, then while
// account A floods the node at --flood times that rate.
func runBenchTenants(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		cfg      tenantload.Config
		jsonFile string
	)
	fs := newFlagSet("bench tenants", "bench tenants [flags]   one account floods a shared node while another sends steadily", stderr)
	fs.StringVar(&cfg.Server, "server", "http://127.0.0.1:4566", "Herald server to load (only ever this address)")
	fs.StringVar(&cfg.KeyA, "key-a", "", "the flooding account's access key, AKID:SECRET (the server's --aws-access-keys must put it in another account than --key-b)")
	fs.StringVar(&cfg.KeyB, "key-b", "", "the steady account's access key, AKID:SECRET")
	fs.StringVar(&cfg.Region, "region", "us-east-1", "region the keys sign for")
	fs.Float64Var(&cfg.RateB, "rate", 500, "the steady account's SendMessage calls per second")
	fs.Float64Var(&cfg.Flood, "flood", 10, "the flooding account sends at this many times --rate")
	fs.IntVar(&cfg.ConcurrencyB, "concurrency-b", 16, "the steady account's workers")
	fs.IntVar(&cfg.ConcurrencyA, "concurrency-a", 64, "the flooding account's workers")
	fs.DurationVar(&cfg.Duration, "duration", 20*time.Second, "length of each phase (B alone; B with A flooding)")
	fs.IntVar(&cfg.MessageSize, "message-size", 256, "bytes of every message body")
	fs.StringVar(&jsonFile, "json", "", "also write the report as JSON to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench tenants: unexpected argument %q", fs.Arg(0))
	}
	if cfg.KeyA == "" || cfg.KeyB == "" {
		return fmt.Errorf("bench tenants: --key-a and --key-b are needed (two accounts' keys)")
	}
	cfg.Progress = terminalProgress(stderr)
	report, err := tenantload.Run(ctx, cfg)
	if err != nil {
		return fmt.Errorf("bench tenants: %w", err)
	}
	fmt.Fprint(stdout, report)
	if jsonFile != "" {
		b, _ := json.MarshalIndent(report, "", "  ")
		if err := os.WriteFile(jsonFile, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}
