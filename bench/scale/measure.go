package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// point is one workload at one step of a tier: its throughput flat out,
// its efficiency against the tier's first step, the CPU each component
// spent per call, and the latencies at half that throughput, paced.
type point struct {
	Nodes int     `json:"nodes"`
	PerS  float64 `json:"per_s"` // the median of the rounds
	// Rounds are each flat-out round's calls/s.
	Rounds     []float64 `json:"per_s_rounds"`
	Efficiency float64   `json:"efficiency"`
	Errors     int       `json:"errors"`
	FirstError string    `json:"first_error,omitempty"`
	// CPU per call, µs, by component (herald, cassandra, redis, rabbitmq,
	// client), over the flat-out run.
	CPUPerCallUs map[string]float64 `json:"cpu_us_per_call"`
	// Cores each component used over the flat-out run: a capped tier near
	// its cap is the one saturated.
	Cores map[string]float64 `json:"cores"`
	// The paced run at half of PerS.
	PacedPerS float64 `json:"paced_per_s"`
	P50ms     float64 `json:"p50_ms"`
	P95ms     float64 `json:"p95_ms"`
	P99ms     float64 `json:"p99_ms"`
	PacedErr  int     `json:"paced_errors"`
}

// tierResult is a workload's points on both tiers, keyed by node count.
type tierResult struct {
	HeraldNodes    map[string]*point `json:"herald_nodes,omitempty"`
	CassandraNodes map[string]*point `json:"cassandra_nodes,omitempty"`
	// CassandraRF3 is the largest ring again at replication factor 3.
	CassandraRF3 *point `json:"cassandra_rf3,omitempty"`
	// OneNode is one Herald node with no tier capped: its peak on this
	// machine, and the latencies at half of it (CMB's target: p95 at most
	// 10 ms from the local data center).
	OneNode *point `json:"one_node_uncapped,omitempty"`
}

// component names a cgroup's tier.
func component(group string) string {
	switch {
	case strings.HasPrefix(group, "herald-"):
		return "herald"
	case strings.HasPrefix(group, "cassandra-"):
		return "cassandra"
	case strings.HasPrefix(group, "redis"):
		return "redis"
	default:
		return group // rabbitmq, client
	}
}

// measurer runs workloads against the cluster's current nodes.
type measurer struct {
	tier     string // names profiles: herald, cassandra, rf3, one
	c        *cluster
	opts     options
	log      io.Writer
	sequence int // names each run's queues and paths apart
}

// measure runs w flat out (after a warm-up), reading each group's CPU
// around it, then paced at half the throughput it found.
func (m *measurer) measure(ctx context.Context, w workload, nodes int) (*point, error) {
	m.sequence++
	urls := m.c.urls()
	l := load{servers: urls, concurrency: m.opts.perNode * len(urls), duration: m.opts.warmup,
		prefix: fmt.Sprintf("scale%d", m.sequence)}
	if _, err := w.run(ctx, l); err != nil {
		return nil, fmt.Errorf("%s warm-up: %w", w.name, err)
	}
	l.duration = m.opts.duration
	p := &point{Nodes: nodes, CPUPerCallUs: map[string]float64{}, Cores: map[string]float64{}}
	var (
		calls   int
		elapsed time.Duration
		used    = map[string]time.Duration{}
	)
	for round := range max(1, m.opts.rounds) {
		var profiled chan error
		if round == 0 && m.opts.pprofDir != "" && m.c.nodes[0].pprof != "" {
			profiled = make(chan error, 1)
			name := filepath.Join(m.opts.pprofDir, fmt.Sprintf("%s-%s-%d.pprof", w.name, m.tier, nodes))
			go func() { profiled <- fetchProfile(ctx, m.c.nodes[0].pprof, l.duration, name) }()
		}
		before, err := m.c.cpu()
		if err != nil {
			return nil, err
		}
		flat, err := w.run(ctx, l)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.name, err)
		}
		after, err := m.c.cpu()
		if err != nil {
			return nil, err
		}
		for g, t := range after {
			used[component(g)] += t - before[g]
		}
		calls += flat.Calls
		elapsed += flat.Elapsed
		p.Rounds = append(p.Rounds, flat.perSecond())
		if profiled != nil {
			if err := <-profiled; err != nil {
				fmt.Fprintf(m.log, "scale: profiling %s: %v\n", m.c.nodes[0].group, err)
			}
		}
		p.Errors += flat.Errors
		if p.FirstError == "" {
			p.FirstError = flat.FirstError
		}
	}
	p.PerS = median(p.Rounds)
	for comp, d := range used {
		if calls > 0 {
			p.CPUPerCallUs[comp] = float64(d.Microseconds()) / float64(calls)
		}
		if elapsed > 0 {
			p.Cores[comp] = d.Seconds() / elapsed.Seconds()
		}
	}
	fmt.Fprintf(m.log, "scale: %-10s %d node(s): %7.0f calls/s flat out (rounds %.0f), errors %d; cores %s; CPU µs/call %s\n",
		w.name, nodes, p.PerS, p.Rounds, p.Errors, fmtMap(p.Cores, "%.2f"), fmtMap(p.CPUPerCallUs, "%.0f"))
	if p.PerS <= 0 {
		return p, nil
	}
	l.rate = p.PerS / 2
	paced, err := w.run(ctx, l)
	if err != nil {
		return nil, fmt.Errorf("%s paced: %w", w.name, err)
	}
	p.PacedPerS, p.PacedErr = paced.perSecond(), paced.Errors
	p.P50ms, p.P95ms, p.P99ms = ms(paced.P50), ms(paced.P95), ms(paced.P99)
	fmt.Fprintf(m.log, "scale: %-10s %d node(s): paced at %.0f calls/s: p50 %.2f p95 %.2f p99 %.2f ms, errors %d\n",
		w.name, nodes, p.PacedPerS, p.P50ms, p.P95ms, p.P99ms, p.PacedErr)
	return p, nil
}

// fetchProfile writes a CPU profile of d from the profiler at base to
// path (see docs/operations.md, pprof).
func fetchProfile(ctx context.Context, base string, d time.Duration, path string) error {
	secs := max(1, int(d.Seconds()))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, secs), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// median of xs (the mean of the middle two for an even count).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fmtMap renders a small map in key order.
func fmtMap(m map[string]float64, format string) string {
	var b strings.Builder
	for _, k := range []string{"herald", "cassandra", "redis", "rabbitmq", "client"} {
		if v, ok := m[k]; ok {
			fmt.Fprintf(&b, " %s="+format, k, v)
		}
	}
	return strings.TrimSpace(b.String())
}

// efficiencies sets each point's E(N) = T(N) / (N/N0 · T(N0)), N0 being
// the tier's first step.
func efficiencies(points map[string]*point) {
	var first *point
	for _, p := range points {
		if first == nil || p.Nodes < first.Nodes {
			first = p
		}
	}
	if first == nil || first.PerS <= 0 {
		return
	}
	for _, p := range points {
		p.Efficiency = p.PerS / (float64(p.Nodes) / float64(first.Nodes) * first.PerS)
	}
}
