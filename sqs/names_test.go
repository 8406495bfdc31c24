package sqs

import (
	"strings"
	"testing"
)

func TestValidateQueueName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"q", true},
		{"My_queue-1", true},
		{strings.Repeat("a", 80), true},
		{strings.Repeat("a", 81), false},
		{strings.Repeat("a", 75) + ".fifo", true},
		{strings.Repeat("a", 76) + ".fifo", false},
		{"orders.fifo", true},
		{".fifo", false},
		{"", false},
		{"has space", false},
		{"dot.name", false},
		{"a.fifo.fifo", false},
		{"ünïcode", false},
		{"slash/name", false},
	}
	for _, tt := range tests {
		err := ValidateQueueName(tt.name)
		if tt.ok {
			wantCode(t, err, "")
		} else {
			wantCode(t, err, CodeInvalidParameterValue)
		}
	}
}

func TestQueueARN(t *testing.T) {
	arn := QueueARN("us-east-1", "123456789012", "q.fifo")
	if arn != "arn:aws:sqs:us-east-1:123456789012:q.fifo" {
		t.Fatalf("QueueARN = %s", arn)
	}
	tests := []struct {
		arn                   string
		region, account, name string
		ok                    bool
	}{
		{arn, "us-east-1", "123456789012", "q.fifo", true},
		{"arn:aws-cn:sqs:cn-north-1:000000000000:dlq", "cn-north-1", "000000000000", "dlq", true},
		{"arn:aws:sns:us-east-1:123456789012:q", "", "", "", false},
		{"arn:aws:sqs:us-east-1:123456789012", "", "", "", false},
		{"arn:aws:sqs::123456789012:q", "", "", "", false},
		{"arn:aws:sqs:us-east-1:123456789012:bad name", "", "", "", false},
		{"arn:aws:sqs:us-east-1:123456789012:q:extra", "", "", "", false},
		{"not an arn", "", "", "", false},
	}
	for _, tt := range tests {
		r, a, n, err := ParseQueueARN(tt.arn)
		if !tt.ok {
			wantCode(t, err, CodeInvalidParameterValue)
			continue
		}
		wantCode(t, err, "")
		if r != tt.region || a != tt.account || n != tt.name {
			t.Errorf("ParseQueueARN(%s) = %s %s %s", tt.arn, r, a, n)
		}
	}
}

func TestQueueURL(t *testing.T) {
	tests := []struct{ scheme, host, want string }{
		{"http", "localhost:9324", "http://localhost:9324/000000000000/q"},
		{"https", "sqs.example.com", "https://sqs.example.com/000000000000/q"},
		{"", "h", "http://h/000000000000/q"},
	}
	for _, tt := range tests {
		if got := QueueURL(tt.scheme, tt.host, "000000000000", "q"); got != tt.want {
			t.Errorf("QueueURL = %s, want %s", got, tt.want)
		}
	}
}

func TestParseQueueURL(t *testing.T) {
	tests := []struct {
		in, region, account, name string
		ok                        bool
	}{
		{"http://localhost:9324/000000000000/q", "", "000000000000", "q", true},
		{"https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo", "us-east-1", "123456789012", "orders.fifo", true},
		{"http://sqs.eu-west-1.localhost:4566/000000000000/q", "eu-west-1", "000000000000", "q", true},
		{"https://eu-central-1.queue.amazonaws.com/123456789012/q", "eu-central-1", "123456789012", "q", true},
		{"https://queue.amazonaws.com/123456789012/q", "us-east-1", "123456789012", "q", true},
		{"http://sqs.localhost:4566/000000000000/q", "", "000000000000", "q", true},
		{"http://sqs.internal.example/000000000000/q", "", "000000000000", "q", true},
		{"/123456789012/q", "", "123456789012", "q", true},
		{"123456789012/q", "", "123456789012", "q", true},
		{"http://h/123456789012/q/", "", "123456789012", "q", true},
		{"http://h/123456789012", "", "", "", false},
		{"http://h/a/b/c", "", "", "", false},
		{"ftp://h/a/q", "", "", "", false},
		{"http:///a/q", "", "", "", false},
		{"http://h/a/q?x=1", "", "", "", false},
		{"http://h/a/bad name", "", "", "", false},
		{"/a/", "", "", "", false},
		{"", "", "", "", false},
		{"q", "", "", "", false},
	}
	for _, tt := range tests {
		r, a, n, err := ParseQueueURL(tt.in)
		if !tt.ok {
			wantCode(t, err, CodeInvalidAddress)
			continue
		}
		wantCode(t, err, "")
		if r != tt.region || a != tt.account || n != tt.name {
			t.Errorf("ParseQueueURL(%q) = %q %q %q, want %q %q %q", tt.in, r, a, n, tt.region, tt.account, tt.name)
		}
	}
}
