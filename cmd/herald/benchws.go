package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/heraldmq/herald/load/wsload"
)

// benchWSConfig is what 'herald bench ws' is told.
type benchWSConfig struct {
	load    wsload.Config
	jsonOut bool
}

// parseBenchWSFlags reads the flags of 'herald bench ws'.
func parseBenchWSFlags(args []string, stderr io.Writer) (benchWSConfig, error) {
	var (
		cfg benchWSConfig
		lc  = &cfg.load
	)
	fs := newFlagSet("bench ws", "bench ws [flags]   measure a running server's WebSocket fan-out and memory per connection", stderr)
	fs.StringVar(&lc.Server, "server", "http://127.0.0.1:4566", "server to load (only ever this address); its WebSocket endpoint (Herald: /v1/ws, Centrifugo: /connection/websocket) is reached as ws:// or wss://")
	fs.StringVar(&lc.PublishServer, "publish-server", "", "Herald: publish through this node instead of --server (another node, or a node of another data center: the latency then includes the way between them); empty: --server")
	fs.StringVar(&lc.Protocol, "protocol", wsload.ProtocolHerald, "what the server speaks: herald, or centrifugo (its JSON client protocol, publishing through its server API /api/publish) to compare with a Centrifugo server")
	fs.StringVar(&lc.APIKey, "centrifugo-api-key", "", "with --protocol centrifugo: the server API key (http_api.key) publishes send")
	fs.StringVar(&lc.TokenSecret, "centrifugo-token-secret", "", "with --protocol centrifugo: the HMAC secret (client.token.hmac_secret_key) connection JWTs are signed with; empty: connect without a token")
	fs.IntVar(&lc.Connections, "connections", 1000, "WebSocket connections to open, each with one live subscription (BENCHMARKS.md uses 10000)")
	fs.IntVar(&lc.Patterns, "patterns", 1, "distinct patterns the connections subscribe to (connection i takes pattern i mod patterns); 1: every connection on one pattern, a fan-out to all")
	fs.IntVar(&lc.Messages, "messages", 20, "messages to publish (Herald: POST /v1/messages), spread over the patterns (or channels)")
	fs.Float64Var(&lc.Rate, "rate", 2, "messages published per second")
	fs.DurationVar(&lc.Timeout, "timeout", 30*time.Second, "longest connect and subscribe of one connection, and longest wait for the deliveries after the last publish")
	fs.IntVar(&lc.DialConcurrency, "dial-concurrency", 64, "connections being opened at once")
	fs.BoolVar(&cfg.jsonOut, "json", false, "print the results as JSON instead of text")
	if err := parseFlags(fs, args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("bench ws: unexpected argument %q", fs.Arg(0))
	}
	if lc.DialConcurrency < 1 {
		return cfg, fmt.Errorf("bench ws: dial-concurrency %d: want at least 1", lc.DialConcurrency)
	}
	if err := lc.Validate(); err != nil {
		return cfg, fmt.Errorf("bench ws: %w", err)
	}
	return cfg, nil
}

func runBenchWS(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseBenchWSFlags(args, stderr)
	if err != nil {
		return err
	}
	// Progress always goes to stderr: a run of 10,000 connections takes a
	// while, and stdout stays the report alone.
	cfg.load.Progress = stderr
	res, runErr := wsload.Run(ctx, cfg.load)
	if res == nil {
		return runErr
	}
	return writeReport(stdout, res, cfg.jsonOut, runErr)
}
