package wsload

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

func TestParseMemory(t *testing.T) {
	tests := []struct {
		name, in string
		want     Memory
		wantErr  bool
	}{
		{"plain", "# HELP x\nprocess_resident_memory_bytes 1.048576e+06\ngo_memstats_heap_inuse_bytes 2048\n", Memory{ResidentBytes: 1 << 20, HeapInuseBytes: 2048}, false},
		{"labels and timestamp", `go_memstats_heap_inuse_bytes{a="b c"} 7 1700000000` + "\nprocess_resident_memory_bytes_total 9\n", Memory{ResidentBytes: 0, HeapInuseBytes: 7}, false},
		{"neither", "other 1\n", Memory{}, true},
		{"bad value", "process_resident_memory_bytes x\n", Memory{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMemory(strings.NewReader(tt.in))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v, err %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestDecodeDelivery(t *testing.T) {
	sent := time.Unix(0, 1700000000123456789)
	tests := []struct {
		name  string
		frame string
		n     int
		ok    bool
	}{
		{"message", `{"type":"message","subscription":"a.#","path":"a.b","source":"live","message":{"message_uuid":"u","body":"` +
			b64(body(7, sent)) + `"}}`, 7, true},
		{"error frame", `{"type":"error","code":"invalid","message":"bad"}`, 0, false},
		{"foreign body", `{"type":"message","message":{"body":"` + b64([]byte("hello")) + `"}}`, 0, false},
		{"not json", `nope`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, at, ok := decodeDelivery([]byte(tt.frame))
			if ok != tt.ok || n != tt.n || ok && !at.Equal(sent) {
				t.Fatalf("got %d %v %v", n, at, ok)
			}
		})
	}
}

func TestSubscriberAccounting(t *testing.T) {
	rec := newRecorder(3, 0)
	s := &subscriber{seen: make([]uint64, 1)}
	sent := time.Now().Add(-10 * time.Millisecond)
	for _, n := range []int{0, 2, 2, 5} {
		s.record(rec, n, sent, time.Now())
	}
	rec.collect([]*subscriber{s})
	if rec.delivered.Load() != 2 || rec.duplicates.Load() != 1 || rec.foreign.Load() != 1 || len(rec.latencies) != 2 {
		t.Fatalf("delivered %d duplicates %d foreign %d latencies %v", rec.delivered.Load(), rec.duplicates.Load(), rec.foreign.Load(), rec.latencies)
	}
	if rec.latencies[0] < 10*time.Millisecond {
		t.Fatalf("latency %v", rec.latencies[0])
	}
}

// TestPerMessageLatency: each message's latencies are summarized over its
// own deliveries, and the report names the message with the highest p99.
func TestPerMessageLatency(t *testing.T) {
	rec := newRecorder(3, 0)
	now := time.Now()
	var subs []*subscriber
	for c := range 4 { // message 0 arrives after 1..4 ms, message 2 after 20..23, message 1 never
		s := &subscriber{seen: make([]uint64, 1)}
		s.record(rec, 0, now.Add(-time.Duration(1+c)*time.Millisecond), now)
		s.record(rec, 2, now.Add(-time.Duration(20+c)*time.Millisecond), now)
		subs = append(subs, s)
	}
	rec.collect(subs)
	r := &Result{}
	r.setDeliveries(rec)
	want := []MessageLatency{
		{Message: 0, Deliveries: 4, Latency: Latency{Min: 1, P50: 2, P90: 4, P99: 4, Max: 4}},
		{Message: 2, Deliveries: 4, Latency: Latency{Min: 20, P50: 21, P90: 23, P99: 23, Max: 23}},
	}
	if len(r.PerMessage) != len(want) {
		t.Fatalf("per message %+v, want %+v", r.PerMessage, want)
	}
	for i := range want {
		if r.PerMessage[i] != want[i] {
			t.Fatalf("message %d: %+v, want %+v", i, r.PerMessage[i], want[i])
		}
	}
	if line := "per message     p99 4.00ms lowest, 23.00ms median, 23.00ms highest (message 2)"; !strings.Contains(r.String(), line) {
		t.Fatalf("report lacks %q:\n%s", line, r.String())
	}
}

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if got := summarize(ds); got != (Latency{Min: 1, P50: 50, P90: 90, P99: 99, Max: 100}) {
		t.Fatalf("%+v", got)
	}
	if got := summarize(nil); got != (Latency{}) {
		t.Fatalf("%+v", got)
	}
	if got := summarize([]time.Duration{3 * time.Millisecond}); got != (Latency{3, 3, 3, 3, 3}) {
		t.Fatalf("%+v", got)
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
