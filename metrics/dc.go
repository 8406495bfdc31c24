package metrics

import "github.com/prometheus/client_golang/prometheus"

var dcFencedDesc = prometheus.NewDesc("herald_dc_fenced",
	"1 while the data center is fenced (taken out of service after its loss with herald dc fence; another data center serves its queues), else 0; as this node last read it (every 5 s).",
	[]string{"dc"}, nil)

// DCFenced returns a collector of herald_dc_fenced for each of dcs, from
// fenced, which maps each fenced data center to the one serving its
// queues.
func DCFenced(dcs []string, fenced func() map[string]string) prometheus.Collector {
	return dcFenced{dcs, fenced}
}

type dcFenced struct {
	dcs    []string
	fenced func() map[string]string
}

func (f dcFenced) Describe(ch chan<- *prometheus.Desc) { ch <- dcFencedDesc }

func (f dcFenced) Collect(ch chan<- prometheus.Metric) {
	fenced := f.fenced()
	for _, dc := range f.dcs {
		v := 0.0
		if fenced[dc] != "" {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(dcFencedDesc, prometheus.GaugeValue, v, dc)
	}
}
