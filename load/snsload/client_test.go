package snsload

import (
	"errors"
	"strings"
	"testing"

	"github.com/heraldmq/herald/awsauth"
)

func TestClientRequestShapes(t *testing.T) {
	f := newFakeServer(t)
	f.verifier = awsauth.NewVerifier(awsauth.Credentials{"AKIDBENCH": "secret"})
	f.neverConfirm = true
	c := NewClient(f.srv.URL, 2, 0, "AKIDBENCH", "secret", "us-east-1")
	t.Cleanup(c.Close)
	ctx := t.Context()

	topic, err := c.CreateTopic(ctx, "bench-topic")
	if err != nil || topic != "arn:aws:sns:us-east-1:000000000000:bench-topic" {
		t.Fatalf("CreateTopic = %q, %v", topic, err)
	}
	sub, err := c.Subscribe(ctx, topic, "http", "http://127.0.0.1:1/s/0", true)
	if err != nil || !strings.HasPrefix(sub, topic+":") {
		t.Fatalf("Subscribe = %q, %v", sub, err)
	}
	if _, err := c.Subscribe(ctx, topic, "sqs", "arn:aws:sqs:us-east-1:000000000000:q", false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Publish(ctx, topic, "hello & goodbye"); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfirmSubscription(ctx, topic, "tok0"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteTopic(ctx, topic); err != nil {
		t.Fatal(err)
	}

	subs := f.requestsOf(ActionSubscribe)
	want := map[string]string{"TopicArn": topic, "Protocol": "http", "Endpoint": "http://127.0.0.1:1/s/0", "ReturnSubscriptionArn": "true",
		"Attributes.entry.1.key": "RawMessageDelivery", "Attributes.entry.1.value": "true", "Version": APIVersion}
	for k, v := range want {
		if got := subs[0].Form.Get(k); got != v {
			t.Errorf("Subscribe %s = %q, want %q", k, got, v)
		}
	}
	if subs[1].Form.Has("Attributes.entry.1.key") {
		t.Errorf("a non-raw Subscribe sent attributes: %v", subs[1].Form)
	}
	if got := f.requestsOf(ActionPublish)[0].Form.Get("Message"); got != "hello & goodbye" {
		t.Errorf("Publish Message = %q", got)
	}
	if got := f.requestsOf(ActionConfirmSubscription)[0].Form.Get("Token"); got != "tok0" {
		t.Errorf("ConfirmSubscription Token = %q", got)
	}
	for _, r := range f.requestsOf("") {
		t.Errorf("request without an action: %+v", r)
	}
	f.mu.Lock()
	for _, r := range f.requests {
		if r.Service != "sns" {
			t.Errorf("%s signed for %q", r.Action, r.Service)
		}
	}
	f.mu.Unlock()
}

func TestQueueARNIsSignedForSQS(t *testing.T) {
	f := newFakeServer(t)
	f.verifier = awsauth.NewVerifier(awsauth.Credentials{"AKIDBENCH": "secret"})
	c := NewClient(f.srv.URL, 1, 0, "AKIDBENCH", "secret", "")
	t.Cleanup(c.Close)
	f.queues["q1"] = &fakeQueue{}
	arn, err := c.QueueARN(t.Context(), f.srv.URL+"/000000000000/q1")
	if err != nil || arn != "arn:aws:sqs:us-east-1:000000000000:q1" {
		t.Fatalf("QueueARN = %q, %v", arn, err)
	}
	r := f.requestsOf("GetQueueAttributes")[0]
	if r.Service != "sqs" || r.JSON["AttributeNames"].([]any)[0] != "QueueArn" {
		t.Fatalf("GetQueueAttributes request %+v", r)
	}
}

func TestClientErrors(t *testing.T) {
	f := newFakeServer(t)
	c := NewClient(f.srv.URL, 1, 0, "", "", "")
	t.Cleanup(c.Close)
	_, err := c.Publish(t.Context(), "arn:aws:sns:us-east-1:000000000000:missing", "m")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 404 || apiErr.Code != "NotFound" || apiErr.Message != "Topic does not exist" {
		t.Fatalf("Publish to a missing topic: %v", err)
	}
	if _, err := c.QueueARN(t.Context(), f.srv.URL+"/000000000000/missing"); !errors.As(err, &apiErr) || apiErr.Status != 400 {
		t.Fatalf("QueueARN of a missing queue: %v", err)
	}
	if err := decodeQueryError("X", 500, []byte("boom\n")); err.Error() != "X: HTTP 500 : boom" {
		t.Fatalf("a non-XML error reads %q", err)
	}
}

func TestMessageRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		seq  int
		at   int64
		size int
	}{{0, 1, 0}, {7, 1_700_000_000_123_456_789, 64}, {123456, 42, 1024}} {
		m := message(tc.seq, tc.at, tc.size)
		if len(m) < tc.size {
			t.Errorf("message(%d) is %d bytes, want at least %d", tc.seq, len(m), tc.size)
		}
		seq, at, ok := parseMessage([]byte(m))
		if !ok || seq != tc.seq || at != tc.at {
			t.Errorf("parseMessage(%q) = %d, %d, %v", m, seq, at, ok)
		}
	}
	for _, bad := range []string{"", "hello", "snsbench ", "snsbench 1", "snsbench 1 2", "snsbench x 2 ", "snsbench -1 2 ", "snsbench 1 y "} {
		if _, _, ok := parseMessage([]byte(bad)); ok {
			t.Errorf("parseMessage(%q) accepted", bad)
		}
	}
}
