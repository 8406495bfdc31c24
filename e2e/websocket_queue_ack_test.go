package e2e

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"
)

// TestWebSocketAckByTheFramesQueueURL: a device that subscribed to its
// queue by name may ack (and unsubscribe) with the queue URL that the
// queue_message frames carry.
func TestWebSocketAckByTheFramesQueueURL(t *testing.T) {
	s := startServer(t, "")
	q := sqsClient(s)
	name := "device-" + uuid.NewString()[:8]
	url := newQueueNamed(t, q, name)
	if _, err := q.SendMessage(ctxFor(t, 30*time.Second), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("m")}); err != nil {
		t.Fatal(err)
	}
	c := dialWS(t, s)
	c.request(map[string]any{"type": "subscribe_queue", "queue": name})
	c.next(10*time.Second, ofType("subscribed"))
	m := c.next(15*time.Second, ofType("queue_message"))
	frameQueue, _ := m["queue"].(string)
	if frameQueue != url {
		t.Fatalf("queue_message names the queue %q, want its URL %q", frameQueue, url)
	}
	id := c.request(map[string]any{"type": "ack", "queue": frameQueue, "receipt_handle": m["receipt_handle"]})
	if f := c.next(10*time.Second, func(f map[string]any) bool { return f["id"] == id }); f["type"] != "acked" {
		t.Fatalf("ack by the frame's queue URL answered %v", f)
	}
	id = c.request(map[string]any{"type": "unsubscribe_queue", "queue": frameQueue})
	if f := c.next(10*time.Second, func(f map[string]any) bool { return f["id"] == id }); f["type"] != "unsubscribed" {
		t.Fatalf("unsubscribe_queue by URL answered %v", f)
	}
	if got := receiveN(t, q, url, 1, 2*time.Second, 30); len(got) != 0 {
		t.Fatalf("the acked message is still in the queue: %v", got)
	}
}
