//go:build peers

package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/heraldmq/herald/load/wsload"
)

// TestCentrifugoMode runs `herald bench ws --protocol centrifugo`'s load
// against a real Centrifugo, configured as the benchmark configures it. It
// is built only with the tag peers (`go test -tags peers ./bench/peers`),
// as the project's test run installs no peers, and needs Centrifugo
// installed by `go run ./bench/peers --install-only`.
func TestCentrifugoMode(t *testing.T) {
	in := installer{dir: defaultCacheDir()}
	if _, err := os.Stat(in.path(centrifugoBin)); err != nil {
		t.Fatalf("Centrifugo is not installed (go run ./bench/peers --install-only): %v", err)
	}
	dir := t.TempDir()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	l, err := launcher{runDir: dir, in: in}.launch(sysCentrifugo, port)
	if err != nil {
		t.Fatal(err)
	}
	s, err := startServer(sysCentrifugo, port, l, filepath.Join(dir, "centrifugo.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := s.waitReady(ctx, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	res, err := wsload.Run(ctx, wsload.Config{Server: s.url, Protocol: wsload.ProtocolCentrifugo, APIKey: centrifugoAPIKey,
		TokenSecret: centrifugoTokenSecret, Connections: 50, Patterns: 2, Messages: 4, Rate: 20, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("%v\n%v", err, res)
	}
	if res.Connected != 50 || res.Published != 4 || res.Expected != 100 || res.Delivered != 100 || res.Lost != 0 ||
		res.Duplicates != 0 || res.Foreign != 0 || res.MemoryAfter == nil || res.MemoryAfter.ResidentBytes <= 0 {
		t.Fatalf("result:\n%v", res)
	}
	if err := s.alive(); err != nil {
		t.Fatal(err)
	}
}
