package sqs_test

import (
	"testing"

	"github.com/heraldmq/herald/sqs"
)

// TestPeekMessagesDoesNotReceive peeks at a queue before and after a
// receive: peeking shows the messages oldest first with their state, and
// changes neither receive counts, nor visibility, nor what a receive gets.
func TestPeekMessagesDoesNotReceive(t *testing.T) {
	tests := []struct {
		name   string
		shards int
	}{
		{"one shard", 1},
		{"four shards", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, shards(tc.shards))
			url := e.createQueue(t, "peeked", nil)
			for _, b := range []string{"a", "b", "c"} {
				e.send(t, url, b)
				e.advance(1)
			}
			peek := func(limit int) []*sqs.Message {
				t.Helper()
				msgs, err := e.svc.PeekMessages(e.ctx, caller, sqs.PeekMessagesInput{QueueURL: url, Limit: limit})
				wantCode(t, err, "")
				return msgs
			}
			for range 3 {
				if got := peek(10); len(got) != 3 || got[0].Body != "a" || got[1].Body != "b" || got[2].Body != "c" {
					t.Fatalf("peek = %v, want a, b, c", got)
				}
			}
			if got := peek(2); len(got) != 2 || got[0].Body != "a" || got[1].Body != "b" {
				t.Fatalf("peek with limit 2 = %v, want a, b", got)
			}
			if n := e.attributes(t, url, "ApproximateNumberOfMessages")["ApproximateNumberOfMessages"]; n != "3" {
				t.Errorf("after peeking, %s messages visible, want 3", n)
			}
			got := e.receive(t, url, 10, nil)
			if len(got) != 3 {
				t.Fatalf("after peeking, a receive got %d messages, want all 3", len(got))
			}
			for _, m := range got {
				if c := m.Attributes["ApproximateReceiveCount"]; c != "1" {
					t.Errorf("message %s: ApproximateReceiveCount %s after peeks and one receive, want 1", m.Body, c)
				}
			}
			peek(10)
			if n := e.attributes(t, url, "ApproximateNumberOfMessagesNotVisible")["ApproximateNumberOfMessagesNotVisible"]; n != "3" {
				t.Errorf("after peeking at received messages, %s in flight, want still 3", n)
			}
		})
	}
}

func TestPeekMessagesRefuses(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "peeked", nil)
	other := sqs.Caller{Account: "111111111111", Scheme: "http", Host: "localhost:4566"}
	tests := []struct {
		name   string
		caller sqs.Caller
		in     sqs.PeekMessagesInput
		code   string
	}{
		{"limit too large", caller, sqs.PeekMessagesInput{QueueURL: url, Limit: sqs.MaxPeekMessages + 1}, sqs.CodeInvalidParameterValue},
		{"negative limit", caller, sqs.PeekMessagesInput{QueueURL: url, Limit: -1}, sqs.CodeInvalidParameterValue},
		{"missing queue", caller, sqs.PeekMessagesInput{QueueURL: url + "-nope"}, sqs.CodeQueueDoesNotExist},
		{"another account", other, sqs.PeekMessagesInput{QueueURL: url}, sqs.CodeAccessDenied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.PeekMessages(e.ctx, tc.caller, tc.in)
			wantCode(t, err, tc.code)
		})
	}
}
