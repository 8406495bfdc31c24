package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
)

// sortedPoints returns a tier's points by node count.
func sortedPoints(ps map[string]*point) []*point {
	out := make([]*point, 0, len(ps))
	for _, p := range ps {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *point) int { return a.Nodes - b.Nodes })
	return out
}

// writeTable prints one Markdown table per tier, a row per workload and
// step, as BENCHMARKS.md quotes it.
func writeTable(w io.Writer, names []string, results map[string]*tierResult) {
	header := "| workload | %s | calls/s | E | cores: Herald / Cassandra / Redis / client | CPU µs per call: Herald / Cassandra / Redis / RabbitMQ | paced at | p50 / p95 / p99 ms |\n|---|---:|---:|---:|---|---|---:|---|\n"
	row := func(name string, p *point, label string) {
		fmt.Fprintf(w, "| %s | %s | %.0f | %.2f | %.2f / %.2f / %.2f / %.2f | %.0f / %.0f / %.0f / %.0f | %.0f | %.2f / %.2f / %.2f |\n",
			name, label, p.PerS, p.Efficiency,
			p.Cores["herald"], p.Cores["cassandra"], p.Cores["redis"], p.Cores["client"],
			p.CPUPerCallUs["herald"], p.CPUPerCallUs["cassandra"], p.CPUPerCallUs["redis"], p.CPUPerCallUs["rabbitmq"],
			p.PacedPerS, p.P50ms, p.P95ms, p.P99ms)
	}
	tier := func(title, column string, pick func(*tierResult) map[string]*point, rf3 bool) {
		any := false
		for _, n := range names {
			if len(pick(results[n])) > 0 {
				any = true
			}
		}
		if !any {
			return
		}
		fmt.Fprintf(w, "%s\n\n", title)
		fmt.Fprintf(w, header, column)
		for _, n := range names {
			for _, p := range sortedPoints(pick(results[n])) {
				row(n, p, strconv.Itoa(p.Nodes))
			}
			if p := results[n].CassandraRF3; rf3 && p != nil {
				row(n, p, "3, RF 3")
			}
		}
		fmt.Fprintln(w)
	}
	tier("Herald tier (Herald nodes capped, Cassandra not)", "Herald nodes", func(r *tierResult) map[string]*point { return r.HeraldNodes }, false)
	tier("One Herald node, nothing capped", "Herald nodes", func(r *tierResult) map[string]*point {
		if r.OneNode == nil {
			return nil
		}
		return map[string]*point{"1": r.OneNode}
	}, false)
	tier("Cassandra tier (Cassandra nodes capped, Herald not; E of RF 3 is against RF 1 on the same ring)", "Cassandra nodes", func(r *tierResult) map[string]*point { return r.CassandraNodes }, true)
}
