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

// Throttled exposes herald_throttled_total{door}: requests refused for
// being over a rate limit, by door ("path": writes refused for their
// path's), and herald_admission_refused_total: requests refused by
// admission control on a saturated node (--max-in-flight).
func Throttled(l *limits.Limiter) prometheus.Collector { return &throttled{l: l} }

type throttled struct{ l *limits.Limiter }

var (
	throttledDesc = prometheus.NewDesc("herald_throttled_total",
		"Requests refused for being over an account's rate limit, by door (path: writes refused for their path's limit).", []string{"door"}, nil)
	refusedDesc = prometheus.NewDesc("herald_admission_refused_total",
		"Requests refused by admission control on a saturated node, from accounts over their share (--max-in-flight).", nil, nil)
	sharedErrorsDesc = prometheus.NewDesc("herald_limits_shared_errors_total",
		"Limited requests this node admitted on its own buckets alone because the cluster's (Redis) did not answer.", nil, nil)
)

func (c *throttled) Describe(ch chan<- *prometheus.Desc) {
	ch <- throttledDesc
	ch <- refusedDesc
	ch <- sharedErrorsDesc
}

func (c *throttled) Collect(ch chan<- prometheus.Metric) {
	for door, n := range c.l.Throttled() {
		ch <- prometheus.MustNewConstMetric(throttledDesc, prometheus.CounterValue, float64(n), door)
	}
	var refused uint64
	for _, n := range c.l.Refused() {
		refused += n
	}
	ch <- prometheus.MustNewConstMetric(refusedDesc, prometheus.CounterValue, float64(refused))
	ch <- prometheus.MustNewConstMetric(sharedErrorsDesc, prometheus.CounterValue, float64(c.l.SharedErrors()))
}
