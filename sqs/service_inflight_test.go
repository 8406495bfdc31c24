package sqs_test

import (
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
)

func inflightLimits(standard, fifo int) envOption {
	return func(c *sqs.Config) {
		c.Limits = sqs.DefaultLimits()
		c.Limits.MaxInflightStandard, c.Limits.MaxInflightFIFO = standard, fifo
	}
}

// A queue at its in-flight limit refuses receives with OverLimit until
// messages are deleted (seen at the next reading of its count).
func TestInflightLimit(t *testing.T) {
	tests := []struct {
		name  string
		queue string
		send  func(e *env, t *testing.T, url string, i int)
	}{
		{"standard", "busy", func(e *env, t *testing.T, url string, i int) { e.send(t, url, "m") }},
		{"fifo", "busy.fifo", func(e *env, t *testing.T, url string, i int) {
			e.sendFIFO(t, url, "m", "g"+itoa(i), "d"+itoa(i)) // one group each: all receivable at once
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, inflightLimits(3, 3))
			var attrs map[string]string
			if sqs.IsFIFOName(tt.queue) {
				attrs = map[string]string{"FifoQueue": "true"}
			}
			url := e.createQueue(t, tt.queue, attrs)
			for i := range 5 {
				tt.send(e, t, url, i)
			}
			got := e.receive(t, url, 3, nil)
			if len(got) != 3 {
				t.Fatalf("received %d, want 3", len(got))
			}
			zero, one := 0, 1
			_, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, MaxNumberOfMessages: &one, WaitTimeSeconds: &zero})
			wantCode(t, err, sqs.CodeOverLimit)
			if se := err.(*sqs.Error); se.Status != 403 || se.QueryCode != "OverLimit" {
				t.Fatalf("OverLimit as %d %s, want 403 OverLimit", se.Status, se.QueryCode)
			}
			e.deleteMessage(t, url, got[0].ReceiptHandle)
			e.advance(1100 * time.Millisecond) // the next reading sees the delete
			if more := e.receive(t, url, 1, nil); len(more) != 1 {
				t.Fatalf("after a delete received %d, want 1", len(more))
			}
		})
	}
}

// Visibility ends count too: messages visible again are not in flight.
func TestInflightLimitFreedByVisibilityTimeout(t *testing.T) {
	e := newEnv(t, inflightLimits(2, 2))
	url := e.createQueue(t, "timeouts", nil)
	e.send(t, url, "a")
	e.send(t, url, "b")
	if got := e.receive(t, url, 2, ptr(5)); len(got) != 2 {
		t.Fatalf("received %d, want 2", len(got))
	}
	zero, one := 0, 1
	_, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, MaxNumberOfMessages: &one, WaitTimeSeconds: &zero})
	wantCode(t, err, sqs.CodeOverLimit)
	e.advance(6 * time.Second)
	if got := e.receive(t, url, 2, nil); len(got) != 2 {
		t.Fatalf("after the visibility timeout received %d, want 2", len(got))
	}
}
