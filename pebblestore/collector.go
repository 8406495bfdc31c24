package pebblestore

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// walFsyncBounds are the upper bounds, in seconds, of the WAL fsync
// histogram Herald exports: Pebble's own histogram has 100 buckets, of which
// these are a subset (each one of Pebble's bounds or the nearest above it),
// so every exported count is exact.
var walFsyncBounds = []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}

// collector exports the figures of the embedded engine that explain write
// latency: the WAL's fsyncs, flushes and compactions, L0's depth and the
// compaction debt (BENCHMARKS.md, "The SQS send tail").
type collector struct {
	db                                           *DB
	fsync, flushes, compactions, sublevels, debt *prometheus.Desc
}

// Collector returns a Prometheus collector of the engine's Pebble figures.
func (db *DB) Collector() prometheus.Collector {
	return &collector{
		db:          db,
		fsync:       prometheus.NewDesc("herald_pebble_wal_fsync_seconds", "Latency of the embedded store's WAL fsyncs (group commit: one fsync covers every commit waiting for it).", nil, nil),
		flushes:     prometheus.NewDesc("herald_pebble_flushes_total", "Memtable flushes of the embedded store.", nil, nil),
		compactions: prometheus.NewDesc("herald_pebble_compactions_total", "Compactions of the embedded store.", nil, nil),
		sublevels:   prometheus.NewDesc("herald_pebble_l0_sublevels", "Sublevels in the embedded store's L0; writes stall when compactions fall far behind.", nil, nil),
		debt:        prometheus.NewDesc("herald_pebble_compaction_debt_bytes", "Bytes the embedded store's compactions estimate they must still rewrite.", nil, nil),
	}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.fsync, c.flushes, c.compactions, c.sublevels, c.debt} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.db.mu.RLock()
	defer c.db.mu.RUnlock()
	if c.db.closed {
		return
	}
	m := c.db.pdb.Metrics()
	ch <- prometheus.MustNewConstMetric(c.flushes, prometheus.CounterValue, float64(m.Flush.Count))
	ch <- prometheus.MustNewConstMetric(c.compactions, prometheus.CounterValue, float64(m.Compact.Count))
	ch <- prometheus.MustNewConstMetric(c.sublevels, prometheus.GaugeValue, float64(m.Levels[0].Sublevels))
	ch <- prometheus.MustNewConstMetric(c.debt, prometheus.GaugeValue, float64(m.Compact.EstimatedDebt))
	if h := m.LogWriter.FsyncLatency; h != nil {
		var d dto.Metric
		if err := h.Write(&d); err == nil && d.GetHistogram() != nil {
			count, sum, buckets := fsyncHistogram(d.GetHistogram())
			ch <- prometheus.MustNewConstHistogram(c.fsync, count, sum, buckets)
		}
	}
}

// fsyncHistogram turns Pebble's fsync histogram (nanoseconds) into seconds
// with the bounds of walFsyncBounds: each takes the cumulative count of
// Pebble's first bucket whose bound is at or above it.
func fsyncHistogram(h *dto.Histogram) (count uint64, sum float64, buckets map[float64]uint64) {
	buckets = make(map[float64]uint64, len(walFsyncBounds))
	pb := h.GetBucket()
	i := 0
	for _, bound := range walFsyncBounds {
		for i < len(pb) && pb[i].GetUpperBound()/1e9 < bound {
			i++
		}
		if i == len(pb) {
			break
		}
		buckets[pb[i].GetUpperBound()/1e9] = pb[i].GetCumulativeCount()
	}
	return h.GetSampleCount(), h.GetSampleSum() / 1e9, buckets
}
