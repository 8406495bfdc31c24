package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/limits"
)

// TopWritersShown is how many writers of each kind /metrics names: the
// cardinality of the series below stays bounded whatever the traffic.
const TopWritersShown = 10

// TopWriters exposes the busiest writers of the last limits.Window, read
// from w on each scrape: herald_top_account_requests_per_second{account,door}
// and herald_top_path_writes_per_second{path}, at most TopWritersShown
// series each.
func TopWriters(w *limits.Writers) prometheus.Collector { return &topWriters{w: w} }

type topWriters struct{ w *limits.Writers }

var (
	topAccountDesc = prometheus.NewDesc("herald_top_account_requests_per_second",
		"Requests per second of the busiest accounts at each door over the last 5 minutes (the "+strconv.Itoa(TopWritersShown)+" busiest; an estimate, short by at most 1/1024 of a minute's requests).",
		[]string{"account", "door"}, nil)
	topPathDesc = prometheus.NewDesc("herald_top_path_writes_per_second",
		"Writes per second to the most written paths of the message cache over the last 5 minutes (the "+strconv.Itoa(TopWritersShown)+" busiest; an estimate, short by at most 1/1024 of a minute's writes).",
		[]string{"path"}, nil)
)

func (c *topWriters) Describe(ch chan<- *prometheus.Desc) {
	ch <- topAccountDesc
	ch <- topPathDesc
}

func (c *topWriters) Collect(ch chan<- prometheus.Metric) {
	for _, wr := range c.w.Top(limits.WriterAccount, TopWritersShown) {
		account, door := wr.AccountDoor()
		ch <- prometheus.MustNewConstMetric(topAccountDesc, prometheus.GaugeValue, wr.PerSecond(), account, door)
	}
	for _, wr := range c.w.Top(limits.WriterPath, TopWritersShown) {
		ch <- prometheus.MustNewConstMetric(topPathDesc, prometheus.GaugeValue, wr.PerSecond(), herald.Clip(wr.Key))
	}
}
