package promtext

import (
	"strings"
	"testing"
)

func TestParseChosenSamples(t *testing.T) {
	page := `# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 2.5e+07
go_memstats_heap_inuse_bytes 1234
herald_sns_deliveries_total{outcome="delivered"} 100000
herald_sns_deliveries_total{outcome="dropped"} 3
herald_requests_total{route="aws",method="POST"} 7 1700000000000
`
	got, err := Parse(strings.NewReader(page), "process_resident_memory_bytes", "go_memstats_heap_inuse_bytes",
		`herald_sns_deliveries_total{outcome="delivered"}`, `herald_requests_total{route="aws",method="POST"}`, "absent_metric")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"process_resident_memory_bytes": 2.5e7, "go_memstats_heap_inuse_bytes": 1234,
		`herald_sns_deliveries_total{outcome="delivered"}`: 100000, `herald_requests_total{route="aws",method="POST"}`: 7}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

func TestParseRejectsABadValue(t *testing.T) {
	if _, err := Parse(strings.NewReader("go_memstats_heap_inuse_bytes lots\n"), "go_memstats_heap_inuse_bytes"); err == nil {
		t.Fatal("a value that is not a number was accepted")
	}
}
