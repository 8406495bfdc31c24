package wsload

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Result is what a run measured.
type Result struct {
	Protocol          string   `json:"protocol"`
	Connections       int      `json:"connections"`
	Connected         int      `json:"connected"`
	ConnectFailures   int      `json:"connect_failures"`
	ConnectError      string   `json:"connect_error,omitempty"` // the first
	Patterns          int      `json:"patterns"`
	ConnectSeconds    float64  `json:"connect_seconds"`
	ConnectsPerSecond float64  `json:"connects_per_second"`
	FileLimit         uint64   `json:"file_limit"`
	Warnings          []string `json:"warnings,omitempty"`

	MemoryBefore               *Memory `json:"memory_before,omitempty"`
	MemoryAfter                *Memory `json:"memory_after,omitempty"`
	ResidentBytesPerConnection float64 `json:"resident_bytes_per_connection"`
	HeapBytesPerConnection     float64 `json:"heap_inuse_bytes_per_connection"`
	MemoryError                string  `json:"memory_error,omitempty"`

	Messages        int     `json:"messages"`
	Rate            float64 `json:"rate"`
	Published       int     `json:"published"`
	PublishFailures int     `json:"publish_failures"`
	PublishError    string  `json:"publish_error,omitempty"` // the first

	Expected    int64          `json:"expected_deliveries"`
	Delivered   int64          `json:"delivered"`
	Lost        int64          `json:"lost"`
	Duplicates  int64          `json:"duplicates"`
	Foreign     int64          `json:"foreign_frames"`
	ClosedEarly int64          `json:"closed_early"`
	Closes      map[string]int `json:"closes,omitempty"` // why connections closed early
	Latency     Latency        `json:"latency"`
	// PerMessage is each published message's latencies over the
	// connections that received it: a tail made of a few slow messages
	// (a pause of the server's) shows apart from one every message has
	// (the last connections written).
	PerMessage []MessageLatency `json:"per_message,omitempty"`
}

// MessageLatency is one message's latencies over its deliveries.
type MessageLatency struct {
	Message    int `json:"message"`
	Deliveries int `json:"deliveries"`
	Latency
}

// Latency summarises publish-start-to-arrival times, in milliseconds. Min
// is the first arrival: the publish and the server's way to its first
// write, before any fan-out.
type Latency struct {
	Min float64 `json:"min_ms"`
	P50 float64 `json:"p50_ms"`
	P90 float64 `json:"p90_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

func (r *Result) setMemory(before, after Memory) {
	r.MemoryBefore, r.MemoryAfter = &before, &after
	if r.Connected > 0 {
		r.ResidentBytesPerConnection = (after.ResidentBytes - before.ResidentBytes) / float64(r.Connected)
		r.HeapBytesPerConnection = (after.HeapInuseBytes - before.HeapInuseBytes) / float64(r.Connected)
	}
}

func (r *Result) setDeliveries(rec *recorder) {
	r.Delivered = rec.delivered.Load()
	r.Lost = max(r.Expected-r.Delivered, 0)
	r.Duplicates = rec.duplicates.Load()
	r.Foreign = rec.foreign.Load()
	r.ClosedEarly = rec.closed.Load()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.closes) > 0 {
		r.Closes = rec.closes
	}
	r.Latency = summarize(rec.latencies)
	r.PerMessage = nil
	for n, ds := range rec.byMessage {
		if len(ds) > 0 {
			r.PerMessage = append(r.PerMessage, MessageLatency{Message: n, Deliveries: len(ds), Latency: summarize(ds)})
		}
	}
}

// messageSpread is the lowest, the median and the highest of the
// messages' own p99s, and the message with the highest.
func (r *Result) messageSpread() (low, median, high float64, slowest int) {
	p99s := make([]float64, len(r.PerMessage))
	for i, m := range r.PerMessage {
		p99s[i] = m.P99
		if m.P99 >= r.PerMessage[slowest].P99 {
			slowest = i
		}
	}
	slices.Sort(p99s)
	return p99s[0], p99s[len(p99s)/2], p99s[len(p99s)-1], r.PerMessage[slowest].Message
}

// summarize sorts ds and returns its percentiles.
func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	at := func(q float64) float64 {
		i := max(int(math.Ceil(q*float64(len(ds))))-1, 0)
		return ms(ds[i])
	}
	return Latency{Min: ms(ds[0]), P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: ms(ds[len(ds)-1])}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// String is the text report.
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "connections     %d connected of %d (%d failed), %d pattern(s), in %.2fs (%.0f/s), protocol %s\n",
		r.Connected, r.Connections, r.ConnectFailures, r.Patterns, r.ConnectSeconds, r.ConnectsPerSecond, r.Protocol)
	if r.ConnectError != "" {
		fmt.Fprintf(&b, "  first failure: %s\n", r.ConnectError)
	}
	if r.MemoryAfter != nil {
		fmt.Fprintf(&b, "server memory   %.1f KiB resident, %.1f KiB heap in use per connection (resident %.1f → %.1f MiB, heap %.1f → %.1f MiB)\n",
			r.ResidentBytesPerConnection/1024, r.HeapBytesPerConnection/1024,
			r.MemoryBefore.ResidentBytes/(1<<20), r.MemoryAfter.ResidentBytes/(1<<20),
			r.MemoryBefore.HeapInuseBytes/(1<<20), r.MemoryAfter.HeapInuseBytes/(1<<20))
	} else if r.MemoryError != "" {
		fmt.Fprintf(&b, "server memory   not measured: %s\n", r.MemoryError)
	}
	fmt.Fprintf(&b, "published       %d of %d at %g/s (%d failed)\n", r.Published, r.Messages, r.Rate, r.PublishFailures)
	if r.PublishError != "" {
		fmt.Fprintf(&b, "  first failure: %s\n", r.PublishError)
	}
	fmt.Fprintf(&b, "deliveries      %d of %d expected, %d lost, %d duplicates\n", r.Delivered, r.Expected, r.Lost, r.Duplicates)
	fmt.Fprintf(&b, "latency         min %.2fms  p50 %.2fms  p90 %.2fms  p99 %.2fms  max %.2fms (publish start → frame received)\n",
		r.Latency.Min, r.Latency.P50, r.Latency.P90, r.Latency.P99, r.Latency.Max)
	if len(r.PerMessage) > 1 {
		low, median, high, slowest := r.messageSpread()
		fmt.Fprintf(&b, "per message     p99 %.2fms lowest, %.2fms median, %.2fms highest (message %d)\n", low, median, high, slowest)
	}
	if r.ClosedEarly > 0 {
		whys := make([]string, 0, len(r.Closes))
		for why, n := range r.Closes {
			whys = append(whys, fmt.Sprintf("%s: %d", why, n))
		}
		sort.Strings(whys)
		fmt.Fprintf(&b, "closed early    %d (%s)\n", r.ClosedEarly, strings.Join(whys, ", "))
	}
	if r.Foreign > 0 {
		fmt.Fprintf(&b, "other frames    %d\n", r.Foreign)
	}
	fmt.Fprintf(&b, "open-file limit %d\n", r.FileLimit)
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}
