package cassandrastore

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald/metrics"
)

// Collector exports the store's own figures on /metrics: the replication
// lag from each other data center (ReplicationLag).
func (st *Store) Collector() prometheus.Collector { return lagCollector{st} }

var lagDesc = prometheus.NewDesc("herald_dc_replication_lag_seconds",
	"How old the newest heartbeat of another data center seen in this node's data center is: replication lag from it plus up to 1 s. Grows by 1 s a second while the link is cut or that data center is down.",
	[]string{"peer"}, nil)

type lagCollector struct{ st *Store }

func (c lagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- lagDesc }

func (c lagCollector) Collect(ch chan<- prometheus.Metric) {
	for peer, lag := range c.st.ReplicationLag() {
		ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue, lag.Seconds(), peer)
	}
}

// RollupCollectors export the rollup committers' counters (rollup_fold.go)
// of this node: what an operator reads to see whether a rollup's commits
// contend between nodes.
func (st *Store) RollupCollectors() []prometheus.Collector {
	rs := st.rollups
	const name = "herald_rollup_committer_total"
	const help = "This node's rollup committers (docs/rollups.md, The guarantee), by event: fold (a commit of a fold loop), folded (a batch it took), submitted (a batch this node handed to another node's committer), lease (a lease taken), handoff (a lease given up for holding more than its share of a rollup's commit shards), lost (a commit transaction lost to another node), fallback (a batch handed over, then committed here, no outcome having come)."
	return []prometheus.Collector{
		metrics.Counter(name, help, prometheus.Labels{"event": "fold"}, &rs.Folds),
		metrics.Counter(name, help, prometheus.Labels{"event": "folded"}, &rs.Folded),
		metrics.Counter(name, help, prometheus.Labels{"event": "submitted"}, &rs.Submitted),
		metrics.Counter(name, help, prometheus.Labels{"event": "lease"}, &rs.Leases),
		metrics.Counter(name, help, prometheus.Labels{"event": "handoff"}, &rs.Handoffs),
		metrics.Counter(name, help, prometheus.Labels{"event": "lost"}, &rs.Lost),
		metrics.Counter(name, help, prometheus.Labels{"event": "fallback"}, &rs.Fallbacks),
	}
}
