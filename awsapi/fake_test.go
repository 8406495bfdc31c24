package awsapi

import (
	"context"
	"sync"
	"time"

	"github.com/heraldmq/herald/sqs"
)

// call is one API call the fake saw.
type call struct {
	Action string
	Caller sqs.Caller
	Input  any
}

// fakeAPI records what the edge decoded and answers with canned outputs.
// Send MD5s are computed from the input so that the SDKs' checks pass.
type fakeAPI struct {
	mu       sync.Mutex
	calls    []call
	noRecord bool  // fuzzing: do not grow calls
	err      error // returned by every action when set
	panics   bool  // every action panics
}

// Canned outputs.
var (
	fakeQueueURL   = "http://example.test/000000000000/orders"
	fakeListQueues = sqs.ListQueuesOutput{QueueURLs: []string{"http://h/000000000000/a", "http://h/000000000000/b"}, NextToken: "tok-2"}
	fakeAttributes = map[string]string{"VisibilityTimeout": "30", "DelaySeconds": "5"}
	fakeTags       = map[string]string{"team": "core", "env": "<prod&dev>"}
	fakeMessages   = []sqs.ReceivedMessage{{
		MessageID:              "m-1",
		ReceiptHandle:          "rh-1",
		Body:                   "hello <world> & \"friends\"\r\n",
		MD5OfBody:              sqs.MD5OfBody("hello <world> & \"friends\"\r\n"),
		Attributes:             map[string]string{"SentTimestamp": "1700000000000", "ApproximateReceiveCount": "1"},
		MessageAttributes:      fakeMessageAttributes,
		MD5OfMessageAttributes: sqs.MD5OfMessageAttributes(fakeMessageAttributes),
	}, {
		MessageID: "m-2", ReceiptHandle: "rh-2", Body: "second", MD5OfBody: sqs.MD5OfBody("second"),
	}}
	fakeMessageAttributes = map[string]sqs.MessageAttributeValue{
		"color": {DataType: "String", StringValue: "blue"},
		"blob":  {DataType: "Binary.gif", BinaryValue: []byte{0, 1, 2, 0xff}},
	}
	fakeBatchIDs = sqs.BatchIDsOutput{
		Successful: []string{"a"},
		Failed:     []sqs.BatchResultErrorEntry{{ID: "b", Code: "ReceiptHandleIsInvalid", Message: "bad handle", SenderFault: true}},
	}
	fakeTaskHandle = "task-1"
	fakeTasks      = []sqs.MessageMoveTask{{
		TaskHandle: "task-1", Status: "RUNNING", SourceARN: "arn:aws:sqs:us-east-1:000000000000:dlq",
		DestinationARN: "arn:aws:sqs:us-east-1:000000000000:src", MaxNumberOfMessagesPerSecond: ptr(50),
		ApproximateNumberOfMessagesMoved: 7, ApproximateNumberOfMessagesToMove: ptr[int64](20),
		StartedTimestamp: time.UnixMilli(1700000000123),
	}, {
		Status: "FAILED", SourceARN: "arn:aws:sqs:us-east-1:000000000000:dlq", FailureReason: "AccessDenied",
		ApproximateNumberOfMessagesMoved: 3, StartedTimestamp: time.UnixMilli(1690000000000),
	}}
	fakeMoved int64 = 42
)

func ptr[T any](v T) *T { return &v }

func (f *fakeAPI) record(action string, c sqs.Caller, in any) error {
	if f.panics {
		panic("fake: " + action + " exploded")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.noRecord {
		f.calls = append(f.calls, call{Action: action, Caller: c, Input: in})
	}
	return f.err
}

// last returns the most recent call.
// count is how many calls were recorded.
func (f *fakeAPI) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func (f *fakeAPI) last() (call, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return call{}, false
	}
	return f.calls[len(f.calls)-1], true
}

func sendOutput(id string, body string, attrs, sys map[string]sqs.MessageAttributeValue) sqs.SendMessageOutput {
	return sqs.SendMessageOutput{
		MessageID:                    id,
		MD5OfMessageBody:             sqs.MD5OfBody(body),
		MD5OfMessageAttributes:       sqs.MD5OfMessageAttributes(attrs),
		MD5OfMessageSystemAttributes: sqs.MD5OfMessageAttributes(sys),
		SequenceNumber:               "0001",
	}
}

func (f *fakeAPI) CreateQueue(_ context.Context, c sqs.Caller, in sqs.CreateQueueInput) (string, error) {
	return fakeQueueURL, f.record("CreateQueue", c, in)
}

func (f *fakeAPI) GetQueueURL(_ context.Context, c sqs.Caller, in sqs.GetQueueURLInput) (string, error) {
	return fakeQueueURL, f.record("GetQueueUrl", c, in)
}

func (f *fakeAPI) ListQueues(_ context.Context, c sqs.Caller, in sqs.ListQueuesInput) (sqs.ListQueuesOutput, error) {
	return fakeListQueues, f.record("ListQueues", c, in)
}

func (f *fakeAPI) DeleteQueue(_ context.Context, c sqs.Caller, queueURL string) error {
	return f.record("DeleteQueue", c, queueURL)
}

func (f *fakeAPI) GetQueueAttributes(_ context.Context, c sqs.Caller, in sqs.GetQueueAttributesInput) (map[string]string, error) {
	return fakeAttributes, f.record("GetQueueAttributes", c, in)
}

func (f *fakeAPI) SetQueueAttributes(_ context.Context, c sqs.Caller, in sqs.SetQueueAttributesInput) error {
	return f.record("SetQueueAttributes", c, in)
}

func (f *fakeAPI) PurgeQueue(_ context.Context, c sqs.Caller, queueURL string) error {
	return f.record("PurgeQueue", c, queueURL)
}

func (f *fakeAPI) SendMessage(_ context.Context, c sqs.Caller, in sqs.SendMessageInput) (sqs.SendMessageOutput, error) {
	return sendOutput("m-sent", in.MessageBody, in.MessageAttributes, in.MessageSystemAttributes), f.record("SendMessage", c, in)
}

func (f *fakeAPI) SendMessageBatch(_ context.Context, c sqs.Caller, in sqs.SendMessageBatchInput) (sqs.SendMessageBatchOutput, error) {
	var out sqs.SendMessageBatchOutput
	for i, e := range in.Entries {
		if i == len(in.Entries)-1 && i > 0 {
			out.Failed = append(out.Failed, sqs.BatchResultErrorEntry{ID: e.ID, Code: "InvalidMessageContents", Message: "bad <body>", SenderFault: true})
			continue
		}
		out.Successful = append(out.Successful, sqs.SendMessageBatchResultEntry{
			ID: e.ID, SendMessageOutput: sendOutput("m-"+e.ID, e.MessageBody, e.MessageAttributes, e.MessageSystemAttributes),
		})
	}
	return out, f.record("SendMessageBatch", c, in)
}

func (f *fakeAPI) ReceiveMessage(_ context.Context, c sqs.Caller, in sqs.ReceiveMessageInput) (sqs.ReceiveMessageOutput, error) {
	return sqs.ReceiveMessageOutput{Messages: fakeMessages}, f.record("ReceiveMessage", c, in)
}

func (f *fakeAPI) DeleteMessage(_ context.Context, c sqs.Caller, in sqs.DeleteMessageInput) error {
	return f.record("DeleteMessage", c, in)
}

func (f *fakeAPI) DeleteMessageBatch(_ context.Context, c sqs.Caller, in sqs.DeleteMessageBatchInput) (sqs.BatchIDsOutput, error) {
	return fakeBatchIDs, f.record("DeleteMessageBatch", c, in)
}

func (f *fakeAPI) ChangeMessageVisibility(_ context.Context, c sqs.Caller, in sqs.ChangeMessageVisibilityInput) error {
	return f.record("ChangeMessageVisibility", c, in)
}

func (f *fakeAPI) ChangeMessageVisibilityBatch(_ context.Context, c sqs.Caller, in sqs.ChangeMessageVisibilityBatchInput) (sqs.BatchIDsOutput, error) {
	return fakeBatchIDs, f.record("ChangeMessageVisibilityBatch", c, in)
}

func (f *fakeAPI) TagQueue(_ context.Context, c sqs.Caller, in sqs.TagQueueInput) error {
	return f.record("TagQueue", c, in)
}

func (f *fakeAPI) UntagQueue(_ context.Context, c sqs.Caller, in sqs.UntagQueueInput) error {
	return f.record("UntagQueue", c, in)
}

func (f *fakeAPI) ListQueueTags(_ context.Context, c sqs.Caller, queueURL string) (map[string]string, error) {
	return fakeTags, f.record("ListQueueTags", c, queueURL)
}

func (f *fakeAPI) ListDeadLetterSourceQueues(_ context.Context, c sqs.Caller, in sqs.ListDeadLetterSourceQueuesInput) (sqs.ListQueuesOutput, error) {
	return fakeListQueues, f.record("ListDeadLetterSourceQueues", c, in)
}

func (f *fakeAPI) StartMessageMoveTask(_ context.Context, c sqs.Caller, in sqs.StartMessageMoveTaskInput) (string, error) {
	return fakeTaskHandle, f.record("StartMessageMoveTask", c, in)
}

func (f *fakeAPI) ListMessageMoveTasks(_ context.Context, c sqs.Caller, in sqs.ListMessageMoveTasksInput) ([]sqs.MessageMoveTask, error) {
	return fakeTasks, f.record("ListMessageMoveTasks", c, in)
}

func (f *fakeAPI) CancelMessageMoveTask(_ context.Context, c sqs.Caller, taskHandle string) (int64, error) {
	return fakeMoved, f.record("CancelMessageMoveTask", c, taskHandle)
}

func (f *fakeAPI) AddPermission(_ context.Context, c sqs.Caller, in sqs.AddPermissionInput) error {
	return f.record("AddPermission", c, in)
}

func (f *fakeAPI) RemovePermission(_ context.Context, c sqs.Caller, in sqs.RemovePermissionInput) error {
	return f.record("RemovePermission", c, in)
}

var _ sqs.API = (*fakeAPI)(nil)
