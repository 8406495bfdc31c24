package metrics

import (
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald/limits"
)

// TestTopWritersBoundedSeries: however many accounts and paths write,
// /metrics names at most TopWritersShown of each, the busiest.
func TestTopWritersBoundedSeries(t *testing.T) {
	lim := limits.New(nil)
	for i := range 500 {
		lim.Admit(fmt.Sprint("acct", i), limits.DoorSQS, 0)
		lim.Wrote([]string{fmt.Sprint("p.", i)})
	}
	for range 50 {
		lim.Admit("noisy", limits.DoorSNS, 0)
		lim.Wrote([]string{"hot.path"})
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(TopWriters(lim.Writers()))
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range fams {
		got[f.GetName()] = len(f.GetMetric())
		want := "hot.path"
		if f.GetName() == "herald_top_account_requests_per_second" {
			want = "noisy"
		}
		var busiest string
		var top float64
		for _, m := range f.GetMetric() {
			if v := m.GetGauge().GetValue(); v > top {
				top, busiest = v, m.GetLabel()[0].GetValue()
			}
		}
		if busiest != want {
			t.Errorf("%s: the busiest series is %s, want %s", f.GetName(), busiest, want)
		}
	}
	for _, name := range []string{"herald_top_account_requests_per_second", "herald_top_path_writes_per_second"} {
		if got[name] != TopWritersShown {
			t.Errorf("%s: %d series, want %d", name, got[name], TopWritersShown)
		}
	}
}
