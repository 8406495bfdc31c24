package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/smithy-go"
)

// TestSNSFidelityErrors checks, through aws-sdk-go-v2 on both engines,
// that Herald refuses what AWS refuses with AWS's code and words (issue
// 15, item 11).
func TestSNSFidelityErrors(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c, q := snsClient(s), sqsClient(s)
		topic := newTopic(t, c, nil)
		fifoQueue := queueArn(t, q, newQueue(t, q, ".fifo", map[string]string{"FifoQueue": "true"}))
		entries := func(n int, size int) []snstypes.PublishBatchRequestEntry {
			out := make([]snstypes.PublishBatchRequestEntry, n)
			for i := range out {
				out[i] = snstypes.PublishBatchRequestEntry{Id: aws.String(fmt.Sprint("e", i)), Message: aws.String(strings.Repeat("x", size))}
			}
			return out
		}
		badAttr := map[string]snstypes.MessageAttributeValue{"k": {DataType: aws.String("String."), StringValue: aws.String("v")}}
		tests := []struct {
			name      string
			call      func(ctx context.Context) error
			code, msg string
		}{
			{"Publish to a malformed ARN", func(ctx context.Context) error {
				_, err := c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String("orders"), Message: aws.String("m")})
				return err
			}, "InvalidParameter", "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1"},
			{"Unsubscribe of a pending subscription's answer", func(ctx context.Context) error {
				_, err := c.Unsubscribe(ctx, &sns.UnsubscribeInput{SubscriptionArn: aws.String("pending confirmation")})
				return err
			}, "InvalidParameter", "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 1"},
			{"Publish with an empty Subject", func(ctx context.Context) error {
				_, err := c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m"), Subject: aws.String("")})
				return err
			}, "InvalidParameter", "Invalid parameter: Subject"},
			{"Publish with DataType String.", func(ctx context.Context) error {
				_, err := c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m"), MessageAttributes: badAttr})
				return err
			}, "ParameterValueInvalid", "The message attribute 'k' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String."},
			{"Publish JSON without default", func(ctx context.Context) error {
				_, err := c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(`{"sqs":"q"}`), MessageStructure: aws.String("json")})
				return err
			}, "InvalidParameter", "Invalid parameter: Message Structure - No default entry in JSON message body"},
			{"Publish JSON that does not parse", func(ctx context.Context) error {
				_, err := c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(`{"default":`), MessageStructure: aws.String("json")})
				return err
			}, "InvalidParameter", "Invalid parameter: Message Structure - JSON message body failed to parse"},
			{"Subscribe a FIFO queue to a standard topic", func(ctx context.Context) error {
				_, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(fifoQueue)})
				return err
			}, "InvalidParameter", "Invalid parameter: Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics"},
			{"PublishBatch with no entries", func(ctx context.Context) error {
				_, err := c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: aws.String(topic), PublishBatchRequestEntries: []snstypes.PublishBatchRequestEntry{}})
				return err
			}, "EmptyBatchRequest", "The batch request doesn't contain any entries."},
			{"PublishBatch of eleven", func(ctx context.Context) error {
				_, err := c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: aws.String(topic), PublishBatchRequestEntries: entries(11, 1)})
				return err
			}, "TooManyEntriesInBatchRequest", "The batch request contains more entries than permissible."},
			{"PublishBatch with one Id twice", func(ctx context.Context) error {
				es := entries(2, 1)
				es[1].Id = es[0].Id
				_, err := c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: aws.String(topic), PublishBatchRequestEntries: es})
				return err
			}, "BatchEntryIdsNotDistinct", "Two or more batch entries in the request have the same Id."},
			{"PublishBatch over 256 KiB", func(ctx context.Context) error {
				_, err := c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: aws.String(topic), PublishBatchRequestEntries: entries(3, 100000)})
				return err
			}, "BatchRequestTooLong", "The length of all the messages put together is more than the limit."},
			{"PublishBatch with one bad attribute", func(ctx context.Context) error {
				es := entries(2, 1)
				es[1].MessageAttributes = badAttr
				_, err := c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: aws.String(topic), PublishBatchRequestEntries: es})
				return err
			}, "ParameterValueInvalid", "The message attribute 'k' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String."},
			{"AddPermission of an account action", func(ctx context.Context) error {
				_, err := c.AddPermission(ctx, &sns.AddPermissionInput{TopicArn: aws.String(topic), Label: aws.String("l"),
					AWSAccountId: []string{"111111111111"}, ActionName: []string{"Publish", "CreateTopic"}})
				return err
			}, "InvalidParameter", "Invalid parameter: Policy statement action out of service scope!"},
			{"ConfirmSubscription with a bad token", func(ctx context.Context) error {
				_, err := c.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: aws.String(topic), Token: aws.String(strings.Repeat("ab", 64))})
				return err
			}, "InvalidParameter", "Invalid parameter: Token"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				wantSNSError(t, tc.call(ctxFor(t, 30*time.Second)), tc.code, tc.msg)
			})
		}
	})
}

// wantSNSError checks err is an AWS error of code with exactly message.
func wantSNSError(t *testing.T, err error, code, message string) {
	t.Helper()
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != code || apiErr.ErrorMessage() != message {
		t.Fatalf("error %v, want %s %q", err, code, message)
	}
}
