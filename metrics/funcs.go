package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Collectors read by the scrape from the counters a domain service keeps
// (atomic.Int64 fields of its Stats) or from its methods (GaugeOf,
// CounterOf, Flag), so that domain packages need no Prometheus: cmd/herald
// registers one per figure with these.

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

// GaugeOf exposes what f returns at each scrape as a gauge, with constant
// labels (nil for none): for figures a service computes rather than keeps.
func GaugeOf(name, help string, labels prometheus.Labels, f func() float64) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels}, f)
}

// CounterOf exposes what f returns at each scrape as a counter, with
// constant labels (nil for none).
func CounterOf(name, help string, labels prometheus.Labels, f func() float64) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels}, f)
}

// Flag exposes f as a gauge of 1 while it holds and 0 otherwise.
func Flag(name, help string, labels prometheus.Labels, f func() bool) prometheus.Collector {
	return GaugeOf(name, help, labels, func() float64 {
		if f() {
			return 1
		}
		return 0
	})
}
