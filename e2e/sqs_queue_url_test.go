package e2e

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestSQSBareQueueNameAsQueueURL: as on AWS, a queue's bare name works
// where its URL is expected, over JSON (the Go SDK) and the Query
// protocol, on both engines.
func TestSQSBareQueueNameAsQueueURL(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		q := newQueue(t, c, "", nil)
		name := q[strings.LastIndex(q, "/")+1:]
		if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(name), MessageBody: aws.String("by name")}); err != nil {
			t.Fatalf("SendMessage with QueueUrl %q: %v", name, err)
		}
		status, xml := queryCall(t, s.URL+"/", url.Values{"Action": {"SendMessage"}, "QueueUrl": {name}, "MessageBody": {"by name, Query"}})
		if status != 200 {
			t.Fatalf("Query SendMessage with QueueUrl %q: %d %s", name, status, xml)
		}
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q), MaxNumberOfMessages: 10, WaitTimeSeconds: 2})
		if err != nil {
			t.Fatal(err)
		}
		for len(out.Messages) < 2 {
			more, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q), MaxNumberOfMessages: 10, WaitTimeSeconds: 2})
			if err != nil || len(more.Messages) == 0 {
				t.Fatalf("received %d of the 2 messages sent by name: %v", len(out.Messages), err)
			}
			out.Messages = append(out.Messages, more.Messages...)
		}
	})
}

// TestSQSAccountActionAtAQueueURL: as on AWS, a Query request (GET) for
// an action on the account, not on a queue, sent to a queue URL is
// InvalidAction, "The action ListQueues is not valid for this endpoint."
func TestSQSAccountActionAtAQueueURL(t *testing.T) {
	s := startServer(t, "")
	q := newQueue(t, sqsClient(s), "", nil)
	resp, err := http.Get(q + "?Action=ListQueues&Version=2012-11-05")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "<Code>InvalidAction</Code>") ||
		!strings.Contains(string(body), "The action ListQueues is not valid for this endpoint.") {
		t.Fatalf("GET ListQueues at a queue URL: %d %s", resp.StatusCode, body)
	}
}
