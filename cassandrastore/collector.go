package cassandrastore

import "github.com/prometheus/client_golang/prometheus"

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
