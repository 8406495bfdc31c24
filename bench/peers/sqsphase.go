package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/heraldmq/herald/load/sqsload"
)

// SQS scenarios: the default mix, and the same mix in batches of 10.
const (
	scenarioMix     = "mix"
	scenarioBatch10 = "batch10"
)

// sqsSample is one `herald bench sqs` run against one server.
type sqsSample struct {
	System         string  `json:"system"`
	Round          int     `json:"round"`
	Scenario       string  `json:"scenario"`
	Seconds        float64 `json:"seconds"`         // between the bench's marks, where CPU is read
	Elapsed        float64 `json:"elapsed_seconds"` // the bench's measured phase, as it reports it
	CallsPerSec    float64 `json:"calls_per_sec"`
	MessagesPerSec float64 `json:"messages_sent_per_sec"`
	Calls          int     `json:"calls"`
	Errors         int     `json:"errors"`
	FirstError     string  `json:"first_error,omitempty"`
	P50ms          float64 `json:"p50_ms"`
	P99ms          float64 `json:"p99_ms"`
	// ServerCPU is the CPU seconds of the server and its children over the
	// run; ServiceCPU that of the services it uses (Cassandra, Redis).
	ServerCPU  float64            `json:"server_cpu_s"`
	ServiceCPU map[string]float64 `json:"service_cpu_s,omitempty"`
	ClientCPU  float64            `json:"client_cpu_s"`
	// IdleCPU is what the other servers (and services), idle meanwhile,
	// used; IdleBy splits it by server.
	IdleCPU float64            `json:"idle_servers_cpu_s"`
	IdleBy  map[string]float64 `json:"idle_cpu_s_by_server,omitempty"`
	Memory  memory             `json:"server_memory"`
	Failed  string             `json:"failed,omitempty"`
}

// cpuPer1000 is the server's CPU seconds per 1,000 calls.
func (s sqsSample) cpuPer1000(cpu float64) float64 {
	if n := s.Calls + s.Errors; n > 0 {
		return cpu / float64(n) * 1000
	}
	return 0
}

// cpuPer1000Messages is the server's CPU seconds per 1,000 messages sent.
func (s sqsSample) cpuPer1000Messages(cpu float64) float64 {
	if n := s.MessagesPerSec * s.Elapsed; n > 0 {
		return cpu / n * 1000
	}
	return 0
}

// sqsArgs are the flags of `herald bench sqs` for a scenario.
func (r *runner) sqsArgs(s *server, scenario string, d time.Duration) []string {
	args := []string{"bench", "sqs", "--server", s.url, "--duration", d.String(),
		"--concurrency", strconv.Itoa(r.opts.concurrency), "--message-size", strconv.Itoa(r.opts.messageSize), "--json"}
	if scenario == scenarioBatch10 {
		args = append(args, "--batch", "10")
	}
	return append(args, s.benchArgs...)
}

// runSQS runs one scenario against s for d and measures it. CPU is read
// when the bench marks the start and the end of its measured phase, so
// that neither its set-up and clean-up nor the calls in flight at its end
// count.
func (r *runner) runSQS(ctx context.Context, s *server, scenario string, round int, d time.Duration) sqsSample {
	sample := sqsSample{System: s.name, Round: round, Scenario: scenario}
	if err := s.alive(); err != nil {
		sample.Failed = err.Error()
		return sample
	}
	cmd := exec.CommandContext(ctx, r.herald(), append(r.sqsArgs(s, scenario, d), "--marks")...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		sample.Failed = err.Error()
		return sample
	}
	var (
		before, after    map[int]float64
		clientA, clientB float64
		startAt, endAt   time.Time
		lastLine         string
		sc               = bufio.NewScanner(stderr)
		clientCPU        = func() float64 { st, _ := readStat(cmd.Process.Pid); return st.cpuSeconds() }
	)
	for sc.Scan() {
		switch line := sc.Text(); line {
		case sqsload.MarkLoadStart:
			before, clientA, startAt = r.cpuSnapshot(), clientCPU(), time.Now()
		case sqsload.MarkLoadEnd:
			after, clientB, endAt = r.cpuSnapshot(), clientCPU(), time.Now()
		default:
			lastLine = line
		}
	}
	runErr := cmd.Wait()
	sample.Memory, _ = treeMemory(s.pid())
	var rep sqsload.MixReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || runErr != nil {
		sample.Failed = failure(runErr, err, lastLine)
		return sample
	}
	if before == nil || after == nil {
		sample.Failed = "the bench marked no measured phase"
		return sample
	}
	sample.Seconds = endAt.Sub(startAt).Seconds()
	r.attribute(&sample, s, before, after)
	sample.ClientCPU = clientB - clientA
	sample.Elapsed = rep.Elapsed.Seconds()
	sample.CallsPerSec, sample.MessagesPerSec = rep.CallsPerSec, rep.SentPerSec
	sample.Calls, sample.Errors, sample.FirstError = rep.All.Calls, rep.All.Errors, rep.All.FirstError
	sample.P50ms, sample.P99ms = ms(rep.All.P50), ms(rep.All.P99)
	return sample
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// failure says why a bench run gave no report.
func failure(runErr, decodeErr error, stderr string) string {
	msg := strings.TrimSpace(stderr)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	switch {
	case runErr != nil && msg != "":
		return fmt.Sprintf("%v: %s", runErr, msg)
	case runErr != nil:
		return runErr.Error()
	default:
		return fmt.Sprintf("no report: %v", decodeErr)
	}
}
