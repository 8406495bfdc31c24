package sns

import (
	"context"

	"github.com/heraldmq/herald/sqs"
)

// Caller describes who sent a request and how (the same as for SQS): the
// account it acts in, its sender id, and the scheme and host the client
// used, from which Herald builds SubscribeURL, UnsubscribeURL and
// SigningCertURL.
type Caller = sqs.Caller

// MessageAttributeValue is one message attribute (String, Number, Binary or
// String.Array, as AWS's SNS allows).
type MessageAttributeValue struct {
	DataType    string
	StringValue string
	BinaryValue []byte
}

// The inputs and outputs of the SNS actions, wire-independent; field names
// follow the SNS API reference. A nil *bool means "absent".

type CreateTopicInput struct {
	Name       string
	Attributes map[string]string
	Tags       map[string]string
}

type ListTopicsOutput struct {
	TopicARNs []string
	NextToken string
}

type SetTopicAttributesInput struct {
	TopicARN       string
	AttributeName  string
	AttributeValue string
}

type SubscribeInput struct {
	TopicARN              string
	Protocol              string
	Endpoint              string
	Attributes            map[string]string
	ReturnSubscriptionARN bool
}

type ConfirmSubscriptionInput struct {
	TopicARN                  string
	Token                     string
	AuthenticateOnUnsubscribe string
}

// SubscriptionSummary is one entry of ListSubscriptions(ByTopic).
type SubscriptionSummary struct {
	SubscriptionARN string // "PendingConfirmation" while unconfirmed
	Owner           string
	Protocol        string
	Endpoint        string
	TopicARN        string
}

type ListSubscriptionsOutput struct {
	Subscriptions []SubscriptionSummary
	NextToken     string
}

type SetSubscriptionAttributesInput struct {
	SubscriptionARN string
	AttributeName   string
	AttributeValue  string
}

type PublishInput struct {
	TopicARN               string
	TargetARN              string
	PhoneNumber            string
	Message                string
	Subject                *string // nil when absent; AWS refuses an empty one
	MessageStructure       string  // "" or "json"
	MessageAttributes      map[string]MessageAttributeValue
	MessageDeduplicationID string
	MessageGroupID         string
}

type PublishOutput struct {
	MessageID      string
	SequenceNumber string // FIFO topics only
}

type PublishBatchEntry struct {
	ID                     string
	Message                string
	Subject                *string // nil when absent
	MessageStructure       string
	MessageAttributes      map[string]MessageAttributeValue
	MessageDeduplicationID string
	MessageGroupID         string
}

type PublishBatchInput struct {
	TopicARN string
	Entries  []PublishBatchEntry
}

type PublishBatchResultEntry struct {
	ID             string
	MessageID      string
	SequenceNumber string
}

// BatchResultErrorEntry is a failed PublishBatch entry.
type BatchResultErrorEntry struct {
	ID          string
	Code        string
	Message     string
	SenderFault bool
}

type PublishBatchOutput struct {
	Successful []PublishBatchResultEntry
	Failed     []BatchResultErrorEntry
}

type TagResourceInput struct {
	ResourceARN string
	Tags        map[string]string
}

type UntagResourceInput struct {
	ResourceARN string
	TagKeys     []string
}

type AddPermissionInput struct {
	TopicARN      string
	Label         string
	AWSAccountIDs []string
	ActionNames   []string
}

type RemovePermissionInput struct {
	TopicARN string
	Label    string
}

type PutDataProtectionPolicyInput struct {
	ResourceARN          string
	DataProtectionPolicy string
}

// API is the SNS service as the protocol edge calls it; *Service implements
// it. Every error it returns is an *Error (see AsError).
type API interface {
	CreateTopic(ctx context.Context, c Caller, in CreateTopicInput) (topicARN string, err error)
	DeleteTopic(ctx context.Context, c Caller, topicARN string) error
	ListTopics(ctx context.Context, c Caller, nextToken string) (ListTopicsOutput, error)
	GetTopicAttributes(ctx context.Context, c Caller, topicARN string) (map[string]string, error)
	SetTopicAttributes(ctx context.Context, c Caller, in SetTopicAttributesInput) error

	Subscribe(ctx context.Context, c Caller, in SubscribeInput) (subscriptionARN string, err error)
	ConfirmSubscription(ctx context.Context, c Caller, in ConfirmSubscriptionInput) (subscriptionARN string, err error)
	Unsubscribe(ctx context.Context, c Caller, subscriptionARN string) error
	ListSubscriptions(ctx context.Context, c Caller, nextToken string) (ListSubscriptionsOutput, error)
	ListSubscriptionsByTopic(ctx context.Context, c Caller, topicARN, nextToken string) (ListSubscriptionsOutput, error)
	GetSubscriptionAttributes(ctx context.Context, c Caller, subscriptionARN string) (map[string]string, error)
	SetSubscriptionAttributes(ctx context.Context, c Caller, in SetSubscriptionAttributesInput) error

	Publish(ctx context.Context, c Caller, in PublishInput) (PublishOutput, error)
	PublishBatch(ctx context.Context, c Caller, in PublishBatchInput) (PublishBatchOutput, error)

	TagResource(ctx context.Context, c Caller, in TagResourceInput) error
	UntagResource(ctx context.Context, c Caller, in UntagResourceInput) error
	ListTagsForResource(ctx context.Context, c Caller, resourceARN string) (map[string]string, error)

	AddPermission(ctx context.Context, c Caller, in AddPermissionInput) error
	RemovePermission(ctx context.Context, c Caller, in RemovePermissionInput) error

	// GetDataProtectionPolicy answers "" for a topic without one.
	GetDataProtectionPolicy(ctx context.Context, c Caller, resourceARN string) (string, error)
	PutDataProtectionPolicy(ctx context.Context, c Caller, in PutDataProtectionPolicyInput) error
}
