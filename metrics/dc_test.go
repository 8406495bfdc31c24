package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestDCFencedExportsEachDataCenter(t *testing.T) {
	fenced := map[string]string{}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(DCFenced([]string{"dc1", "dc2"}, func() map[string]string { return fenced }))
	const head = `
# HELP herald_dc_fenced 1 while the data center is fenced (taken out of service after its loss with herald dc fence; another data center serves its queues), else 0; as this node last read it (every 5 s).
# TYPE herald_dc_fenced gauge
`
	for _, tc := range []struct {
		fenced map[string]string
		want   string
	}{
		{map[string]string{}, "herald_dc_fenced{dc=\"dc1\"} 0\nherald_dc_fenced{dc=\"dc2\"} 0\n"},
		{map[string]string{"dc1": "dc2"}, "herald_dc_fenced{dc=\"dc1\"} 1\nherald_dc_fenced{dc=\"dc2\"} 0\n"},
	} {
		fenced = tc.fenced
		if err := testutil.GatherAndCompare(reg, strings.NewReader(head+tc.want), "herald_dc_fenced"); err != nil {
			t.Errorf("fenced %v: %v", tc.fenced, err)
		}
	}
}
