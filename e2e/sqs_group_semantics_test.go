package e2e

import (
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// receiveOnce makes one ReceiveMessage call without waiting and returns
// the messages and their bodies.
func receiveOnce(t *testing.T, c *sqs.Client, url string, maxN, vis int32) ([]types.Message, []string) {
	t.Helper()
	out, err := c.ReceiveMessage(ctxFor(t, 30*time.Second), &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(url), MaxNumberOfMessages: maxN, VisibilityTimeout: vis,
	})
	if err != nil {
		t.Fatalf("ReceiveMessage: %v", err)
	}
	bodies := make([]string, len(out.Messages))
	for i, m := range out.Messages {
		bodies[i] = aws.ToString(m.Body)
	}
	return out.Messages, bodies
}

// TestSQSFIFOGroupSemanticsAsAWS: as on AWS, only a group's first message
// blocks it. When that message comes back (its visibility set to 0) it is
// delivered although the messages received with it are still in flight; a
// group never received is served before it; the group is then blocked by
// that message alone, and deleting it releases the rest. Both engines.
func TestSQSFIFOGroupSemanticsAsAWS(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		q := newQueue(t, c, ".fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"})
		for _, m := range []struct{ body, group string }{{"a1", "A"}, {"a2", "A"}, {"a3", "A"}, {"b1", "B"}} {
			if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q), MessageBody: aws.String(m.body), MessageGroupId: aws.String(m.group)}); err != nil {
				t.Fatal(err)
			}
		}
		first, got := receiveOnce(t, c, q, 3, 2)
		if !slices.Equal(got, []string{"a1", "a2", "a3"}) {
			t.Fatalf("first receive %v, want [a1 a2 a3]", got)
		}
		if _, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
			QueueUrl: aws.String(q), ReceiptHandle: first[0].ReceiptHandle, VisibilityTimeout: 0,
		}); err != nil {
			t.Fatal(err)
		}
		second, got := receiveOnce(t, c, q, 10, 30)
		if !slices.Equal(got, []string{"b1", "a1"}) {
			t.Fatalf("after a1's visibility was set to 0: %v, want [b1 a1] (the fresh group first, a1 back although a2 and a3 are in flight)", got)
		}
		// a2 and a3 come back after their 2 s; a1, received again for
		// 30 s, still blocks group A.
		time.Sleep(2500 * time.Millisecond)
		if _, got := receiveOnce(t, c, q, 10, 30); len(got) != 0 {
			t.Fatalf("group A delivered %v while its first message is in flight", got)
		}
		if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q), ReceiptHandle: second[1].ReceiptHandle}); err != nil {
			t.Fatal(err)
		}
		if _, got := receiveOnce(t, c, q, 10, 30); !slices.Equal(got, []string{"a2", "a3"}) {
			t.Fatalf("after deleting a1: %v, want [a2 a3]", got)
		}
	})
}

// TestSQSStandardReturnedMessageFirst: as on AWS, on a standard queue a
// message whose visibility timeout ended is delivered before messages sent
// after it was received. Both engines.
func TestSQSStandardReturnedMessageFirst(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		q := newQueue(t, c, "", nil)
		send := func(body string) {
			t.Helper()
			if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q), MessageBody: aws.String(body)}); err != nil {
				t.Fatal(err)
			}
		}
		send("old")
		if _, got := receiveOnce(t, c, q, 1, 1); !slices.Equal(got, []string{"old"}) {
			t.Fatalf("first receive %v, want [old]", got)
		}
		send("new")
		time.Sleep(1500 * time.Millisecond)
		if _, got := receiveOnce(t, c, q, 1, 30); !slices.Equal(got, []string{"old"}) {
			t.Fatalf("after old's timeout ended: %v, want [old] before the newer message", got)
		}
		if _, got := receiveOnce(t, c, q, 1, 30); !slices.Equal(got, []string{"new"}) {
			t.Fatalf("then %v, want [new]", got)
		}
	})
}
