package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"

	"github.com/heraldmq/herald/internal/promtext"
)

// These tests drive Herald's SQS API with the unchanged aws-sdk-go-v2 client
// (which checks every MD5 Herald returns) on each storage setup.

func newQueue(t *testing.T, c *sqs.Client, suffix string, attrs map[string]string) string {
	t.Helper()
	name := "e2e-" + uuid.NewString()[:12] + suffix
	out, err := c.CreateQueue(ctxFor(t, 30*time.Second), &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		t.Fatalf("CreateQueue %s: %v", name, err)
	}
	return aws.ToString(out.QueueUrl)
}

func queueArn(t *testing.T, c *sqs.Client, url string) string {
	t.Helper()
	out, err := c.GetQueueAttributes(ctxFor(t, 30*time.Second), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes["QueueArn"]
}

// receiveN receives until n messages arrived or the deadline passed.
func receiveN(t *testing.T, c *sqs.Client, url string, n int, within time.Duration, vis int32) []types.Message {
	t.Helper()
	var got []types.Message
	deadline := time.Now().Add(within)
	for len(got) < n && time.Now().Before(deadline) {
		out, err := c.ReceiveMessage(ctxFor(t, 30*time.Second), &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: vis,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
			MessageAttributeNames:       []string{"All"},
		})
		if err != nil {
			t.Fatalf("ReceiveMessage: %v", err)
		}
		got = append(got, out.Messages...)
	}
	return got
}

func deleteAll(t *testing.T, c *sqs.Client, url string, msgs []types.Message) {
	t.Helper()
	for _, m := range msgs {
		if _, err := c.DeleteMessage(ctxFor(t, 30*time.Second), &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}); err != nil {
			t.Fatalf("DeleteMessage: %v", err)
		}
	}
}

func TestSQSSendReceiveDelete(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		url := newQueue(t, c, "", nil)

		sent, err := c.SendMessage(ctx, &sqs.SendMessageInput{
			QueueUrl: aws.String(url), MessageBody: aws.String("héllo, queue"),
			MessageAttributes: map[string]types.MessageAttributeValue{
				"colour": {DataType: aws.String("String"), StringValue: aws.String("blue")},
				"bytes":  {DataType: aws.String("Binary"), BinaryValue: []byte{0, 1, 2, 255}},
			},
		})
		if err != nil {
			t.Fatalf("SendMessage: %v", err)
		}
		attrs, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
		if err != nil {
			t.Fatal(err)
		}
		if got := attrs.Attributes["ApproximateNumberOfMessages"]; got != "1" {
			t.Errorf("ApproximateNumberOfMessages = %q after one send, want 1", got)
		}

		msgs := receiveN(t, c, url, 1, 10*time.Second, 30)
		if len(msgs) != 1 {
			t.Fatalf("received %d messages, want 1", len(msgs))
		}
		m := msgs[0]
		if aws.ToString(m.MessageId) != aws.ToString(sent.MessageId) || aws.ToString(m.Body) != "héllo, queue" {
			t.Errorf("received %s %q, want %s %q", aws.ToString(m.MessageId), aws.ToString(m.Body), aws.ToString(sent.MessageId), "héllo, queue")
		}
		if got := m.MessageAttributes["bytes"].BinaryValue; string(got) != "\x00\x01\x02\xff" {
			t.Errorf("binary attribute = %v", got)
		}
		if m.Attributes["ApproximateReceiveCount"] != "1" || m.Attributes["SentTimestamp"] == "" || m.Attributes["SenderId"] == "" {
			t.Errorf("system attributes = %v", m.Attributes)
		}
		attrs, err = c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
		if err != nil {
			t.Fatal(err)
		}
		if got := attrs.Attributes["ApproximateNumberOfMessagesNotVisible"]; got != "1" {
			t.Errorf("ApproximateNumberOfMessagesNotVisible = %q while in flight, want 1", got)
		}
		deleteAll(t, c, url, msgs)
		if rest := receiveN(t, c, url, 1, 2*time.Second, 30); len(rest) != 0 {
			t.Errorf("a deleted message came back: %v", aws.ToString(rest[0].Body))
		}
		// Each action is counted on /metrics under its own name.
		got, err := promtext.Fetch(ctx, http.DefaultClient, s.URL+"/metrics",
			`herald_aws_requests_total{action="SendMessage",service="sqs",status="200"}`,
			`herald_aws_requests_total{action="DeleteMessage",service="sqs",status="200"}`,
			`herald_aws_request_duration_seconds_count{action="ReceiveMessage",service="sqs"}`)
		if err != nil {
			t.Fatal(err)
		}
		if got[`herald_aws_requests_total{action="SendMessage",service="sqs",status="200"}`] != 1 ||
			got[`herald_aws_requests_total{action="DeleteMessage",service="sqs",status="200"}`] != 1 ||
			got[`herald_aws_request_duration_seconds_count{action="ReceiveMessage",service="sqs"}`] < 2 {
			t.Errorf("/metrics per action: %v, want 1 SendMessage, 1 DeleteMessage, at least 2 ReceiveMessage", got)
		}
	})
}

func TestSQSVisibilityTimeoutReturnsMessage(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		url := newQueue(t, c, "", map[string]string{"VisibilityTimeout": "1"})
		if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("again")}); err != nil {
			t.Fatal(err)
		}
		first := receiveN(t, c, url, 1, 10*time.Second, 1)
		if len(first) != 1 {
			t.Fatal("nothing received")
		}
		second := receiveN(t, c, url, 1, 10*time.Second, 1)
		if len(second) != 1 || aws.ToString(second[0].MessageId) != aws.ToString(first[0].MessageId) {
			t.Fatalf("the message did not come back after its visibility timeout: %v", second)
		}
		if got := second[0].Attributes["ApproximateReceiveCount"]; got != "2" {
			t.Errorf("ApproximateReceiveCount = %s on the second receive", got)
		}
		// Extend the timeout: it stays hidden past the queue's 1 s.
		if _, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: second[0].ReceiptHandle, VisibilityTimeout: 30}); err != nil {
			t.Fatal(err)
		}
		if again := receiveN(t, c, url, 1, 2500*time.Millisecond, 1); len(again) != 0 {
			t.Error("ChangeMessageVisibility(30) did not keep the message hidden")
		}
		// Back to 0: visible at once.
		if _, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: second[0].ReceiptHandle, VisibilityTimeout: 0}); err != nil {
			t.Fatal(err)
		}
		if again := receiveN(t, c, url, 1, 5*time.Second, 30); len(again) != 1 {
			t.Error("ChangeMessageVisibility(0) did not make the message visible")
		}
	})
}

func TestSQSBatchesAndDelay(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		url := newQueue(t, c, "", nil)
		var entries []types.SendMessageBatchRequestEntry
		for i := range 10 {
			ent := types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprintf("m%d", i)), MessageBody: aws.String(fmt.Sprintf("body %d", i))}
			if i == 9 {
				ent.DelaySeconds = 2 // one delayed message
			}
			entries = append(entries, ent)
		}
		out, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
		if err != nil || len(out.Successful) != 10 || len(out.Failed) != 0 {
			t.Fatalf("SendMessageBatch: %v, %d ok, %d failed", err, len(out.Successful), len(out.Failed))
		}
		now := receiveN(t, c, url, 9, 5*time.Second, 60)
		if len(now) != 9 {
			t.Fatalf("received %d undelayed messages, want 9", len(now))
		}
		for _, m := range now {
			if aws.ToString(m.Body) == "body 9" {
				t.Error("the delayed message arrived before its delay")
			}
		}
		if later := receiveN(t, c, url, 1, 6*time.Second, 60); len(later) != 1 || aws.ToString(later[0].Body) != "body 9" {
			t.Errorf("the delayed message did not arrive after its delay: %v", later)
		}
		var dels []types.DeleteMessageBatchRequestEntry
		for i, m := range now {
			dels = append(dels, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
		}
		dels = append(dels, types.DeleteMessageBatchRequestEntry{Id: aws.String("bogus"), ReceiptHandle: aws.String("not-a-receipt-handle")})
		dout, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: dels})
		if err != nil {
			t.Fatal(err)
		}
		if len(dout.Successful) != 9 || len(dout.Failed) != 1 || aws.ToString(dout.Failed[0].Code) != "ReceiptHandleIsInvalid" {
			t.Errorf("DeleteMessageBatch: %d ok, failed %+v", len(dout.Successful), dout.Failed)
		}
	})
}

func TestSQSLongPollWakesOnSend(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		url := newQueue(t, c, "", nil)
		took := longPollAgainstSend(t, c, c, url)
		if took > 3*time.Second {
			t.Errorf("a 10 s long poll returned %v after the send; it should wake at once", took)
		}
	})
}

// longPollAgainstSend starts a 10 s receive through poller, sends through
// sender half a second later and returns how long after the send the
// receive returned the message.
func longPollAgainstSend(t *testing.T, poller, sender *sqs.Client, url string) time.Duration {
	t.Helper()
	type result struct {
		msgs []types.Message
		at   time.Time
		err  error
	}
	done := make(chan result, 1)
	go func() {
		out, err := poller.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 10})
		r := result{at: time.Now(), err: err}
		if out != nil {
			r.msgs = out.Messages
		}
		done <- r
	}()
	time.Sleep(500 * time.Millisecond)
	sentAt := time.Now()
	if _, err := sender.SendMessage(ctxFor(t, 30*time.Second), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("wake")}); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || len(r.msgs) != 1 {
		t.Fatalf("long poll: %v, %d messages", r.err, len(r.msgs))
	}
	return r.at.Sub(sentAt)
}

func TestSQSDeadLetterQueue(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		dlq := newQueue(t, c, "", nil)
		src := newQueue(t, c, "", map[string]string{
			"VisibilityTimeout": "0",
			"RedrivePolicy":     fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"2"}`, queueArn(t, c, dlq)),
		})
		sent, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(src), MessageBody: aws.String("poison")})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if got := receiveN(t, c, src, 1, 5*time.Second, 0); len(got) != 1 {
				t.Fatalf("receive %d from the source: nothing", i+1)
			}
		}
		if got := receiveN(t, c, src, 1, 2*time.Second, 0); len(got) != 0 {
			t.Fatalf("a third receive got the message; it should have moved to the dead-letter queue")
		}
		moved := receiveN(t, c, dlq, 1, 5*time.Second, 30)
		if len(moved) != 1 || aws.ToString(moved[0].MessageId) != aws.ToString(sent.MessageId) {
			t.Fatalf("dead-letter queue holds %v", moved)
		}
		if got, want := moved[0].Attributes["DeadLetterQueueSourceArn"], queueArn(t, c, src); got != want {
			t.Errorf("DeadLetterQueueSourceArn = %q, want %q", got, want)
		}
		// As on AWS the receive count carries over: two receives, the one
		// that moved the message, and this one.
		if got := moved[0].Attributes["ApproximateReceiveCount"]; got != "4" {
			t.Errorf("ApproximateReceiveCount in the dead-letter queue = %s, want 4", got)
		}
		srcs, err := c.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq)})
		if err != nil || len(srcs.QueueUrls) != 1 || srcs.QueueUrls[0] != src {
			t.Errorf("ListDeadLetterSourceQueues = %v, %v", srcs, err)
		}
	})
}

func TestSQSFIFOOrderGroupsAndDeduplication(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		url := newQueue(t, c, ".fifo", map[string]string{"FifoQueue": "true", "VisibilityTimeout": "2"})
		var seqs []string
		for i := range 6 {
			out, err := c.SendMessage(ctx, &sqs.SendMessageInput{
				QueueUrl: aws.String(url), MessageBody: aws.String(fmt.Sprintf("g%d-%d", i%2, i/2)),
				MessageGroupId: aws.String(fmt.Sprintf("g%d", i%2)), MessageDeduplicationId: aws.String(fmt.Sprintf("d%d", i)),
			})
			if err != nil {
				t.Fatal(err)
			}
			seqs = append(seqs, aws.ToString(out.SequenceNumber))
		}
		for i := 1; i < len(seqs); i++ {
			if len(seqs[i]) != len(seqs[i-1]) || seqs[i] <= seqs[i-1] {
				t.Errorf("sequence numbers do not increase: %v", seqs)
			}
		}
		// Resending a deduplication id inside 5 minutes stores nothing new.
		dup, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("dup"), MessageGroupId: aws.String("g0"), MessageDeduplicationId: aws.String("d0")})
		if err != nil {
			t.Fatal(err)
		}

		// One receive takes one group's head messages; the group then blocks.
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 2,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
		if err != nil || len(out.Messages) != 2 {
			t.Fatalf("receive: %v, %d messages", err, len(out.Messages))
		}
		if got := []string{aws.ToString(out.Messages[0].Body), aws.ToString(out.Messages[1].Body)}; got[0] != "g0-0" || got[1] != "g0-1" {
			t.Errorf("first receive = %v, want the head of group g0 in order", got)
		}
		if out.Messages[0].Attributes["MessageGroupId"] != "g0" || out.Messages[0].Attributes["SequenceNumber"] != seqs[0] {
			t.Errorf("FIFO attributes = %v", out.Messages[0].Attributes)
		}
		if aws.ToString(out.Messages[0].MessageId) != aws.ToString(dup.MessageId) {
			t.Errorf("the duplicate send returned MessageId %s, want the original's", aws.ToString(dup.MessageId))
		}
		next, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range next.Messages {
			if body := aws.ToString(m.Body); body[:2] == "g0" {
				t.Errorf("got %s while group g0 had messages in flight", body)
			}
		}
		if len(next.Messages) != 3 {
			t.Errorf("second receive got %d messages, want all 3 of group g1", len(next.Messages))
		}
		// Delete g0's in-flight messages: its last message becomes receivable.
		deleteAll(t, c, url, out.Messages)
		last := receiveN(t, c, url, 1, 5*time.Second, 30)
		if len(last) != 1 || aws.ToString(last[0].Body) != "g0-2" {
			t.Errorf("after deleting g0's head, received %v, want g0-2", last)
		}
	})
}

func TestSQSErrorsAreAWSErrors(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		_, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing-" + uuid.NewString()[:8])})
		var missing *types.QueueDoesNotExist
		if !errors.As(err, &missing) {
			t.Errorf("GetQueueUrl of a missing queue: %v, want QueueDoesNotExist", err)
		}
		url := newQueue(t, c, "", nil)
		_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("bad \x02")})
		var contents *types.InvalidMessageContents
		if !errors.As(err, &contents) {
			t.Errorf("a body with U+0002: %v, want InvalidMessageContents", err)
		}
		_, err = c.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)})
		var inProgress *types.PurgeQueueInProgress
		if !errors.As(err, &inProgress) {
			t.Errorf("a second purge within 60 s: %v, want PurgeQueueInProgress", err)
		}
	})
}

// TestSQSProducersAndConsumersRace has producers and consumers race on one
// queue: every message sent must be received at least once.
func TestSQSProducersAndConsumersRace(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		url := newQueue(t, c, "", map[string]string{"VisibilityTimeout": "5"})
		const producers, perProducer, consumers = 4, 200, 4
		ctx := ctxFor(t, 2*time.Minute)

		var mu sync.Mutex
		seen := map[string]int{}
		sent := map[string]bool{}
		var wg sync.WaitGroup
		for p := range producers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < perProducer; i += 10 {
					var entries []types.SendMessageBatchRequestEntry
					for j := range 10 {
						entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(j)), MessageBody: aws.String(fmt.Sprintf("p%d-%d", p, i+j))})
					}
					out, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
					if err != nil || len(out.Failed) > 0 {
						t.Errorf("send: %v %v", err, out)
						return
					}
					mu.Lock()
					for _, ok := range out.Successful {
						sent[aws.ToString(ok.MessageId)] = true
					}
					mu.Unlock()
				}
			}()
		}
		stop := make(chan struct{})
		var cwg sync.WaitGroup
		for range consumers {
			cwg.Add(1)
			go func() {
				defer cwg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
					if err != nil {
						t.Errorf("receive: %v", err)
						return
					}
					var dels []types.DeleteMessageBatchRequestEntry
					mu.Lock()
					for i, m := range out.Messages {
						seen[aws.ToString(m.MessageId)]++
						dels = append(dels, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
					}
					mu.Unlock()
					if len(dels) > 0 {
						if _, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: dels}); err != nil {
							t.Errorf("delete: %v", err)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			n := len(seen)
			mu.Unlock()
			if n >= producers*perProducer {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		close(stop)
		cwg.Wait()
		if len(sent) != producers*perProducer {
			t.Fatalf("%d messages acknowledged as sent, want %d", len(sent), producers*perProducer)
		}
		for id := range sent {
			if seen[id] == 0 {
				t.Errorf("message %s was sent but never received", id)
			}
		}
	})
}

// TestSQSReceiveRequestAttemptId: the Go SDK retrying a FIFO receive with
// the same ReceiveRequestAttemptId (as after a lost response) gets the same
// message and receipt handle, on both setups.
func TestSQSReceiveRequestAttemptId(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		url := newQueue(t, c, ".fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"})
		for _, body := range []string{"a", "b"} {
			if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body), MessageGroupId: aws.String("g")}); err != nil {
				t.Fatal(err)
			}
		}
		receive := func(attempt string) []types.Message {
			out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 1,
				ReceiveRequestAttemptId: aws.String(attempt), VisibilityTimeout: 30})
			if err != nil {
				t.Fatal(err)
			}
			return out.Messages
		}
		first, retry := receive("attempt-1"), receive("attempt-1")
		if len(first) != 1 || len(retry) != 1 || aws.ToString(first[0].Body) != "a" ||
			aws.ToString(retry[0].ReceiptHandle) != aws.ToString(first[0].ReceiptHandle) {
			t.Fatalf("receive then retry: %v then %v, want message a twice under one receipt handle", first, retry)
		}
		if other := receive("attempt-2"); len(other) != 0 {
			t.Fatalf("another attempt got %q while the group's message is in flight", aws.ToString(other[0].Body))
		}
	})
}
