package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/heraldmq/herald/load/sqsload"
)

func newCeilingServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(newCeiling(1024))
	t.Cleanup(srv.Close)
	return srv
}

// TestCeilingAnswersTheBench drives the ceiling with the client `herald
// bench sqs` runs, in both of the benchmark's scenarios.
func TestCeilingAnswersTheBench(t *testing.T) {
	srv := newCeilingServer(t)
	for _, batch := range []int{1, 10} {
		rep, err := sqsload.RunMix(t.Context(), sqsload.Config{Server: srv.URL, Concurrency: 4, Requests: 50, Queues: 1,
			Batch: batch, MessageSize: 1024, Mix: sqsload.Mix{Sends: 1, Receives: 1, Delete: true}, Visibility: -1, Prefill: -1})
		if err != nil {
			t.Fatalf("batch %d: %v", batch, err)
		}
		if rep.All.Errors != 0 || rep.All.Calls != 150 || rep.CleanupError != "" {
			t.Fatalf("batch %d: %d calls, %d errors (%s), cleanup %q", batch, rep.All.Calls, rep.All.Errors, rep.All.FirstError, rep.CleanupError)
		}
		for _, a := range rep.Actions {
			if a.Items != 50*batch {
				t.Fatalf("batch %d: %s handled %d messages, want %d", batch, a.Name, a.Items, 50*batch)
			}
		}
	}
}

// TestCeilingAnswersTheSDK checks that the answers are valid for the AWS
// SDK, which checks the MD5 digests of sent and received bodies.
func TestCeilingAnswersTheSDK(t *testing.T) {
	srv := newCeilingServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AK", SecretAccessKey: "SK"}, nil
		})})
	created, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	if err != nil || !strings.HasSuffix(aws.ToString(created.QueueUrl), "/000000000000/q") {
		t.Fatalf("CreateQueue: %v %v", created, err)
	}
	q := created.QueueUrl
	body := `a body with "quotes", a \ backslash and ünïcode`
	sent, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(body)})
	if err != nil || aws.ToString(sent.MD5OfMessageBody) != md5Hex(body) {
		t.Fatalf("SendMessage: %v %v", sent, err)
	}
	entries := []types.SendMessageBatchRequestEntry{
		{Id: aws.String("first"), MessageBody: aws.String("one")},
		{Id: aws.String("second"), MessageBody: aws.String(body)},
	}
	batch, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: entries})
	if err != nil || len(batch.Successful) != 2 || aws.ToString(batch.Successful[1].Id) != "second" ||
		aws.ToString(batch.Successful[1].MD5OfMessageBody) != md5Hex(body) {
		t.Fatalf("SendMessageBatch: %+v %v", batch, err)
	}
	got, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10})
	if err != nil || len(got.Messages) != 10 || len(aws.ToString(got.Messages[0].Body)) != 1024 {
		t.Fatalf("ReceiveMessage: %d messages, %v", len(got.Messages), err)
	}
	if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q, ReceiptHandle: got.Messages[0].ReceiptHandle}); err != nil {
		t.Fatalf("DeleteMessage: %v", err)
	}
	del, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: q, Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("x"), ReceiptHandle: got.Messages[1].ReceiptHandle},
	}})
	if err != nil || len(del.Successful) != 1 || aws.ToString(del.Successful[0].Id) != "x" {
		t.Fatalf("DeleteMessageBatch: %+v %v", del, err)
	}
	if _, err := c.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: q}); err != nil {
		t.Fatalf("DeleteQueue: %v", err)
	}
}

func TestCeilingRefusesOtherCalls(t *testing.T) {
	srv := newCeilingServer(t)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
	req.Header.Set("X-Amz-Target", "AmazonSQS.ChangeMessageVisibility")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `"__type":"com.amazonaws.sqs#UnsupportedOperation"`) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

func TestScanStrings(t *testing.T) {
	doc := []byte(`{"QueueUrl":"u","Entries":[{"Id":"0","MessageBody":"plain"},{"Id":"1","MessageBody":"q\"uo\\te\u00e9"}]}`)
	ids, ok := scanStrings(doc, `"Id":"`)
	if !ok || len(ids) != 2 || string(ids[0]) != "0" || string(ids[1]) != "1" {
		t.Fatalf("ids %q %v", ids, ok)
	}
	bodies, ok := scanStrings(doc, `"MessageBody":"`)
	if !ok || len(bodies) != 2 || string(bodies[0]) != "plain" || string(bodies[1]) != `q"uo\teé` {
		t.Fatalf("bodies %q %v", bodies, ok)
	}
	if _, ok := scanStrings([]byte(`{"Id":"unterminated`), `"Id":"`); ok {
		t.Fatal("an unterminated string scanned")
	}
	if n, ok := scanNumber([]byte(`{"MaxNumberOfMessages": 7,"x":1}`), `"MaxNumberOfMessages":`); !ok || n != 7 {
		t.Fatalf("scanNumber %d %v", n, ok)
	}
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}
