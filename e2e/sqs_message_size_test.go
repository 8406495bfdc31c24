package e2e

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

// tooLong is AWS's text for a message over the queue's MaximumMessageSize.
const tooLong = "One or more parameters are invalid. Reason: Message must be shorter than 1048576 bytes."

// TestSQSMaximumMessageSizeIsOneMiB: as on AWS since August 2025, a new
// queue's MaximumMessageSize is 1,048,576 bytes, a message of exactly that
// size is sent and received whole, one byte more is refused with AWS's
// error, and a larger attribute value is refused; over JSON (the Go SDK)
// and the Query protocol, on both engines.
func TestSQSMaximumMessageSizeIsOneMiB(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		// The SDK's own retries, unlike the other tests' clients: under CPU
		// contention the Go transport sometimes closes the connection of
		// a large exchange while its answer is being read ("use of closed
		// network connection" on a 200, aws/aws-sdk-go-v2#2737), which the
		// SDK retries by default since v1.33 (#2949).
		c := sqs.New(sqsClient(s).Options(), func(o *sqs.Options) { o.RetryMaxAttempts = 3 })
		ctx := ctxFor(t, time.Minute)
		// Visibility 0: a receive retried after its answer was lost finds
		// the message again.
		q := newQueue(t, c, "", map[string]string{"VisibilityTimeout": "0"})
		attrs, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(q), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameMaximumMessageSize}})
		if err != nil || attrs.Attributes["MaximumMessageSize"] != "1048576" {
			t.Fatalf("MaximumMessageSize of a new queue: %v, %v; want 1048576", attrs, err)
		}
		body := strings.Repeat("x", 1<<20)
		if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q), MessageBody: aws.String(body)}); err != nil {
			t.Fatalf("a message of 1,048,576 bytes: %v", err)
		}
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q), WaitTimeSeconds: 5})
		if err != nil {
			t.Fatalf("receive the 1 MiB message: %v", err)
		}
		if len(out.Messages) != 1 || aws.ToString(out.Messages[0].Body) != body {
			t.Fatalf("receive the 1 MiB message: %d messages, want 1 with the body sent", len(out.Messages))
		}
		_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q), MessageBody: aws.String(body + "x")})
		var apiErr smithy.APIError
		if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "InvalidParameterValue" || apiErr.ErrorMessage() != tooLong {
			t.Fatalf("a message one byte too long: %v; want InvalidParameterValue %q", err, tooLong)
		}
		_, err = c.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(q), Attributes: map[string]string{"MaximumMessageSize": "1048577"}})
		if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "InvalidAttributeValue" {
			t.Fatalf("MaximumMessageSize 1048577: %v; want InvalidAttributeValue", err)
		}

		status, xml := queryCall(t, s.URL+"/", url.Values{"Action": {"SendMessage"}, "QueueUrl": {q}, "MessageBody": {body}})
		if status != 200 || !strings.Contains(xml, "<MessageId>") {
			t.Fatalf("Query: a message of 1,048,576 bytes: %d %s", status, xml)
		}
		status, xml = queryCall(t, s.URL+"/", url.Values{"Action": {"SendMessage"}, "QueueUrl": {q}, "MessageBody": {body + "x"}})
		if status != 400 || !strings.Contains(xml, "<Code>InvalidParameterValue</Code>") || !strings.Contains(xml, "<Message>"+tooLong+"</Message>") {
			t.Fatalf("Query: a message one byte too long: %d %s", status, xml)
		}
	})
}
