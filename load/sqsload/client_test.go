package sqsload

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/heraldmq/herald/awsauth"
)

func newTestClient(t *testing.T, f *fakeSQS, o Options) *Client {
	t.Helper()
	c := NewClient(f.srv.URL, o)
	t.Cleanup(c.Close)
	return c
}

func TestRequestsCarryTargetContentTypeAndAWSMembers(t *testing.T) {
	f := newFakeSQS(t)
	c := newTestClient(t, f, Options{})
	ctx := t.Context()
	url, err := c.CreateQueue(ctx, "shapes", map[string]string{"VisibilityTimeout": "5"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send(ctx, c.SendRequest(url, []string{"one"}), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send(ctx, c.SendRequest(url, []string{"a", "b"}), 2); err != nil {
		t.Fatal(err)
	}
	got, err := c.Receive(ctx, c.ReceiveRequest(url, 2, 0, 7), nil)
	if err != nil || len(got) != 2 {
		t.Fatalf("receive: %v, %v", got, err)
	}
	if _, _, err := c.Delete(ctx, url, []string{got[0].ReceiptHandle}, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Delete(ctx, url, []string{got[1].ReceiptHandle}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Receive(ctx, c.ReceiveRequest(url, 1, 3, -1), nil); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteQueue(ctx, url); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		action string
		index  int
		want   map[string]any
	}{
		{"CreateQueue", 0, map[string]any{"QueueName": "shapes", "Attributes": map[string]any{"VisibilityTimeout": "5"}}},
		{"SendMessage", 0, map[string]any{"QueueUrl": url, "MessageBody": "one"}},
		{"SendMessageBatch", 0, map[string]any{"QueueUrl": url, "Entries": []any{
			map[string]any{"Id": "0", "MessageBody": "a"}, map[string]any{"Id": "1", "MessageBody": "b"}}}},
		{"ReceiveMessage", 0, map[string]any{"QueueUrl": url, "MaxNumberOfMessages": 2.0, "WaitTimeSeconds": 0.0, "VisibilityTimeout": 7.0}},
		{"ReceiveMessage", 1, map[string]any{"QueueUrl": url, "MaxNumberOfMessages": 1.0, "WaitTimeSeconds": 3.0}},
		{"DeleteMessage", 0, map[string]any{"QueueUrl": url, "ReceiptHandle": got[0].ReceiptHandle}},
		{"DeleteMessageBatch", 0, map[string]any{"QueueUrl": url, "Entries": []any{
			map[string]any{"Id": "0", "ReceiptHandle": got[1].ReceiptHandle}}}},
		{"DeleteQueue", 0, map[string]any{"QueueUrl": url}},
	}
	for _, tc := range cases {
		reqs := f.requestsOf(tc.action)
		if len(reqs) <= tc.index {
			t.Errorf("%s: %d requests, want more than %d", tc.action, len(reqs), tc.index)
			continue
		}
		r := reqs[tc.index]
		if r.ContentType != ContentType {
			t.Errorf("%s: Content-Type %q", tc.action, r.ContentType)
		}
		if r.Authorization != "" {
			t.Errorf("%s: an unsigned client sent Authorization %q", tc.action, r.Authorization)
		}
		if !reflect.DeepEqual(r.Body, tc.want) {
			t.Errorf("%s: body %v, want %v", tc.action, r.Body, tc.want)
		}
	}
}

func TestReceiveParsesMessages(t *testing.T) {
	f := newFakeSQS(t)
	c := newTestClient(t, f, Options{})
	url, err := c.CreateQueue(t.Context(), "parse", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := c.Send(t.Context(), c.SendRequest(url, []string{"x", "y", "z"}), 3); n != 3 || err != nil {
		t.Fatalf("send batch: %d, %v", n, err)
	}
	prior := []Message{{MessageID: "kept"}}
	got, err := c.Receive(t.Context(), c.ReceiveRequest(url, 10, 0, -1), prior)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0].MessageID != "kept" {
		t.Fatalf("receive appended %v to the prior message, want 3 more", got)
	}
	for _, m := range got[1:] {
		// The fake's handles hold a quote and a backslash: they must survive
		// decoding here and encoding in Delete.
		if m.MessageID == "" || !strings.Contains(m.ReceiptHandle, `"`) {
			t.Fatalf("message %+v lacks its id or handle", m)
		}
	}
	action, n, err := c.Delete(t.Context(), url, []string{got[1].ReceiptHandle, got[2].ReceiptHandle, got[3].ReceiptHandle}, true)
	if action != ActionDeleteMessageBatch || n != 3 || err != nil || f.messageCount() != 0 {
		t.Fatalf("delete batch: %s %d %v; %d messages left", action, n, err, f.messageCount())
	}
}

func TestErrorAnswersBecomeAPIErrors(t *testing.T) {
	f := newFakeSQS(t)
	c := newTestClient(t, f, Options{})
	_, err := c.Send(t.Context(), c.SendRequest(f.srv.URL+"/000000000000/missing", []string{"x"}), 1)
	var ae *APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v is not an *APIError", err)
	}
	if ae.Action != ActionSendMessage || ae.Status != 400 || ae.Code != "QueueDoesNotExist" || ae.Message != "The specified queue does not exist." {
		t.Fatalf("APIError %+v", ae)
	}
}

func TestPartlyFailedBatchIsABatchError(t *testing.T) {
	f := newFakeSQS(t)
	f.failDeletes = true
	c := newTestClient(t, f, Options{})
	url, _ := c.CreateQueue(t.Context(), "partial", nil)
	c.Send(t.Context(), c.SendRequest(url, []string{"a", "b"}), 2)
	got, _ := c.Receive(t.Context(), c.ReceiveRequest(url, 2, 0, -1), nil)
	_, n, err := c.Delete(t.Context(), url, []string{got[0].ReceiptHandle, got[1].ReceiptHandle}, true)
	var be *BatchError
	if !errors.As(err, &be) || n != 1 || be.Failed != 1 || be.Entries != 2 || be.Code != "ReceiptHandleIsInvalid" {
		t.Fatalf("delete of 2 with 1 failing: n=%d err=%v", n, err)
	}
}

func TestSignedClientSendsSigV4Authorization(t *testing.T) {
	f := newFakeSQS(t)
	f.verifier = awsauth.NewVerifier(awsauth.Credentials{"AKIDBENCH": "secret"})
	c := newTestClient(t, f, Options{AccessKey: "AKIDBENCH", SecretKey: "secret", Region: "eu-west-1"})
	url, err := c.CreateQueue(t.Context(), "signed", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The send reuses its pre-encoded request and payload hash; the delete
	// hashes its body per call. The fake's verifier checks each signature.
	send := c.SendRequest(url, []string{"x"})
	for range 2 {
		if _, err := c.Send(t.Context(), send, 1); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.Receive(t.Context(), c.ReceiveRequest(url, 1, 0, -1), nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("receive: %v %v", got, err)
	}
	if _, _, err := c.Delete(t.Context(), url, []string{got[0].ReceiptHandle}, false); err != nil {
		t.Fatal(err)
	}
	wrong := newTestClient(t, f, Options{AccessKey: "AKIDBENCH", SecretKey: "not-the-secret"})
	var ae *APIError
	if _, err := wrong.CreateQueue(t.Context(), "signed", nil); !errors.As(err, &ae) || ae.Status != 403 {
		t.Fatalf("a wrong secret got %v, want the fake's 403: the fake must check signatures", err)
	}
	for _, action := range []string{"CreateQueue", "SendMessage"} {
		auth := f.requestsOf(action)[0].Authorization
		if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDBENCH/") || !strings.Contains(auth, "/eu-west-1/sqs/aws4_request") ||
			!strings.Contains(auth, "x-amz-target") {
			t.Errorf("%s: Authorization %q is not a SigV4 signature over X-Amz-Target for sqs in eu-west-1", action, auth)
		}
	}
}
