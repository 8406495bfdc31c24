package metrics

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestFuncCollectorsReadAtScrape: each collector reads its value when
// scraped, with its type and constant labels.
func TestFuncCollectorsReadAtScrape(t *testing.T) {
	var n atomic.Int64
	up := false
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(
		Counter("t_sent_total", "Sent.", nil, &n),
		Gauge("t_open", "Open.", &n),
		GaugeOf("t_half", "Half.", prometheus.Labels{"k": "v"}, func() float64 { return float64(n.Load()) / 2 }),
		CounterOf("t_seconds_total", "Seconds.", nil, func() float64 { return float64(n.Load()) / 1e3 }),
		Flag("t_up", "Up.", prometheus.Labels{"role": "r"}, func() bool { return up }),
	)
	for _, tc := range []struct {
		n    int64
		up   bool
		want string
	}{
		{0, false, "t_sent_total 0\nt_open 0\nt_half{k=\"v\"} 0\nt_seconds_total 0\nt_up{role=\"r\"} 0\n"},
		{3, true, "t_sent_total 3\nt_open 3\nt_half{k=\"v\"} 1.5\nt_seconds_total 0.003\nt_up{role=\"r\"} 1\n"},
	} {
		n.Store(tc.n)
		up = tc.up
		var want strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(tc.want), "\n") {
			name := line[:strings.IndexAny(line, "{ ")]
			typ := "gauge"
			if strings.HasSuffix(name, "_total") {
				typ = "counter"
			}
			help := map[string]string{"t_sent_total": "Sent.", "t_open": "Open.", "t_half": "Half.", "t_seconds_total": "Seconds.", "t_up": "Up."}[name]
			want.WriteString("# HELP " + name + " " + help + "\n# TYPE " + name + " " + typ + "\n" + line + "\n")
		}
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want.String())); err != nil {
			t.Errorf("n=%d up=%v: %v", tc.n, tc.up, err)
		}
	}
}
