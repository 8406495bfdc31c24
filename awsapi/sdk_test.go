package awsapi

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sqssdk "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/heraldmq/herald/awsauth"
	"github.com/heraldmq/herald/sqs"
)

const (
	testKeyID  = "AKIDHERALDTEST"
	testSecret = "s3cr3t/key+value"
	testRegion = "us-east-1"
	testQueue  = "http://example.test/000000000000/orders"
)

// startEdge serves New(cfg) over a fake API on a test server.
func startEdge(t *testing.T, cfg Config) (*fakeAPI, *httptest.Server) {
	t.Helper()
	fake := &fakeAPI{}
	cfg.SQS = fake
	srv := httptest.NewServer(New(cfg))
	t.Cleanup(srv.Close)
	return fake, srv
}

// sdkClient is the real SQS client pointed at srv.
func sdkClient(srv *httptest.Server, keyID, secret string) *sqssdk.Client {
	return sqssdk.New(sqssdk.Options{
		Region:           testRegion,
		BaseEndpoint:     aws.String(srv.URL),
		RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret, Source: "test"}, nil
		}),
	})
}

// sdkCase calls one action through the SDK and states what the API must
// have received and what the SDK must have parsed.
type sdkCase struct {
	action string
	call   func(context.Context, *sqssdk.Client) (any, error)
	input  any                   // the decoded input the fake must see
	check  func(*testing.T, any) // checks the SDK's output
}

func sdkCases() []sdkCase {
	sdkAttrs := map[string]types.MessageAttributeValue{
		"color": {DataType: aws.String("String"), StringValue: aws.String("blue")},
		"blob":  {DataType: aws.String("Binary.gif"), BinaryValue: []byte{0, 1, 2, 0xff}},
		"n":     {DataType: aws.String("Number"), StringValue: aws.String("1.5")},
	}
	wantAttrs := map[string]sqs.MessageAttributeValue{
		"color": {DataType: "String", StringValue: "blue"},
		"blob":  {DataType: "Binary.gif", BinaryValue: []byte{0, 1, 2, 0xff}},
		"n":     {DataType: "Number", StringValue: "1.5"},
	}
	sysAttrs := map[string]types.MessageSystemAttributeValue{
		"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String("Root=1-abc")},
	}
	wantSys := map[string]sqs.MessageAttributeValue{"AWSTraceHeader": {DataType: "String", StringValue: "Root=1-abc"}}
	q := aws.String(testQueue)

	return []sdkCase{
		{
			action: "CreateQueue",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.CreateQueue(ctx, &sqssdk.CreateQueueInput{
					QueueName:  aws.String("orders.fifo"),
					Attributes: map[string]string{"FifoQueue": "true", "VisibilityTimeout": "60"},
					Tags:       map[string]string{"team": "core"},
				})
			},
			input: sqs.CreateQueueInput{QueueName: "orders.fifo",
				Attributes: map[string]string{"FifoQueue": "true", "VisibilityTimeout": "60"},
				Tags:       map[string]string{"team": "core"}},
			check: func(t *testing.T, out any) {
				equal(t, aws.ToString(out.(*sqssdk.CreateQueueOutput).QueueUrl), fakeQueueURL)
			},
		},
		{
			action: "GetQueueUrl",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.GetQueueUrl(ctx, &sqssdk.GetQueueUrlInput{QueueName: aws.String("orders"), QueueOwnerAWSAccountId: aws.String("111122223333")})
			},
			input: sqs.GetQueueURLInput{QueueName: "orders", QueueOwnerAWSAccountID: "111122223333"},
			check: func(t *testing.T, out any) {
				equal(t, aws.ToString(out.(*sqssdk.GetQueueUrlOutput).QueueUrl), fakeQueueURL)
			},
		},
		{
			action: "ListQueues",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.ListQueues(ctx, &sqssdk.ListQueuesInput{QueueNamePrefix: aws.String("or"), MaxResults: aws.Int32(5), NextToken: aws.String("tok-1")})
			},
			input: sqs.ListQueuesInput{QueueNamePrefix: "or", MaxResults: ptr(5), NextToken: "tok-1"},
			check: func(t *testing.T, out any) {
				o := out.(*sqssdk.ListQueuesOutput)
				equal(t, o.QueueUrls, fakeListQueues.QueueURLs)
				equal(t, aws.ToString(o.NextToken), fakeListQueues.NextToken)
			},
		},
		{
			action: "DeleteQueue",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.DeleteQueue(ctx, &sqssdk.DeleteQueueInput{QueueUrl: q})
			},
			input: testQueue,
		},
		{
			action: "GetQueueAttributes",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.GetQueueAttributes(ctx, &sqssdk.GetQueueAttributesInput{QueueUrl: q,
					AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll, "DelaySeconds"}})
			},
			input: sqs.GetQueueAttributesInput{QueueURL: testQueue, AttributeNames: []string{"All", "DelaySeconds"}},
			check: func(t *testing.T, out any) {
				equal(t, out.(*sqssdk.GetQueueAttributesOutput).Attributes, fakeAttributes)
			},
		},
		{
			action: "SetQueueAttributes",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.SetQueueAttributes(ctx, &sqssdk.SetQueueAttributesInput{QueueUrl: q,
					Attributes: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":"3"}`}})
			},
			input: sqs.SetQueueAttributesInput{QueueURL: testQueue,
				Attributes: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":"3"}`}},
		},
		{
			action: "PurgeQueue",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.PurgeQueue(ctx, &sqssdk.PurgeQueueInput{QueueUrl: q})
			},
			input: testQueue,
		},
		{
			action: "SendMessage",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.SendMessage(ctx, &sqssdk.SendMessageInput{QueueUrl: q, MessageBody: aws.String("héllo <wörld> \U0001F600"),
					DelaySeconds: 7, MessageAttributes: sdkAttrs, MessageSystemAttributes: sysAttrs,
					MessageDeduplicationId: aws.String("d-1"), MessageGroupId: aws.String("g-1")})
			},
			input: sqs.SendMessageInput{QueueURL: testQueue, MessageBody: "héllo <wörld> \U0001F600", DelaySeconds: ptr(7),
				MessageAttributes: wantAttrs, MessageSystemAttributes: wantSys,
				MessageDeduplicationID: ptr("d-1"), MessageGroupID: ptr("g-1")},
			check: func(t *testing.T, out any) {
				o := out.(*sqssdk.SendMessageOutput)
				equal(t, aws.ToString(o.MessageId), "m-sent")
				equal(t, aws.ToString(o.MD5OfMessageAttributes), sqs.MD5OfMessageAttributes(wantAttrs))
				equal(t, aws.ToString(o.MD5OfMessageSystemAttributes), sqs.MD5OfMessageAttributes(wantSys))
				equal(t, aws.ToString(o.SequenceNumber), "0001")
			},
		},
		{
			action: "SendMessageBatch",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.SendMessageBatch(ctx, &sqssdk.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
					{Id: aws.String("a"), MessageBody: aws.String("one"), MessageAttributes: sdkAttrs},
					{Id: aws.String("b"), MessageBody: aws.String("two"), DelaySeconds: 3, MessageGroupId: aws.String("g")},
					{Id: aws.String("c"), MessageBody: aws.String("three")},
				}})
			},
			input: sqs.SendMessageBatchInput{QueueURL: testQueue, Entries: []sqs.SendMessageBatchEntry{
				{ID: "a", MessageBody: "one", MessageAttributes: wantAttrs},
				{ID: "b", MessageBody: "two", DelaySeconds: ptr(3), MessageGroupID: ptr("g")},
				{ID: "c", MessageBody: "three"},
			}},
			check: func(t *testing.T, out any) {
				o := out.(*sqssdk.SendMessageBatchOutput)
				if len(o.Successful) != 2 || aws.ToString(o.Successful[0].Id) != "a" || aws.ToString(o.Successful[1].MessageId) != "m-b" {
					t.Fatalf("Successful = %+v", o.Successful)
				}
				equal(t, aws.ToString(o.Successful[0].MD5OfMessageAttributes), sqs.MD5OfMessageAttributes(wantAttrs))
				if len(o.Failed) != 1 || aws.ToString(o.Failed[0].Id) != "c" || aws.ToString(o.Failed[0].Code) != "InvalidMessageContents" ||
					aws.ToString(o.Failed[0].Message) != "bad <body>" || !o.Failed[0].SenderFault {
					t.Fatalf("Failed = %+v", o.Failed)
				}
			},
		},
		{
			action: "ReceiveMessage",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.ReceiveMessage(ctx, &sqssdk.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10, VisibilityTimeout: 45,
					WaitTimeSeconds:             2,
					AttributeNames:              []types.QueueAttributeName{"All"},
					MessageSystemAttributeNames: []types.MessageSystemAttributeName{"SentTimestamp"},
					MessageAttributeNames:       []string{"color", "b.*"},
					ReceiveRequestAttemptId:     aws.String("attempt-1")})
			},
			input: sqs.ReceiveMessageInput{QueueURL: testQueue, MaxNumberOfMessages: ptr(10), VisibilityTimeout: ptr(45),
				WaitTimeSeconds: ptr(2), AttributeNames: []string{"All"}, MessageSystemAttributeNames: []string{"SentTimestamp"},
				MessageAttributeNames: []string{"color", "b.*"}, ReceiveRequestAttemptID: "attempt-1"},
			check: func(t *testing.T, out any) {
				msgs := out.(*sqssdk.ReceiveMessageOutput).Messages
				if len(msgs) != 2 {
					t.Fatalf("got %d messages", len(msgs))
				}
				m := msgs[0]
				equal(t, aws.ToString(m.Body), fakeMessages[0].Body)
				equal(t, aws.ToString(m.ReceiptHandle), "rh-1")
				equal(t, aws.ToString(m.MD5OfMessageAttributes), fakeMessages[0].MD5OfMessageAttributes)
				equal(t, m.Attributes, fakeMessages[0].Attributes)
				equal(t, aws.ToString(m.MessageAttributes["color"].StringValue), "blue")
				equal(t, m.MessageAttributes["blob"].BinaryValue, []byte{0, 1, 2, 0xff})
				equal(t, aws.ToString(m.MessageAttributes["blob"].DataType), "Binary.gif")
				equal(t, aws.ToString(msgs[1].MessageId), "m-2")
			},
		},
		{
			action: "DeleteMessage",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.DeleteMessage(ctx, &sqssdk.DeleteMessageInput{QueueUrl: q, ReceiptHandle: aws.String("rh-1")})
			},
			input: sqs.DeleteMessageInput{QueueURL: testQueue, ReceiptHandle: "rh-1"},
		},
		{
			action: "DeleteMessageBatch",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.DeleteMessageBatch(ctx, &sqssdk.DeleteMessageBatchInput{QueueUrl: q, Entries: []types.DeleteMessageBatchRequestEntry{
					{Id: aws.String("a"), ReceiptHandle: aws.String("rh-1")}, {Id: aws.String("b"), ReceiptHandle: aws.String("rh-x")}}})
			},
			input: sqs.DeleteMessageBatchInput{QueueURL: testQueue, Entries: []sqs.BatchHandleEntry{
				{ID: "a", ReceiptHandle: "rh-1"}, {ID: "b", ReceiptHandle: "rh-x"}}},
			check: func(t *testing.T, out any) {
				o := out.(*sqssdk.DeleteMessageBatchOutput)
				if len(o.Successful) != 1 || aws.ToString(o.Successful[0].Id) != "a" || len(o.Failed) != 1 ||
					aws.ToString(o.Failed[0].Code) != "ReceiptHandleIsInvalid" || !o.Failed[0].SenderFault {
					t.Fatalf("output = %+v", o)
				}
			},
		},
		{
			action: "ChangeMessageVisibility",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.ChangeMessageVisibility(ctx, &sqssdk.ChangeMessageVisibilityInput{QueueUrl: q, ReceiptHandle: aws.String("rh-1"), VisibilityTimeout: 0})
			},
			// The SDK sends VisibilityTimeout 0 explicitly: it is required.
			input: sqs.ChangeMessageVisibilityInput{QueueURL: testQueue, ReceiptHandle: "rh-1", VisibilityTimeout: ptr(0)},
		},
		{
			action: "ChangeMessageVisibilityBatch",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.ChangeMessageVisibilityBatch(ctx, &sqssdk.ChangeMessageVisibilityBatchInput{QueueUrl: q,
					Entries: []types.ChangeMessageVisibilityBatchRequestEntry{{Id: aws.String("a"), ReceiptHandle: aws.String("rh-1"), VisibilityTimeout: 90}}})
			},
			input: sqs.ChangeMessageVisibilityBatchInput{QueueURL: testQueue, Entries: []sqs.BatchHandleEntry{
				{ID: "a", ReceiptHandle: "rh-1", VisibilityTimeout: ptr(90)}}},
			check: func(t *testing.T, out any) {
				o := out.(*sqssdk.ChangeMessageVisibilityBatchOutput)
				if len(o.Successful) != 1 || len(o.Failed) != 1 || aws.ToString(o.Failed[0].Id) != "b" {
					t.Fatalf("output = %+v", o)
				}
			},
		},
		{
			action: "TagQueue",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.TagQueue(ctx, &sqssdk.TagQueueInput{QueueUrl: q, Tags: map[string]string{"a": "1", "b": ""}})
			},
			input: sqs.TagQueueInput{QueueURL: testQueue, Tags: map[string]string{"a": "1", "b": ""}},
		},
		{
			action: "UntagQueue",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.UntagQueue(ctx, &sqssdk.UntagQueueInput{QueueUrl: q, TagKeys: []string{"a", "b"}})
			},
			input: sqs.UntagQueueInput{QueueURL: testQueue, TagKeys: []string{"a", "b"}},
		},
		{
			action: "ListQueueTags",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.ListQueueTags(ctx, &sqssdk.ListQueueTagsInput{QueueUrl: q})
			},
			input: testQueue,
			check: func(t *testing.T, out any) { equal(t, out.(*sqssdk.ListQueueTagsOutput).Tags, fakeTags) },
		},
		{
			action: "ListDeadLetterSourceQueues",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.ListDeadLetterSourceQueues(ctx, &sqssdk.ListDeadLetterSourceQueuesInput{QueueUrl: q, MaxResults: aws.Int32(2)})
			},
			input: sqs.ListDeadLetterSourceQueuesInput{QueueURL: testQueue, MaxResults: ptr(2)},
			check: func(t *testing.T, out any) {
				o := out.(*sqssdk.ListDeadLetterSourceQueuesOutput)
				equal(t, o.QueueUrls, fakeListQueues.QueueURLs)
				equal(t, aws.ToString(o.NextToken), "tok-2")
			},
		},
		{
			action: "StartMessageMoveTask",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.StartMessageMoveTask(ctx, &sqssdk.StartMessageMoveTaskInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:000000000000:dlq"),
					DestinationArn: aws.String("arn:aws:sqs:us-east-1:000000000000:src"), MaxNumberOfMessagesPerSecond: aws.Int32(50)})
			},
			input: sqs.StartMessageMoveTaskInput{SourceARN: "arn:aws:sqs:us-east-1:000000000000:dlq",
				DestinationARN: "arn:aws:sqs:us-east-1:000000000000:src", MaxNumberOfMessagesPerSecond: ptr(50)},
			check: func(t *testing.T, out any) {
				equal(t, aws.ToString(out.(*sqssdk.StartMessageMoveTaskOutput).TaskHandle), fakeTaskHandle)
			},
		},
		{
			action: "ListMessageMoveTasks",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.ListMessageMoveTasks(ctx, &sqssdk.ListMessageMoveTasksInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:000000000000:dlq"), MaxResults: aws.Int32(10)})
			},
			input: sqs.ListMessageMoveTasksInput{SourceARN: "arn:aws:sqs:us-east-1:000000000000:dlq", MaxResults: ptr(10)},
			check: func(t *testing.T, out any) {
				r := out.(*sqssdk.ListMessageMoveTasksOutput).Results
				if len(r) != 2 {
					t.Fatalf("got %d results", len(r))
				}
				equal(t, aws.ToString(r[0].TaskHandle), "task-1")
				equal(t, aws.ToString(r[0].Status), "RUNNING")
				equal(t, aws.ToInt32(r[0].MaxNumberOfMessagesPerSecond), int32(50))
				equal(t, aws.ToInt64(r[0].ApproximateNumberOfMessagesToMove), int64(20))
				equal(t, r[0].ApproximateNumberOfMessagesMoved, int64(7))
				equal(t, r[0].StartedTimestamp, int64(1700000000123))
				equal(t, aws.ToString(r[1].FailureReason), "AccessDenied")
				if r[1].TaskHandle != nil || r[1].ApproximateNumberOfMessagesToMove != nil {
					t.Fatalf("absent members present: %+v", r[1])
				}
			},
		},
		{
			action: "CancelMessageMoveTask",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.CancelMessageMoveTask(ctx, &sqssdk.CancelMessageMoveTaskInput{TaskHandle: aws.String("task-1")})
			},
			input: "task-1",
			check: func(t *testing.T, out any) {
				equal(t, out.(*sqssdk.CancelMessageMoveTaskOutput).ApproximateNumberOfMessagesMoved, fakeMoved)
			},
		},
		{
			action: "AddPermission",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.AddPermission(ctx, &sqssdk.AddPermissionInput{QueueUrl: q, Label: aws.String("l1"),
					AWSAccountIds: []string{"111122223333", "444455556666"}, Actions: []string{"SendMessage", "ReceiveMessage"}})
			},
			input: sqs.AddPermissionInput{QueueURL: testQueue, Label: "l1",
				AWSAccountIDs: []string{"111122223333", "444455556666"}, Actions: []string{"SendMessage", "ReceiveMessage"}},
		},
		{
			action: "RemovePermission",
			call: func(ctx context.Context, c *sqssdk.Client) (any, error) {
				return c.RemovePermission(ctx, &sqssdk.RemovePermissionInput{QueueUrl: q, Label: aws.String("l1")})
			},
			input: sqs.RemovePermissionInput{QueueURL: testQueue, Label: "l1"},
		},
	}
}

func equal[T any](t *testing.T, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

// TestSDKEveryAction drives every action with the real SDK client: the
// API sees exactly what the SDK sent, and the SDK parses what the API
// returned (including its MD5 checks).
func TestSDKEveryAction(t *testing.T) {
	fake, srv := startEdge(t, Config{})
	client := sdkClient(srv, "AKIDANY", "any")
	host := srv.Listener.Addr().String()
	seen := map[string]bool{}
	for _, tc := range sdkCases() {
		seen[tc.action] = true
		t.Run(tc.action, func(t *testing.T) {
			out, err := tc.call(t.Context(), client)
			if err != nil {
				t.Fatalf("%s: %v", tc.action, err)
			}
			got, ok := fake.last()
			if !ok || got.Action != tc.action {
				t.Fatalf("last API call = %+v, want %s", got, tc.action)
			}
			equal(t, got.Input, tc.input)
			equal(t, got.Caller, sqs.Caller{Account: DefaultAccount, Region: "us-east-1", SenderID: DefaultAccount, Scheme: "http", Host: host})
			if tc.check != nil {
				tc.check(t, out)
			}
		})
	}
	for action := range sqsJSONActions {
		if !seen[action] {
			t.Errorf("action %s has no SDK test", action)
		}
	}
}

// TestSDKErrors checks that the SDK sees AWS's codes and error types.
func TestSDKErrors(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		code   string
		status int
		typed  func(error) bool
	}{
		{"queue does not exist", sqs.ErrQueueDoesNotExist(), "AWS.SimpleQueueService.NonExistentQueue", 400,
			func(err error) bool { var e *types.QueueDoesNotExist; return errors.As(err, &e) }},
		{"purge in progress", sqs.ErrPurgeQueueInProgress(testQueue), "AWS.SimpleQueueService.PurgeQueueInProgress", 403,
			func(err error) bool { var e *types.PurgeQueueInProgress; return errors.As(err, &e) }},
		{"internal", sqs.ErrInternal(errors.New("disk on fire")), "InternalFailure", 500, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, srv := startEdge(t, Config{})
			fake.err = tc.err
			_, err := sdkClient(srv, "AKID", "x").PurgeQueue(t.Context(), &sqssdk.PurgeQueueInput{QueueUrl: aws.String(testQueue)})
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v, want an API error", err)
			}
			equal(t, apiErr.ErrorCode(), tc.code)
			var respErr interface{ HTTPStatusCode() int }
			if !errors.As(err, &respErr) || respErr.HTTPStatusCode() != tc.status {
				t.Fatalf("status of %v, want %d", err, tc.status)
			}
			if tc.typed != nil && !tc.typed(err) {
				t.Fatalf("error %T is not the modelled type", err)
			}
		})
	}
}

// TestSDKAuthentication checks signatures with auth on: the right secret
// acts in the key's account with the key as sender, a wrong one gets
// SignatureDoesNotMatch and never reaches the API.
func TestSDKAuthentication(t *testing.T) {
	fake, srv := startEdge(t, Config{
		Verifier:    awsauth.NewVerifier(awsauth.Credentials{testKeyID: testSecret, "AKIDOTHER": "other"}),
		KeyAccounts: map[string]string{testKeyID: "123456789012"},
	})
	host := srv.Listener.Addr().String()

	if _, err := sdkClient(srv, testKeyID, testSecret).ListQueues(t.Context(), &sqssdk.ListQueuesInput{}); err != nil {
		t.Fatalf("ListQueues with the right secret: %v", err)
	}
	got, _ := fake.last()
	equal(t, got.Caller, sqs.Caller{Account: "123456789012", Region: "us-east-1", SenderID: testKeyID, Scheme: "http", Host: host})

	if _, err := sdkClient(srv, "AKIDOTHER", "other").ListQueues(t.Context(), &sqssdk.ListQueuesInput{}); err != nil {
		t.Fatalf("ListQueues with an unmapped key: %v", err)
	}
	got, _ = fake.last()
	equal(t, got.Caller.Account, DefaultAccount)

	calls := len(fake.calls)
	_, err := sdkClient(srv, testKeyID, "wrong").ListQueues(t.Context(), &sqssdk.ListQueuesInput{})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != awsauth.CodeSignatureDoesNotMatch {
		t.Fatalf("wrong secret: error = %v, want %s", err, awsauth.CodeSignatureDoesNotMatch)
	}
	_, err = sdkClient(srv, "AKIDUNKNOWN", "x").ListQueues(t.Context(), &sqssdk.ListQueuesInput{})
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != awsauth.CodeInvalidClientTokenID {
		t.Fatalf("unknown key: error = %v, want %s", err, awsauth.CodeInvalidClientTokenID)
	}
	if len(fake.calls) != calls {
		t.Fatalf("a rejected request reached the API")
	}
}

// TestJSONQueueURLFromPath checks that a JSON request posted to a queue
// URL path without a QueueUrl member addresses that queue, with the
// scheme a TLS-terminating proxy reports.
func TestJSONQueueURLFromPath(t *testing.T) {
	fake, srv := startEdge(t, Config{})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/000000000000/jobs", stringsReader(`{}`))
	req.Header.Set("X-Amz-Target", "AmazonSQS.PurgeQueue")
	req.Header.Set("Content-Type", jsonContentType)
	req.Header.Set("X-Forwarded-Proto", "https")
	resp := do(t, req)
	if resp.status != http.StatusOK {
		t.Fatalf("status %d: %s", resp.status, resp.body)
	}
	got, _ := fake.last()
	u, _ := url.Parse(srv.URL)
	equal(t, got.Input, any("https://"+u.Host+"/000000000000/jobs"))
	equal(t, got.Caller.Scheme, "https")
}

// TestSDKLongPollCancel checks that a client giving up a long poll is not
// logged as a server failure: the API fails with context.Canceled, which
// would otherwise map to InternalFailure.
func TestSDKLongPollCancel(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	var logs syncBuffer
	api := &blockingAPI{fakeAPI: &fakeAPI{}, block: block}
	srv := httptest.NewServer(New(Config{SQS: api, Logger: slog.New(slog.NewTextHandler(&logs, nil))}))
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := sdkClient(srv, "AKID", "x").ReceiveMessage(ctx, &sqssdk.ReceiveMessageInput{QueueUrl: aws.String(testQueue), WaitTimeSeconds: 20})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want the client's deadline", err)
	}
	srv.Close() // waits for the handler to finish
	if logs.String() != "" {
		t.Fatalf("an abandoned long poll was logged: %s", logs.String())
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// blockingAPI's ReceiveMessage waits for its context, like a long poll.
type blockingAPI struct {
	*fakeAPI
	block chan struct{}
}

func (b *blockingAPI) ReceiveMessage(ctx context.Context, c sqs.Caller, in sqs.ReceiveMessageInput) (sqs.ReceiveMessageOutput, error) {
	select {
	case <-ctx.Done():
		return sqs.ReceiveMessageOutput{}, ctx.Err()
	case <-b.block:
		return sqs.ReceiveMessageOutput{}, nil
	}
}
