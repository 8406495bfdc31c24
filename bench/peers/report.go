package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// report is everything the results file says.
type report struct {
	Date     string      `json:"date"`
	Command  string      `json:"command"`
	Minutes  float64     `json:"minutes"`
	Machine  machine     `json:"machine"`
	Versions []version   `json:"versions"`
	Settings settings    `json:"settings"`
	SQS      []sqsSample `json:"sqs"`
	WS       []wsSample  `json:"ws"`
	Warnings []string    `json:"warnings,omitempty"`
}

// settings are the run's load parameters.
type settings struct {
	Rounds        int     `json:"rounds"`
	Duration      string  `json:"duration"`
	Warmup        string  `json:"warmup_elasticmq"`
	WarmupShort   string  `json:"warmup_others"`
	Concurrency   int     `json:"concurrency"`
	MessageSize   int     `json:"message_size"`
	WSConnections []int   `json:"ws_connections"`
	WSMessages    int     `json:"ws_messages"`
	WSRate        float64 `json:"ws_rate"`
	Rotate        bool    `json:"rotate"`
}

func (r *runner) report(argv []string, began time.Time) report {
	o := r.opts
	return report{
		Date:     began.Format("2006-01-02 15:04 MST"),
		Command:  "go run ./bench/peers " + strings.Join(argv[1:], " "),
		Minutes:  time.Since(began).Minutes(),
		Machine:  describeMachine(),
		Versions: r.versions(),
		Settings: settings{Rounds: o.rounds, Duration: o.duration.String(), Warmup: o.warmup.String(), WarmupShort: o.warmupShort.String(),
			Concurrency: o.concurrency, MessageSize: o.messageSize, WSConnections: o.wsConnections, WSMessages: o.wsMessages,
			WSRate: o.wsRate, Rotate: o.rotate},
		SQS:      r.sqs,
		WS:       r.ws,
		Warnings: r.warnings,
	}
}

// writeReport writes the markdown to path and stdout, and the samples as
// JSON beside it.
func writeReport(rep report, path string, stdout, stderr io.Writer) error {
	var b strings.Builder
	rep.markdown(&b)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	jsonPath := strings.TrimSuffix(path, ".md") + ".json"
	if err := os.WriteFile(jsonPath, raw, 0o644); err != nil {
		return err
	}
	io.WriteString(stdout, b.String())
	fmt.Fprintf(stderr, "peers: results in %s and %s\n", path, jsonPath)
	return nil
}

// markdown renders the report.
func (rep report) markdown(w io.Writer) {
	m, s := rep.Machine, rep.Settings
	fmt.Fprintf(w, "# Herald and its peers, side by side\n\n")
	fmt.Fprintf(w, "- Date: %s (the run took %.1f minutes)\n", rep.Date, rep.Minutes)
	fmt.Fprintf(w, "- Command: `%s`\n", rep.Command)
	fmt.Fprintf(w, "- Machine: %d CPUs (`nproc`), %s, %.1f GiB of memory, Linux %s\n", m.CPUs, m.CPUModel, m.MemoryGiB, m.Kernel)
	var vs []string
	for _, v := range rep.Versions {
		vs = append(vs, v.String())
	}
	fmt.Fprintf(w, "- Versions: %s\n", strings.Join(vs, "; "))
	order := "the same order every round"
	if s.Rotate {
		order = "the order rotated by one system each round"
	}
	fmt.Fprintf(w, "- Load: %d interleaved rounds, %s; SQS runs of %s, %d workers, %d-byte bodies; warm-up %s for ElasticMQ, %s for the others\n\n",
		s.Rounds, order, s.Duration, s.Concurrency, s.MessageSize, s.Warmup, s.WarmupShort)
	fmt.Fprintf(w, "Cells are the median over the rounds with the range (min–max) in brackets. A ratio is the system's figure over the ceiling's in the same round and scenario.\n\n")
	if len(rep.SQS) > 0 {
		rep.sqsTable(w, scenarioMix)
		rep.sqsTable(w, scenarioBatch10)
	}
	if len(rep.WS) > 0 {
		rep.wsTable(w)
	}
	rep.notes(w)
	if len(rep.SQS) > 0 {
		rep.sqsRounds(w)
	}
}

// systemsOf lists the systems of samples in the order of order.
func systemsOf(order []string, has func(string) bool) []string {
	return slices.DeleteFunc(slices.Clone(order), func(n string) bool { return !has(n) })
}

// sqsOK is the successful samples of system and scenario.
func (rep report) sqsOK(system, scenario string) []sqsSample {
	var out []sqsSample
	for _, s := range rep.SQS {
		if s.System == system && s.Scenario == scenario && s.Failed == "" {
			out = append(out, s)
		}
	}
	return out
}

// ratio is s's throughput over the ceiling's in the same round and
// scenario: calls for the mix, messages for batches. ok is false without a
// ceiling sample.
func (rep report) ratio(s sqsSample) (float64, bool) {
	for _, c := range rep.SQS {
		if c.System == sysCeiling && c.Round == s.Round && c.Scenario == s.Scenario && c.Failed == "" {
			if s.Scenario == scenarioBatch10 && c.MessagesPerSec > 0 {
				return s.MessagesPerSec / c.MessagesPerSec, true
			}
			if c.CallsPerSec > 0 {
				return s.CallsPerSec / c.CallsPerSec, true
			}
		}
	}
	return 0, false
}

func (rep report) ratios(samples []sqsSample) stat {
	var rs []float64
	for _, s := range samples {
		if r, ok := rep.ratio(s); ok {
			rs = append(rs, r)
		}
	}
	return summarize(rs)
}

func (rep report) sqsTable(w io.Writer, scenario string) {
	s := rep.Settings
	systems := systemsOf(sqsSystems, func(n string) bool {
		return slices.ContainsFunc(rep.SQS, func(x sqsSample) bool { return x.System == n && x.Scenario == scenario })
	})
	if scenario == scenarioMix {
		fmt.Fprintf(w, "## SQS mix: send, receive, delete (%d workers, %d-byte bodies, %s a run)\n\n", s.Concurrency, s.MessageSize, s.Duration)
		fmt.Fprintf(w, "| system | calls/s | ratio to ceiling | p50 ms | p99 ms | errors | server CPU-s per 1,000 calls | client CPU-s per 1,000 calls | server RSS MiB, peak / end |\n")
		fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---|---:|---:|\n")
	} else {
		fmt.Fprintf(w, "## SQS mix in batches of 10 (SendMessageBatch, ReceiveMessage of up to 10, DeleteMessageBatch)\n\n")
		fmt.Fprintf(w, "| system | messages sent/s | ratio to ceiling (messages) | calls/s | p50 ms | p99 ms | errors | server CPU-s per 1,000 calls | server CPU-s per 1,000 messages | server RSS MiB, peak / end |\n")
		fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|\n")
	}
	for _, name := range systems {
		ok := rep.sqsOK(name, scenario)
		failed := 0
		errors := 0
		for _, x := range rep.SQS {
			if x.System == name && x.Scenario == scenario {
				if x.Failed != "" {
					failed++
				}
				errors += x.Errors
			}
		}
		errCell := fmt.Sprint(errors)
		if failed > 0 {
			errCell += fmt.Sprintf(" (%d runs failed)", failed)
		}
		ratio := rep.ratios(ok).format(3)
		if name == sysCeiling {
			ratio = "1"
		}
		cpu := summarize(collect(ok, func(x sqsSample) float64 { return x.cpuPer1000(x.ServerCPU) })).format(3) + servicesCPU(ok)
		var peak, end float64
		for _, x := range ok {
			peak = max(peak, float64(x.Memory.HWM)/(1<<20))
			end = float64(x.Memory.RSS) / (1 << 20)
		}
		p50 := summarize(collect(ok, func(x sqsSample) float64 { return x.P50ms })).format(2)
		p99 := summarize(collect(ok, func(x sqsSample) float64 { return x.P99ms })).format(2)
		calls := summarize(collect(ok, func(x sqsSample) float64 { return x.CallsPerSec })).format(0)
		mem := fmt.Sprintf("%.0f / %.0f", peak, end)
		if scenario == scenarioMix {
			client := summarize(collect(ok, func(x sqsSample) float64 { return x.cpuPer1000(x.ClientCPU) })).format(3)
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", labels[name], calls, ratio, p50, p99, errCell, cpu, client, mem)
		} else {
			msgs := summarize(collect(ok, func(x sqsSample) float64 { return x.MessagesPerSec })).format(0)
			perMsg := summarize(collect(ok, func(x sqsSample) float64 { return x.cpuPer1000Messages(x.ServerCPU) })).format(4)
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", labels[name], msgs, ratio, calls, p50, p99, errCell, cpu, perMsg, mem)
		}
	}
	fmt.Fprintln(w)
}

// servicesCPU renders the CPU of the services a server used, per 1,000
// calls: "; + Cassandra 0.310, Redis 0.050".
func servicesCPU(samples []sqsSample) string {
	names := map[string]bool{}
	for _, x := range samples {
		for n := range x.ServiceCPU {
			names[n] = true
		}
	}
	if len(names) == 0 {
		return ""
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var parts []string
	for _, n := range sorted {
		st := summarize(collect(samples, func(x sqsSample) float64 { return x.cpuPer1000(x.ServiceCPU[n]) }))
		parts = append(parts, n+" "+st.format(3))
	}
	return "; + " + strings.Join(parts, ", ")
}

func (rep report) wsTable(w io.Writer) {
	s := rep.Settings
	fmt.Fprintf(w, "## WebSocket fan-out: every connection on one channel, %d messages at %g/s\n\n", s.WSMessages, s.WSRate)
	fmt.Fprintf(w, "| system | connections | p50 ms | p99 ms | p99 over the TCP floor's | delivered / expected | lost | KiB resident per connection | KiB heap per connection | server CPU-s a run |\n")
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, n := range s.WSConnections {
		systems := systemsOf(wsSystems, func(name string) bool {
			return slices.ContainsFunc(rep.WS, func(x wsSample) bool { return x.System == name && x.Connections == n })
		})
		for _, name := range systems {
			var ok []wsSample
			var delivered, expected, lost int64
			failed := 0
			for _, x := range rep.WS {
				if x.System != name || x.Connections != n {
					continue
				}
				delivered, expected, lost = delivered+x.Delivered, expected+x.Expected, lost+x.Lost
				if x.Failed != "" {
					failed++
					continue
				}
				ok = append(ok, x)
			}
			var overFloor []float64
			for _, x := range ok {
				if f, found := rep.floor(x); found && f > 0 {
					overFloor = append(overFloor, x.P99ms/f)
				}
			}
			lostCell := fmt.Sprint(lost)
			if failed > 0 {
				lostCell += fmt.Sprintf(" (%d runs failed)", failed)
			}
			mem, heap, cpu := "–", "–", "–"
			if name != sysTCPFloor {
				mem = summarize(collect(ok, func(x wsSample) float64 { return x.ResidentPerConn / 1024 })).format(1)
				heap = summarize(collect(ok, func(x wsSample) float64 { return x.HeapPerConn / 1024 })).format(1)
				cpu = summarize(collect(ok, func(x wsSample) float64 { return x.ServerCPU })).format(2)
			}
			ratio := summarize(overFloor).format(2)
			if name == sysTCPFloor {
				ratio = "1"
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %d / %d | %s | %s | %s | %s |\n", labels[name], n,
				summarize(collect(ok, func(x wsSample) float64 { return x.P50ms })).format(2),
				summarize(collect(ok, func(x wsSample) float64 { return x.P99ms })).format(2),
				ratio, delivered, expected, lostCell, mem, heap, cpu)
		}
	}
	fmt.Fprintln(w)
}

// floor is the p99 of the TCP floor in x's round at x's connections.
func (rep report) floor(x wsSample) (float64, bool) {
	for _, f := range rep.WS {
		if f.System == sysTCPFloor && f.Round == x.Round && f.Connections == x.Connections && f.Failed == "" {
			return f.P99ms, true
		}
	}
	return 0, false
}

// sqsRounds lists every SQS run, so that the medians can be checked.
func (rep report) sqsRounds(w io.Writer) {
	fmt.Fprintf(w, "## Every SQS run\n\n")
	fmt.Fprintf(w, "| round | system | scenario | calls/s | messages sent/s | ratio | p99 ms | errors | server CPU-s | client CPU-s | other servers' CPU-s (idle) |\n")
	fmt.Fprintf(w, "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range rep.SQS {
		if s.Failed != "" {
			fmt.Fprintf(w, "| %d | %s | %s | failed: %s | | | | | | | |\n", s.Round, s.System, s.Scenario, strings.ReplaceAll(s.Failed, "|", "/"))
			continue
		}
		ratio := "–"
		if r, ok := rep.ratio(s); ok {
			ratio = fmt.Sprintf("%.3f", r)
		}
		fmt.Fprintf(w, "| %d | %s | %s | %.0f | %.0f | %s | %.2f | %d | %.2f | %.2f | %.2f |\n", s.Round, s.System, s.Scenario,
			s.CallsPerSec, s.MessagesPerSec, ratio, s.P99ms, s.Errors, s.ServerCPU, s.ClientCPU, s.IdleCPU)
	}
	fmt.Fprintln(w)
}

// notes says what makes each comparison unfair, for the systems the run
// measured.
func (rep report) notes(w io.Writer) {
	has := func(name string) bool {
		return slices.ContainsFunc(rep.SQS, func(x sqsSample) bool { return x.System == name }) ||
			slices.ContainsFunc(rep.WS, func(x wsSample) bool { return x.System == name })
	}
	fmt.Fprintf(w, "## What makes these comparisons unfair\n\n")
	var idle float64
	idleMost := ""
	for _, s := range rep.SQS {
		if s.Seconds > 0 && s.IdleCPU/s.Seconds > idle {
			idle = s.IdleCPU / s.Seconds
			top := 0.0
			for name, v := range s.IdleBy {
				if v > top {
					top, idleMost = v, name
				}
			}
		}
	}
	if idleMost != "" {
		idleMost = ", most of it " + idleMost + "'s"
	}
	notes := []struct {
		system, text string
	}{
		{"", fmt.Sprintf("The load generator (`herald bench`) and every server share the same %d cores: a system that costs the client more CPU per call leaves itself less. Server CPU-seconds per call separate the systems better than throughput does. All servers run for the whole benchmark, idle while another is measured: at most %.2f CPU-seconds a second between them here%s.", rep.Machine.CPUs, idle, idleMost)},
		{sysCeiling, "The ceiling keeps nothing: it answers from fixed replies, reading only entry ids, the bodies to hash and MaxNumberOfMessages."},
		{sysHerald, "Herald embedded is durable: every send is written to its Pebble store and fsynced (group commit) before the answer; receive states and deletes are written too, without waiting for the sync. Every peer keeps messages in memory only."},
		{sysHeraldCassandra, "Herald on Cassandra + Redis stores messages in Cassandra (one node, on the same machine and cores) and its index in Redis; their CPU is counted apart, after the +."},
		{sysFauxqs, "fauxqs is single-threaded Node.js (its JavaScript uses one core at most), in memory; started without its per-request log."},
		{sysElasticMQ, "ElasticMQ runs on the JVM (Pekko HTTP, multi-threaded, default heap), in memory; it was warmed up first, since its JIT takes minutes under load to settle (compare its rounds: a figure still improving from one to the next was not at its steady state)."},
		{sysMoto, "moto is a Python test double (werkzeug's threaded server under the GIL), in memory; its requests are signed (SigV4, client CPU), as it tells SQS from S3 by the signature; started without its per-request log."},
		{sysCentrifugo, "Herald's fan-out publishes with a durable cache put (POST /v1/messages) and its connections are anonymous; Centrifugo's publishes go through its server API to memory only (no history), and each connection presents an HS256 JWT at connect. Memory per connection is what each server's resident memory and Go heap (its /metrics) grew by while the connections opened, over their count, in a server process started afresh for each run; tcpfloor has no server to measure."},
	}
	for _, n := range notes {
		if n.system == "" || has(n.system) {
			fmt.Fprintf(w, "- %s\n", n.text)
		}
	}
	for _, warning := range rep.Warnings {
		fmt.Fprintf(w, "- Warning: %s\n", warning)
	}
	fmt.Fprintln(w)
}
