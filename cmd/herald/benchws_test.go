package main

import (
	"io"
	"testing"
	"time"

	"github.com/heraldmq/herald/load/wsload"
)

func TestBenchWSFlags(t *testing.T) {
	cfg, err := parseBenchWSFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.load
	if cfg.jsonOut || l.Server != "http://127.0.0.1:4566" || l.Connections != 1000 || l.Patterns != 1 || l.Messages != 20 ||
		l.Rate != 2 || l.Timeout != 30*time.Second || l.DialConcurrency != 64 {
		t.Fatalf("defaults %+v", cfg)
	}
	cfg, err = parseBenchWSFlags([]string{"--server", "https://h:1", "--connections", "500", "--patterns", "50", "--messages", "7",
		"--rate", "0.5", "--timeout", "3s", "--dial-concurrency", "16", "--json"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	l = cfg.load
	if !cfg.jsonOut || l.Server != "https://h:1" || l.Connections != 500 || l.Patterns != 50 || l.Messages != 7 ||
		l.Rate != 0.5 || l.Timeout != 3*time.Second || l.DialConcurrency != 16 {
		t.Fatalf("parsed %+v", cfg)
	}
}

func TestBenchWSCentrifugoFlags(t *testing.T) {
	cfg, err := parseBenchWSFlags([]string{"--protocol", "centrifugo", "--centrifugo-api-key", "k", "--centrifugo-token-secret", "s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if l := cfg.load; l.Protocol != wsload.ProtocolCentrifugo || l.APIKey != "k" || l.TokenSecret != "s" {
		t.Fatalf("parsed %+v", l)
	}
	if _, err := parseBenchWSFlags([]string{"--protocol", "mqtt"}, io.Discard); err == nil {
		t.Fatal("--protocol mqtt accepted")
	}
}

func TestBenchWSRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--connections", "0"},
		{"--patterns", "0"},
		{"--connections", "10", "--patterns", "11"},
		{"--messages", "0"},
		{"--rate", "0"},
		{"--timeout", "0s"},
		{"--dial-concurrency", "0"},
		{"--server", "localhost:4566"},
		{"extra"},
	} {
		if _, err := parseBenchWSFlags(args, io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
