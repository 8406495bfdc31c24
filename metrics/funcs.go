package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Collectors read by the scrape from the counters a domain service keeps
// (atomic.Int64 fields of its Stats), so that domain packages need no
// Prometheus: cmd/herald registers one per counter with these.

// Counter exposes v as a counter, with constant labels (nil for none).
func Counter(name, help string, labels prometheus.Labels, v *atomic.Int64) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels},
		func() float64 { return float64(v.Load()) })
}

// Outcome exposes v as a counter labelled outcome="outcome".
func Outcome(name, help, outcome string, v *atomic.Int64) prometheus.Collector {
	return Counter(name, help, prometheus.Labels{"outcome": outcome}, v)
}

// Gauge exposes v as a gauge.
func Gauge(name, help string, v *atomic.Int64) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return float64(v.Load()) })
}
