package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"github.com/heraldmq/herald/load/wsload"
)

// wsSample is one fan-out run: `herald bench ws` against a server, or
// bench/tcpfloor.
type wsSample struct {
	System      string  `json:"system"`
	Round       int     `json:"round"`
	Connections int     `json:"connections"`
	Connected   int     `json:"connected"`
	Expected    int64   `json:"expected"`
	Delivered   int64   `json:"delivered"`
	Lost        int64   `json:"lost"`
	P50ms       float64 `json:"p50_ms"`
	P99ms       float64 `json:"p99_ms"`
	// ResidentPerConn and HeapPerConn are the server's memory per open
	// connection as the bench reads it from the server's /metrics.
	ResidentPerConn float64 `json:"resident_bytes_per_connection"`
	HeapPerConn     float64 `json:"heap_bytes_per_connection"`
	ServerCPU       float64 `json:"server_cpu_s"`
	Memory          memory  `json:"server_memory"`
	Failed          string  `json:"failed,omitempty"`
}

// runWS runs `herald bench ws` against s with n connections.
func (r *runner) runWS(ctx context.Context, s *server, n, round int) wsSample {
	sample := wsSample{System: s.name, Round: round, Connections: n}
	if err := s.alive(); err != nil {
		sample.Failed = err.Error()
		return sample
	}
	args := append([]string{"bench", "ws", "--server", s.url, "--connections", strconv.Itoa(n),
		"--messages", strconv.Itoa(r.opts.wsMessages), "--rate", strconv.FormatFloat(r.opts.wsRate, 'g', -1, 64), "--json"}, s.benchArgs...)
	before := r.cpuSnapshot()
	cmd := exec.CommandContext(ctx, r.herald(), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	after := r.cpuSnapshot()
	sample.ServerCPU = after[s.pid()] - before[s.pid()]
	sample.Memory, _ = treeMemory(s.pid())
	var res wsload.Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || runErr != nil {
		sample.Failed = failure(runErr, err, stderr.String())
		if err != nil {
			return sample
		}
	}
	sample.Connected, sample.Expected, sample.Delivered, sample.Lost = res.Connected, res.Expected, res.Delivered, res.Lost
	sample.P50ms, sample.P99ms = res.Latency.P50, res.Latency.P99
	sample.ResidentPerConn, sample.HeapPerConn = res.ResidentBytesPerConnection, res.HeapBytesPerConnection
	return sample
}

// runTCPFloor runs bench/tcpfloor with n connections and as many rounds,
// as far apart, as the WebSocket runs publish messages.
func (r *runner) runTCPFloor(ctx context.Context, n, round int) wsSample {
	sample := wsSample{System: sysTCPFloor, Round: round, Connections: n}
	interval := time.Duration(float64(time.Second) / r.opts.wsRate)
	cmd := exec.CommandContext(ctx, r.tcpfloor(), "-connections", strconv.Itoa(n), "-rounds", strconv.Itoa(r.opts.wsMessages),
		"-interval", interval.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		sample.Failed = failure(err, nil, stderr.String())
		return sample
	}
	d, p50, p99, err := parseTCPFloor(stdout.String())
	if err != nil {
		sample.Failed = err.Error()
		return sample
	}
	sample.Connected, sample.Expected, sample.Delivered = n, int64(n*r.opts.wsMessages), d
	sample.Lost = max(sample.Expected-d, 0)
	sample.P50ms, sample.P99ms = p50, p99
	return sample
}

var tcpFloorLine = regexp.MustCompile(`deliveries (\d+): p50 (\S+), p90 \S+, p99 (\S+),`)

// parseTCPFloor reads tcpfloor's summary line: deliveries and the p50 and
// p99 latencies in milliseconds.
func parseTCPFloor(out string) (delivered int64, p50, p99 float64, err error) {
	m := tcpFloorLine.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, 0, fmt.Errorf("tcpfloor: no deliveries line in %q", out)
	}
	delivered, _ = strconv.ParseInt(m[1], 10, 64)
	d50, err1 := time.ParseDuration(m[2])
	d99, err2 := time.ParseDuration(m[3])
	if err1 != nil || err2 != nil {
		return 0, 0, 0, fmt.Errorf("tcpfloor: latencies %q, %q", m[2], m[3])
	}
	return delivered, ms(d50), ms(d99), nil
}
