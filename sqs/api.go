package sqs

import (
	"context"
	"time"
)

// Caller describes who sent a request and how, as the protocol edge saw it.
// Queue URLs are built from Scheme and Host, as AWS builds them from the
// endpoint a client used.
//
// Protocol edges build a Caller from the identity they established (an
// access key's account, a token's subject); the Service authorizes every
// action against it (authorize.go). Only [InternalCaller] makes a Caller
// that may act on Herald's internal accounts.
type Caller struct {
	Account string // the account the request acts in (from its access key, or the default)
	Region  string // the region of its signature's credential scope; "" for the home region
	// TraceHeader is the request's X-Amzn-Trace-Id, which a sent message
	// without an AWSTraceHeader system attribute takes as that attribute.
	TraceHeader string
	SenderID    string // SenderId system attribute: the access key id, or the account
	Scheme      string // "http" or "https"
	Host        string // the request's Host header

	// Service, when set, is a service principal acting for a resource of
	// Account, e.g. "sns.amazonaws.com" delivering topic SourceARN's
	// message to a queue. A queue of another account admits it only when
	// its policy allows that principal (with aws:SourceArn and
	// aws:SourceAccount as condition keys).
	Service   string
	SourceARN string

	internal bool // made by InternalCaller
}

// The inputs and outputs of the SQS actions, wire-independent. The protocol
// edge fills inputs from JSON 1.0 or Query requests and renders outputs;
// field names follow the SQS API reference. A zero *int means "absent".

type CreateQueueInput struct {
	QueueName  string
	Attributes map[string]string
	Tags       map[string]string
}

type GetQueueURLInput struct {
	QueueName              string
	QueueOwnerAWSAccountID string
}

type ListQueuesInput struct {
	QueueNamePrefix string
	MaxResults      *int
	NextToken       string
}

type ListQueuesOutput struct {
	QueueURLs []string
	NextToken string
}

type GetQueueAttributesInput struct {
	QueueURL       string
	AttributeNames []string
}

type SetQueueAttributesInput struct {
	QueueURL   string
	Attributes map[string]string
}

type SendMessageInput struct {
	QueueURL                string
	MessageBody             string
	DelaySeconds            *int
	MessageAttributes       map[string]MessageAttributeValue
	MessageSystemAttributes map[string]MessageAttributeValue
	// MessageDeduplicationID and MessageGroupID are nil when absent; a
	// present but empty ID is invalid, as on AWS.
	MessageDeduplicationID *string
	MessageGroupID         *string
}

type SendMessageOutput struct {
	MessageID                    string
	MD5OfMessageBody             string
	MD5OfMessageAttributes       string // "" when there are none
	MD5OfMessageSystemAttributes string // "" when there are none
	SequenceNumber               string // FIFO only
}

type SendMessageBatchEntry struct {
	ID                      string
	MessageBody             string
	DelaySeconds            *int
	MessageAttributes       map[string]MessageAttributeValue
	MessageSystemAttributes map[string]MessageAttributeValue
	// MessageDeduplicationID and MessageGroupID are nil when absent; a
	// present but empty ID is invalid, as on AWS.
	MessageDeduplicationID *string
	MessageGroupID         *string
}

type SendMessageBatchResultEntry struct {
	ID string
	SendMessageOutput
}

// BatchResultErrorEntry is a failed entry of any *Batch action.
type BatchResultErrorEntry struct {
	ID          string
	Code        string
	Message     string
	SenderFault bool
}

type SendMessageBatchInput struct {
	QueueURL string
	Entries  []SendMessageBatchEntry
}

type SendMessageBatchOutput struct {
	Successful []SendMessageBatchResultEntry
	Failed     []BatchResultErrorEntry
}

type ReceiveMessageInput struct {
	QueueURL                    string
	MaxNumberOfMessages         *int
	VisibilityTimeout           *int
	WaitTimeSeconds             *int
	AttributeNames              []string // legacy name list ("All", "SentTimestamp", ...)
	MessageSystemAttributeNames []string
	MessageAttributeNames       []string // "All", ".*" suffixes, exact names
	ReceiveRequestAttemptID     string   // FIFO only
}

// ReceivedMessage is one message of a ReceiveMessage answer.
type ReceivedMessage struct {
	MessageID              string
	ReceiptHandle          string
	Body                   string
	MD5OfBody              string
	MD5OfMessageAttributes string            // "" when no attributes are returned
	Attributes             map[string]string // system attributes requested
	MessageAttributes      map[string]MessageAttributeValue
}

type ReceiveMessageOutput struct {
	Messages []ReceivedMessage
}

type DeleteMessageInput struct {
	QueueURL      string
	ReceiptHandle string
}

type BatchHandleEntry struct {
	ID                string
	ReceiptHandle     string
	VisibilityTimeout *int // ChangeMessageVisibilityBatch only
}

type DeleteMessageBatchInput struct {
	QueueURL string
	Entries  []BatchHandleEntry
}

// BatchIDsOutput answers DeleteMessageBatch and ChangeMessageVisibilityBatch.
type BatchIDsOutput struct {
	Successful []string // entry ids
	Failed     []BatchResultErrorEntry
}

type ChangeMessageVisibilityInput struct {
	QueueURL          string
	ReceiptHandle     string
	VisibilityTimeout *int
}

type ChangeMessageVisibilityBatchInput struct {
	QueueURL string
	Entries  []BatchHandleEntry
}

type TagQueueInput struct {
	QueueURL string
	Tags     map[string]string
}

type UntagQueueInput struct {
	QueueURL string
	TagKeys  []string
}

type ListDeadLetterSourceQueuesInput struct {
	QueueURL   string
	MaxResults *int
	NextToken  string
}

type StartMessageMoveTaskInput struct {
	SourceARN                    string
	DestinationARN               string // "" means each message's original source queue
	MaxNumberOfMessagesPerSecond *int
}

type MessageMoveTask struct {
	TaskHandle                        string // only while RUNNING
	Status                            string // RUNNING, COMPLETED, CANCELLING, CANCELLED, FAILED
	SourceARN                         string
	DestinationARN                    string
	MaxNumberOfMessagesPerSecond      *int
	ApproximateNumberOfMessagesMoved  int64
	ApproximateNumberOfMessagesToMove *int64
	FailureReason                     string
	StartedTimestamp                  time.Time // rendered as Unix milliseconds
}

type ListMessageMoveTasksInput struct {
	SourceARN  string
	MaxResults *int
}

type AddPermissionInput struct {
	QueueURL      string
	Label         string
	AWSAccountIDs []string
	Actions       []string
}

type RemovePermissionInput struct {
	QueueURL string
	Label    string
}

// API is the SQS service as the protocol edges call it; *Service
// implements it. Every error it returns is an *Error (see AsError).
type API interface {
	CreateQueue(ctx context.Context, c Caller, in CreateQueueInput) (queueURL string, err error)
	GetQueueURL(ctx context.Context, c Caller, in GetQueueURLInput) (queueURL string, err error)
	ListQueues(ctx context.Context, c Caller, in ListQueuesInput) (ListQueuesOutput, error)
	DeleteQueue(ctx context.Context, c Caller, queueURL string) error
	GetQueueAttributes(ctx context.Context, c Caller, in GetQueueAttributesInput) (map[string]string, error)
	SetQueueAttributes(ctx context.Context, c Caller, in SetQueueAttributesInput) error
	PurgeQueue(ctx context.Context, c Caller, queueURL string) error

	SendMessage(ctx context.Context, c Caller, in SendMessageInput) (SendMessageOutput, error)
	SendMessageBatch(ctx context.Context, c Caller, in SendMessageBatchInput) (SendMessageBatchOutput, error)
	ReceiveMessage(ctx context.Context, c Caller, in ReceiveMessageInput) (ReceiveMessageOutput, error)
	DeleteMessage(ctx context.Context, c Caller, in DeleteMessageInput) error
	DeleteMessageBatch(ctx context.Context, c Caller, in DeleteMessageBatchInput) (BatchIDsOutput, error)
	ChangeMessageVisibility(ctx context.Context, c Caller, in ChangeMessageVisibilityInput) error
	ChangeMessageVisibilityBatch(ctx context.Context, c Caller, in ChangeMessageVisibilityBatchInput) (BatchIDsOutput, error)

	TagQueue(ctx context.Context, c Caller, in TagQueueInput) error
	UntagQueue(ctx context.Context, c Caller, in UntagQueueInput) error
	ListQueueTags(ctx context.Context, c Caller, queueURL string) (map[string]string, error)

	ListDeadLetterSourceQueues(ctx context.Context, c Caller, in ListDeadLetterSourceQueuesInput) (ListQueuesOutput, error)
	StartMessageMoveTask(ctx context.Context, c Caller, in StartMessageMoveTaskInput) (taskHandle string, err error)
	ListMessageMoveTasks(ctx context.Context, c Caller, in ListMessageMoveTasksInput) ([]MessageMoveTask, error)
	CancelMessageMoveTask(ctx context.Context, c Caller, taskHandle string) (approximateNumberOfMessagesMoved int64, err error)

	AddPermission(ctx context.Context, c Caller, in AddPermissionInput) error
	RemovePermission(ctx context.Context, c Caller, in RemovePermissionInput) error
}
