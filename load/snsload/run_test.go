package snsload

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestRunHTTPDeliversEverything(t *testing.T) {
	f := newFakeServer(t)
	cfg := testConfig(f, 20)
	r, err := RunHTTP(t.Context(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	if r.Confirmed != 20 || r.Listeners != 3 || r.Published == 0 || r.Expected != 20*r.Published || r.Delivered != r.Expected ||
		r.Lost != 0 || r.Duplicates != 0 || r.Unexpected != 0 || r.Malformed != 0 || r.Enveloped != 0 {
		t.Fatalf("report:\n%s", r)
	}
	if r.Latency.P50 <= 0 || r.Latency.P50 > r.Latency.P99 || r.Latency.P99 > r.Latency.Max || r.Latency.Max > 5*time.Second {
		t.Fatalf("latency %s", r.Latency)
	}
	if r.DeliveriesPerSec <= 0 || r.PublishesPerSec <= 0 || r.DeliverySpan <= 0 {
		t.Fatalf("rates: %s", r)
	}
	// Every subscription asked for raw delivery, from 3 listeners' URLs.
	ports := map[string]bool{}
	for _, s := range f.requestsOf(ActionSubscribe) {
		if s.Form.Get("Protocol") != "http" || s.Form.Get("Attributes.entry.1.value") != "true" {
			t.Fatalf("subscribe %v", s.Form)
		}
		ports[strings.Split(s.Form.Get("Endpoint"), "/")[2]] = true
	}
	if len(ports) != 3 {
		t.Fatalf("subscribers on %d listeners, want 3", len(ports))
	}
	if f.deleted[ActionDeleteTopic] != 1 || r.TopicLeft != "" {
		t.Fatalf("topic not deleted: %d deletes, left %q", f.deleted[ActionDeleteTopic], r.TopicLeft)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil || back["scenario"] != "http" || back["delivered"].(float64) != float64(r.Delivered) {
		t.Fatalf("JSON %s", out)
	}
	if _, ok := back["latency"].(map[string]any)["p99_ns"]; !ok {
		t.Fatalf("JSON without latency p99: %s", out)
	}
}

func TestRunHTTPCountsWhatWentWrong(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*fakeServer)
		check func(t *testing.T, r HTTPReport)
	}{
		{"lost", func(f *fakeServer) { f.drop[1] = true }, func(t *testing.T, r HTTPReport) {
			if r.Lost != r.Published || r.Delivered != r.Expected-r.Published || r.Drained < 200*time.Millisecond {
				t.Errorf("one silent subscriber:\n%s", r)
			}
		}},
		{"duplicates", func(f *fakeServer) { f.duplicate[0], f.duplicate[2] = true, true }, func(t *testing.T, r HTTPReport) {
			// A second copy may still be on its way when the drain ends.
			if r.Lost != 0 || r.Duplicates < 1 || r.Duplicates > 2*r.Published || r.Delivered != r.Expected {
				t.Errorf("two subscribers get everything twice:\n%s", r)
			}
		}},
		{"enveloped", func(f *fakeServer) { f.envelope = true }, func(t *testing.T, r HTTPReport) {
			if r.Lost != 0 || r.Enveloped != r.Delivered || !strings.Contains(r.String(), "JSON envelope") {
				t.Errorf("deliveries in the envelope:\n%s", r)
			}
		}},
		{"token-only", func(f *fakeServer) { f.tokenOnly = true }, func(t *testing.T, r HTTPReport) {
			if r.Lost != 0 || r.Confirmed != 4 {
				t.Errorf("confirmed by token:\n%s", r)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeServer(t)
			tc.setup(f)
			cfg := testConfig(f, 4)
			cfg.Drain = 300 * time.Millisecond
			r, err := RunHTTP(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Published == 0 {
				t.Fatalf("nothing published:\n%s", r)
			}
			tc.check(t, r)
			if tc.name == "token-only" && f.count(ActionConfirmSubscription) != 4 {
				t.Errorf("%d ConfirmSubscription calls, want 4", f.count(ActionConfirmSubscription))
			}
		})
	}
}

func TestRunHTTPFailsWithoutConfirmations(t *testing.T) {
	f := newFakeServer(t)
	f.neverConfirm = true
	cfg := testConfig(f, 3)
	cfg.Timeout = 100 * time.Millisecond
	cfg.Keep = true
	r, err := RunHTTP(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "0 of 3 subscriptions were confirmed") {
		t.Fatalf("err %v", err)
	}
	if f.count(ActionPublish) != 0 || r.TopicLeft == "" || f.deleted[ActionDeleteTopic] != 0 {
		t.Fatalf("published %d times, left %q, deleted %d", f.count(ActionPublish), r.TopicLeft, f.deleted[ActionDeleteTopic])
	}
}

func TestEndpointsAccountLatencyAndLoss(t *testing.T) {
	e, err := startEndpoints(2, 1, func(context.Context, confirmation) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.close)
	e.subs[0].confirmed.Store(true)
	e.subs[1].confirmed.Store(true)
	t0 := time.Unix(1000, 0)
	arrive := func(sub, seq int, after time.Duration) {
		e.notification(&e.subs[sub], []byte(message(seq, t0.UnixNano(), 0)), t0.Add(after))
	}
	arrive(0, 0, 5*time.Millisecond)
	arrive(0, 0, 9*time.Millisecond) // a duplicate: counted, its latency not
	arrive(0, 1, 7*time.Millisecond)
	arrive(1, 1, 3*time.Millisecond)
	arrive(1, 2, 1*time.Millisecond)    // its publish failed
	arrive(1, 4000, 1*time.Millisecond) // never published at all
	e.notification(&e.subs[1], []byte("not ours"), t0)

	expected, lost, unexpected, latencies := e.tally([]bool{true, true, false}, true)
	if expected != 4 || lost != 1 || unexpected != 2 || e.duplicates.Load() != 1 || e.delivered.Load() != 5 || e.malformed.Load() != 1 {
		t.Fatalf("expected %d lost %d unexpected %d duplicates %d delivered %d malformed %d",
			expected, lost, unexpected, e.duplicates.Load(), e.delivered.Load(), e.malformed.Load())
	}
	var sum time.Duration
	for _, l := range latencies {
		sum += l
	}
	if len(latencies) != 5 || sum != 17*time.Millisecond {
		t.Fatalf("latencies %v", latencies)
	}
	if got := time.Unix(0, e.lastArrival.Load()); !got.Equal(t0.Add(7 * time.Millisecond)) {
		t.Fatalf("last arrival %v", got)
	}
}

func TestRunQueues(t *testing.T) {
	f := newFakeServer(t)
	f.queueDelay = 20 * time.Millisecond
	cfg := testConfig(f, 30)
	r, err := RunQueues(t.Context(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	if r.Subscribed != 30 || r.Reached != 30 || r.TimedOut || r.T50 == nil || r.T99 == nil || r.T100 == nil ||
		*r.T50 > *r.T99 || *r.T99 > *r.T100 || *r.T50 < 20*time.Millisecond || r.Setup <= 0 {
		t.Fatalf("report:\n%s", r)
	}
	// One GetQueueAttributes: the other ARNs are derived from the first.
	if n := f.count("GetQueueAttributes"); n != 1 {
		t.Fatalf("%d GetQueueAttributes calls", n)
	}
	for _, s := range f.requestsOf(ActionSubscribe) {
		if s.Form.Get("Protocol") != "sqs" || !strings.HasPrefix(s.Form.Get("Endpoint"), "arn:aws:sqs:us-east-1:000000000000:herald-bench-sns-") ||
			s.Form.Get("Attributes.entry.1.key") != "RawMessageDelivery" {
			t.Fatalf("subscribe %v", s.Form)
		}
	}
	if f.count(ActionPublish) != 1 || f.deleted["DeleteQueue"] != 30 || f.deleted[ActionDeleteTopic] != 1 || r.Left != "" || r.DeleteQueues == nil {
		t.Fatalf("publishes %d, deletes %v, left %q", f.count(ActionPublish), f.deleted, r.Left)
	}
	out, _ := json.Marshal(r)
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil || back["reached"].(float64) != 30 || back["t100_ns"] == nil {
		t.Fatalf("JSON %s", out)
	}
}

func TestRunQueuesTimesOutAndKeeps(t *testing.T) {
	f := newFakeServer(t)
	f.drop[2] = true // the third queue never gets the message
	cfg := testConfig(f, 5)
	cfg.Timeout, cfg.Wait, cfg.Keep = 300*time.Millisecond, 0, true
	r, err := RunQueues(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "4 of 5 queues") {
		t.Fatalf("err %v", err)
	}
	if r.Reached != 4 || !r.TimedOut || r.T50 == nil || r.T99 != nil || r.T100 != nil || r.Left == "" || len(f.queues) != 5 {
		t.Fatalf("report:\n%s", r)
	}
	if !strings.Contains(r.String(), "100% by not reached") {
		t.Fatalf("text:\n%s", r)
	}
}

func TestReachedBy(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		var out []time.Duration
		for _, v := range n {
			out = append(out, time.Duration(v)*time.Millisecond)
		}
		return out
	}
	for _, tc := range []struct {
		sorted []time.Duration
		n      int
		q      float64
		want   time.Duration // -1: nil
	}{
		{ms(1, 2, 3, 4), 4, 0.5, 2 * time.Millisecond},
		{ms(1, 2, 3, 4), 4, 0.99, 4 * time.Millisecond},
		{ms(1, 2, 3, 4), 4, 1, 4 * time.Millisecond},
		{ms(1, 2, 3), 4, 1, -1},
		{ms(1, 2, 3), 4, 0.5, 2 * time.Millisecond},
		{ms(), 0, 0.5, -1},
		{ms(5), 200, 0.99, -1},
	} {
		got := reachedBy(tc.sorted, tc.n, tc.q)
		if (got == nil) != (tc.want < 0) || (got != nil && *got != tc.want) {
			t.Errorf("reachedBy(%v, %d, %g) = %v, want %v", tc.sorted, tc.n, tc.q, got, tc.want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	good := Config{Server: "http://h:1", Subscribers: 1, Concurrency: 1, Duration: time.Second, Timeout: time.Second}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*Config){
		"server":      func(c *Config) { c.Server = "h:1" },
		"subscribers": func(c *Config) { c.Subscribers = 0 },
		"concurrency": func(c *Config) { c.Concurrency = 0 },
		"duration":    func(c *Config) { c.Duration = 0 },
		"rate":        func(c *Config) { c.Rate = -1 },
		"timeout":     func(c *Config) { c.Timeout = 0 },
		"wait":        func(c *Config) { c.Wait = 21 },
		"size":        func(c *Config) { c.MessageSize = 300000 },
	} {
		c := good
		change(&c)
		if c.Validate() == nil {
			t.Errorf("%s: accepted %+v", name, c)
		}
	}
}
