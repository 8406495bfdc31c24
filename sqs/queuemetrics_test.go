package sqs_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
)

// byName indexes QueueMetrics' answer by queue name.
func byName(ms []sqs.QueueMetric) map[string]sqs.QueueMetric {
	out := map[string]sqs.QueueMetric{}
	for _, m := range ms {
		out[m.Name] = m
	}
	return out
}

func TestQueueMetricsCountsAndCounters(t *testing.T) {
	e := newEnv(t, shards(3))
	url := e.createQueue(t, "orders", nil)
	delayed := e.createQueue(t, "later", map[string]string{"DelaySeconds": "60"})
	for i := range 4 {
		e.send(t, url, fmt.Sprintf("m%d", i))
	}
	e.send(t, delayed, "d")
	e.advance(30 * time.Second)
	vis := 100
	got := e.receive(t, url, 2, &vis)
	e.deleteMessage(t, url, got[0].ReceiptHandle)

	ms := byName(e.svc.QueueMetrics(e.ctx, 10))
	if len(ms) != 2 {
		t.Fatalf("QueueMetrics named %d queues, want 2: %+v", len(ms), ms)
	}
	tests := []struct {
		name                    string
		want                    sqs.Counts
		sent, received, deleted int64
		age                     time.Duration
	}{
		{"orders", sqs.Counts{Visible: 2, InFlight: 1}, 4, 2, 1, 30 * time.Second},
		{"later", sqs.Counts{Delayed: 1}, 1, 0, 0, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := ms[tt.name]
			if !ok {
				t.Fatalf("no reading of %s", tt.name)
			}
			if m.Counts != tt.want {
				t.Errorf("counts %+v, want %+v", m.Counts, tt.want)
			}
			if m.Sent != tt.sent || m.Received != tt.received || m.Deleted != tt.deleted {
				t.Errorf("sent/received/deleted %d/%d/%d, want %d/%d/%d", m.Sent, m.Received, m.Deleted, tt.sent, tt.received, tt.deleted)
			}
			if m.OldestAge != tt.age {
				t.Errorf("oldest age %s, want %s", m.OldestAge, tt.age)
			}
			if m.Account != account || m.Region == "" {
				t.Errorf("account %q region %q", m.Account, m.Region)
			}
		})
	}
	st := e.svc.Stats()
	if st.MessagesSent.Load() != 5 || st.MessagesReceived.Load() != 2 || st.MessagesDeleted.Load() != 1 {
		t.Errorf("totals sent/received/deleted %d/%d/%d, want 5/2/1", st.MessagesSent.Load(), st.MessagesReceived.Load(), st.MessagesDeleted.Load())
	}
}

func TestQueueMetricsEmptyQueueHasNoAge(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "empty", nil)
	e.send(t, url, "x")
	got := e.receive(t, url, 1, nil)
	e.deleteMessage(t, url, got[0].ReceiptHandle)
	e.advance(time.Minute)
	m := byName(e.svc.QueueMetrics(e.ctx, 10))["empty"]
	if m.Counts != (sqs.Counts{}) || m.OldestAge != 0 {
		t.Fatalf("empty queue read as %+v, age %s", m.Counts, m.OldestAge)
	}
}

func TestQueueMetricsLimit(t *testing.T) {
	e := newEnv(t)
	// q0 holds 0 messages, q1 one, ... q5 five.
	for i := range 6 {
		url := e.createQueue(t, fmt.Sprintf("q%d", i), nil)
		for j := range i {
			e.send(t, url, fmt.Sprint(j))
		}
	}
	if got := e.svc.QueueMetrics(e.ctx, 0); got != nil {
		t.Fatalf("limit 0 gave %d readings, want none", len(got))
	}
	// Each call reads the previous selection plus up to 2 others, so after
	// a few calls every queue has been read and the 2 deepest are named.
	var names []string
	for call := 0; call < 4; call++ {
		ms := e.svc.QueueMetrics(e.ctx, 2)
		if len(ms) > 2 {
			t.Fatalf("call %d named %d queues, want at most 2", call, len(ms))
		}
		names = names[:0]
		for _, m := range ms {
			names = append(names, m.Name)
		}
	}
	if fmt.Sprint(names) != "[q5 q4]" {
		t.Fatalf("selected %v, want [q5 q4] (the deepest first)", names)
	}
	// A queue that grows past them enters the selection.
	url := e.createQueue(t, "q0", nil)
	for j := range 9 {
		e.send(t, url, fmt.Sprint(j))
	}
	// Every queue outside the selection is read again within
	// ceil(4 others / 2) calls.
	var first sqs.QueueMetric
	for call := 0; call < 2; call++ {
		first = e.svc.QueueMetrics(e.ctx, 2)[0]
	}
	if first.Name != "q0" || first.Visible != 9 {
		t.Fatalf("after q0 grew: first reading %+v, want q0 with 9 visible", first)
	}
}

func TestQueueMetricsForgetsDeletedQueue(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "gone", nil)
	e.send(t, url, "x")
	if len(e.svc.QueueMetrics(e.ctx, 10)) != 1 {
		t.Fatal("queue not read")
	}
	if err := e.svc.DeleteQueue(e.ctx, caller, url); err != nil {
		t.Fatal(err)
	}
	if ms := e.svc.QueueMetrics(e.ctx, 10); len(ms) != 0 {
		t.Fatalf("deleted queue still read: %+v", ms)
	}
}
