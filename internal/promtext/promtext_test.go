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

func TestParseCountsSumsAndLabelOrder(t *testing.T) {
	page := `# TYPE herald_aws_request_duration_seconds histogram
herald_aws_request_duration_seconds_bucket{action="ReceiveMessage",service="sqs",le="0.1"} 4
herald_aws_request_duration_seconds_bucket{action="ReceiveMessage",service="sqs",le="+Inf"} 5
herald_aws_request_duration_seconds_sum{action="ReceiveMessage",service="sqs"} 0.25
herald_aws_request_duration_seconds_count{action="ReceiveMessage",service="sqs"} 5
herald_aws_request_duration_seconds_bucket{action="SendMessage",service="sqs",le="+Inf"} 9
herald_aws_request_duration_seconds_sum{action="SendMessage",service="sqs"} 1.5
herald_aws_request_duration_seconds_count{action="SendMessage",service="sqs"} 9
# TYPE rpc_seconds summary
rpc_seconds{quantile="0.5"} 0.1
rpc_seconds_sum 3
rpc_seconds_count 30
# TYPE herald_aws_requests_total counter
herald_aws_requests_total{action="SendMessage",service="sqs",status="200"} 12
`
	tests := []struct {
		key  string
		want float64
		ok   bool
	}{
		{`herald_aws_request_duration_seconds_count{action="SendMessage",service="sqs"}`, 9, true},
		{`herald_aws_request_duration_seconds_sum{action="ReceiveMessage",service="sqs"}`, 0.25, true},
		{`herald_aws_request_duration_seconds_count{service="sqs",action="ReceiveMessage"}`, 5, true},
		{`herald_aws_request_duration_seconds_count{action="DeleteMessage",service="sqs"}`, 0, false},
		{"rpc_seconds_count", 30, true},
		{"rpc_seconds_sum", 3, true},
		{`herald_aws_requests_total{status="200",service="sqs",action="SendMessage"}`, 12, true},
		{`herald_aws_requests_total{action="SendMessage"}`, 0, false}, // not all of its labels
		{"herald_aws_requests_total", 12, true},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			got, err := Parse(strings.NewReader(page), tc.key)
			if err != nil {
				t.Fatal(err)
			}
			if v, ok := got[tc.key]; ok != tc.ok || v != tc.want {
				t.Fatalf("got %v (present %v), want %v (present %v)", v, ok, tc.want, tc.ok)
			}
		})
	}
}
