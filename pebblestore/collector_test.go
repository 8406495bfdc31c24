package pebblestore

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

func TestFsyncHistogramKeepsExactCounts(t *testing.T) {
	// Pebble's layout in miniature: bounds in nanoseconds, cumulative counts.
	h := &dto.Histogram{
		SampleCount: proto.Uint64(10),
		SampleSum:   proto.Float64(30e6), // 30 ms in all
		Bucket: []*dto.Bucket{
			{UpperBound: proto.Float64(400e3), CumulativeCount: proto.Uint64(2)},
			{UpperBound: proto.Float64(500e3), CumulativeCount: proto.Uint64(4)},
			{UpperBound: proto.Float64(1.2e6), CumulativeCount: proto.Uint64(7)},
			{UpperBound: proto.Float64(30e6), CumulativeCount: proto.Uint64(9)},
			{UpperBound: proto.Float64(2e9), CumulativeCount: proto.Uint64(10)},
		},
	}
	count, sum, buckets := fsyncHistogram(h)
	if count != 10 || sum != 0.03 {
		t.Errorf("count %d, sum %g; want 10, 0.03", count, sum)
	}
	want := map[float64]uint64{0.0005: 4, 0.0012: 7, 0.03: 9, 2: 10}
	if fmt.Sprint(buckets) != fmt.Sprint(want) {
		t.Errorf("buckets %v, want %v (Pebble's own bounds, at or above each exported one)", buckets, want)
	}
}

func TestCollectorReportsTheEngine(t *testing.T) {
	db := openDB(t, newClock(t0), Options{})
	for i := range 20 {
		put(t, db, msg(t0.Add(time.Duration(i)*time.Millisecond), t0, time.Hour, fmt.Sprintf("c.p%d", i)))
	}
	if err := db.pdb.Flush(); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(db.Collector())
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*dto.Metric{}
	for _, f := range families {
		got[f.GetName()] = f.GetMetric()[0]
	}
	h := got["herald_pebble_wal_fsync_seconds"].GetHistogram()
	if h.GetSampleCount() == 0 {
		t.Errorf("no WAL fsync counted after 20 synced puts")
	}
	var prev uint64
	for _, b := range h.GetBucket() {
		if c := b.GetCumulativeCount(); c < prev || c > h.GetSampleCount() {
			t.Errorf("bucket le=%g holds %d: not cumulative within %d", b.GetUpperBound(), c, h.GetSampleCount())
		} else {
			prev = c
		}
	}
	if n := got["herald_pebble_flushes_total"].GetCounter().GetValue(); n < 1 {
		t.Errorf("flushes %g after a flush", n)
	}
	for _, name := range []string{"herald_pebble_compactions_total", "herald_pebble_l0_sublevels", "herald_pebble_compaction_debt_bytes"} {
		if got[name] == nil {
			t.Errorf("%s missing", name)
		}
	}
}

func TestCollectorAfterClose(t *testing.T) {
	db, err := Open(t.TempDir(), Options{ReapInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := db.Collector()
	db.Close()
	ch := make(chan prometheus.Metric, 10)
	c.Collect(ch) // must not touch the closed Pebble DB
	if len(ch) != 0 {
		t.Errorf("a closed store reported %d metrics", len(ch))
	}
}
