package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/heraldmq/herald/load/alertload"
	"github.com/heraldmq/herald/load/wsload"
)

// runBenchAlert runs 'herald bench alert' (docs/benchmarks.md): a million
// set-top boxes, each with its own queue subscribed with a filter policy,
// some holding a WebSocket, and an alert to a state, a zip code and the
// whole country.
func runBenchAlert(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		cfg      alertload.Config
		jsonFile string
		plotFile string
	)
	fs := newFlagSet("bench alert", "bench alert [flags]   a nationwide alert to a million device queues, a share of them pushed live over WebSockets", stderr)
	fs.StringVar(&cfg.Server, "server", "http://127.0.0.1:4566", "Herald server to load (only ever this address)")
	fs.IntVar(&cfg.Devices, "devices", 1_000_000, "devices: a queue each, subscribed to the alert topic with a filter policy on its state and zip code")
	fs.IntVar(&cfg.Connected, "connected", -1, "devices holding a WebSocket (subscribe_queue on their queue) during the alerts; -1: 1% of the devices, at most 10,000")
	fs.IntVar(&cfg.Late, "late", -1, "offline devices that connect after the alerts and must get them then; -1: 1% of the devices, at most 1,000")
	fs.IntVar(&cfg.States, "states", 50, "states the devices are spread over")
	fs.IntVar(&cfg.Zips, "zips", 0, "zip codes the devices are spread over; 0: one per 100 devices")
	fs.IntVar(&cfg.Concurrency, "concurrency", 64, "workers creating, subscribing, connecting and reading back the devices")
	fs.DurationVar(&cfg.Timeout, "timeout", 5*time.Minute, "how long to wait for an alert to reach every matching queue and connected device")
	fs.DurationVar(&cfg.Idle, "idle", 0, "measure the server's CPU for this long, idle with every device created (0: not measured)")
	fs.BoolVar(&cfg.Keep, "keep", false, "do not delete the topic and queues afterwards")
	fs.StringVar(&cfg.Prefix, "prefix", "", "name of the topic and prefix of the queues (default: herald-bench-alert- and a random number)")
	signing := signingFlags{&cfg.AccessKey, &cfg.SecretKey, &cfg.Region}
	signing.register(fs, "services sns and sqs")
	fs.StringVar(&jsonFile, "json", "", "also write the report as JSON to this file")
	fs.StringVar(&plotFile, "plot", "", "also draw each alert's progress (queues holding it, connected devices with it, against time) to this .png or .svg file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench alert: unexpected argument %q", fs.Arg(0))
	}
	if err := signing.check(); err != nil {
		return fmt.Errorf("bench alert: %w", err)
	}
	if _, err := wsload.RaiseFileLimit(); err != nil {
		fmt.Fprintf(stderr, "bench alert: raising the open-file limit: %v\n", err)
	}
	cfg.Progress = terminalProgress(stderr)
	report, err := alertload.Run(ctx, cfg)
	fmt.Fprint(stdout, report)
	if jsonFile != "" {
		b, jerr := json.MarshalIndent(report, "", "  ")
		if jerr == nil {
			jerr = os.WriteFile(jsonFile, append(b, '\n'), 0o644)
		}
		if jerr != nil && err == nil {
			err = jerr
		}
	}
	if plotFile != "" && len(report.Alerts) > 0 {
		if perr := alertload.Plot(plotFile, report); perr != nil && err == nil {
			err = perr
		}
	}
	if err != nil {
		return fmt.Errorf("bench alert: %w", err)
	}
	return nil
}
