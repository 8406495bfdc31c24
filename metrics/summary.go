package metrics

import (
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// Summary is a few of a node's figures, read from its registry, for the
// console's node view (which turns the counters into rates).
type Summary struct {
	Requests      float64 `json:"requests"`       // HTTP requests answered (AWS ones included)
	ServerErrors  float64 `json:"server_errors"`  // of which with a 5xx status
	WSConnections float64 `json:"ws_connections"` // open WebSocket connections
	StoreBytes    float64 `json:"store_bytes"`    // the embedded store's size on disk; 0 on Cassandra
	Goroutines    float64 `json:"goroutines"`     //
	ResidentBytes float64 `json:"resident_bytes"` // the process's resident memory
	CPUSeconds    float64 `json:"cpu_seconds"`    // the process's CPU time so far
}

// Summary reads the summary from the registry.
func (m *Metrics) Summary() Summary {
	var s Summary
	families, err := m.Registry.Gather()
	if err != nil && len(families) == 0 {
		return s
	}
	for _, f := range families {
		switch f.GetName() {
		case "herald_http_requests_total":
			for _, sample := range f.GetMetric() {
				v := sample.GetCounter().GetValue()
				s.Requests += v
				if strings.HasPrefix(label(sample, "status"), "5") {
					s.ServerErrors += v
				}
			}
		case "herald_ws_connections":
			s.WSConnections = sum(f)
		case "herald_store_size_bytes":
			s.StoreBytes = sum(f)
		case "go_goroutines":
			s.Goroutines = sum(f)
		case "process_resident_memory_bytes":
			s.ResidentBytes = sum(f)
		case "process_cpu_seconds_total":
			s.CPUSeconds = sum(f)
		}
	}
	return s
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// sum adds up a gauge or counter family's samples.
func sum(f *dto.MetricFamily) float64 {
	var v float64
	for _, m := range f.GetMetric() {
		v += m.GetGauge().GetValue() + m.GetCounter().GetValue() + m.GetUntyped().GetValue()
	}
	return v
}
