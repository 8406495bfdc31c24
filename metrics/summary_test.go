package metrics

import (
	"testing"
	"time"
)

// TestSummary: requests and 5xx answers are summed over routes and
// methods from the registry's counters.
func TestSummary(t *testing.T) {
	m := New()
	m.ObserveRequest("/v1/messages", "POST", 201, time.Millisecond)
	m.ObserveRequest("/v1/messages", "POST", 201, time.Millisecond)
	m.ObserveRequest("aws", "POST", 503, time.Millisecond)
	m.ObserveRequest("/v1/latest", "GET", 404, time.Millisecond)
	s := m.Summary()
	if s.Requests != 4 || s.ServerErrors != 1 {
		t.Fatalf("summary %+v, want 4 requests, 1 server error", s)
	}
}
