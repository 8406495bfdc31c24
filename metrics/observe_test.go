package metrics

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// series returns the sample count of the metric family name with exactly
// these label values, 0 when there is none.
func series(t *testing.T, m *Metrics, name string, labels map[string]string) uint64 {
	t.Helper()
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, metric := range f.GetMetric() {
			if matches(metric, labels) {
				if c := metric.GetCounter(); c != nil {
					return uint64(c.GetValue())
				}
				return metric.GetHistogram().GetSampleCount()
			}
		}
	}
	return 0
}

func matches(metric *dto.Metric, labels map[string]string) bool {
	if len(metric.GetLabel()) != len(labels) {
		return false
	}
	for _, l := range metric.GetLabel() {
		if labels[l.GetName()] != l.GetValue() {
			return false
		}
	}
	return true
}

// Each observation lands in the series of its own labels, however often
// a combination comes back.
func TestObserveSeries(t *testing.T) {
	m := New()
	for range 3 {
		m.ObserveAWS("sqs", "SendMessage", 200, time.Millisecond)
		m.ObserveRequest("aws", "POST", 200, time.Millisecond)
	}
	m.ObserveAWS("sqs", "SendMessage", 400, time.Millisecond)
	m.ObserveAWS("sns", "Publish", 200, time.Millisecond)
	m.ObserveRequest("aws", "GET", 404, time.Millisecond)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   uint64
	}{
		{"herald_aws_requests_total", map[string]string{"service": "sqs", "action": "SendMessage", "status": "200"}, 3},
		{"herald_aws_requests_total", map[string]string{"service": "sqs", "action": "SendMessage", "status": "400"}, 1},
		{"herald_aws_requests_total", map[string]string{"service": "sns", "action": "Publish", "status": "200"}, 1},
		{"herald_aws_request_duration_seconds", map[string]string{"service": "sqs", "action": "SendMessage"}, 4},
		{"herald_aws_request_duration_seconds", map[string]string{"service": "sns", "action": "Publish"}, 1},
		{"herald_http_requests_total", map[string]string{"route": "aws", "method": "POST", "status": "200"}, 3},
		{"herald_http_requests_total", map[string]string{"route": "aws", "method": "GET", "status": "404"}, 1},
		{"herald_http_request_duration_seconds", map[string]string{"route": "aws", "method": "POST"}, 3},
		{"herald_http_request_duration_seconds", map[string]string{"route": "aws", "method": "GET"}, 1},
	} {
		if got := series(t, m, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %d, want %d", c.name, c.labels, got, c.want)
		}
	}
}

// BenchmarkObserve records what one SQS request does: its HTTP route and
// its AWS action, from concurrent requests.
func BenchmarkObserve(b *testing.B) {
	m := New()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.ObserveAWS("sqs", "ReceiveMessage", 200, 300*time.Microsecond)
			m.ObserveRequest("aws", "POST", 200, 310*time.Microsecond)
		}
	})
}
