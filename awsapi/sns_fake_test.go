package awsapi

import (
	"context"
	"sync"

	"github.com/heraldmq/herald/sns"
)

// fakeSNS records what the edge decoded and answers with canned outputs.
type fakeSNS struct {
	mu       sync.Mutex
	calls    []call
	noRecord bool  // fuzzing: do not grow calls
	err      error // returned by every action when set
	panics   bool  // every action panics
}

// Canned SNS outputs; texts carry XML's special characters.
var (
	fakeTopicARN  = "arn:aws:sns:us-east-1:000000000000:orders"
	fakeSubARN    = fakeTopicARN + ":6f1c1a4e-1d2b-4c3a-9e8f-0123456789ab"
	fakeTopicList = sns.ListTopicsOutput{TopicARNs: []string{fakeTopicARN, "arn:aws:sns:us-east-1:000000000000:b"}, NextToken: "tok-2"}
	fakeSNSAttrs  = map[string]string{"DisplayName": "Orders <&>", "Policy": `{"Version":"2012-10-17"}`}
	fakeSubList   = sns.ListSubscriptionsOutput{
		Subscriptions: []sns.SubscriptionSummary{
			{SubscriptionARN: fakeSubARN, Owner: "000000000000", Protocol: "sqs", Endpoint: "arn:aws:sqs:us-east-1:000000000000:q", TopicARN: fakeTopicARN},
			{SubscriptionARN: "PendingConfirmation", Owner: "000000000000", Protocol: "https", Endpoint: "https://example.test/hook?a=1&b=2", TopicARN: fakeTopicARN},
		},
		NextToken: "sub-tok",
	}
	fakePublish = sns.PublishOutput{MessageID: "m-1", SequenceNumber: "10000000000000000001"}
	fakeDPP     = `{"Name":"p","Description":"<&>","Version":"2021-06-01","Statement":[]}`
)

func (f *fakeSNS) record(action string, c sns.Caller, in any) error {
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

func (f *fakeSNS) last() (call, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return call{}, false
	}
	return f.calls[len(f.calls)-1], true
}

func (f *fakeSNS) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func (f *fakeSNS) CreateTopic(_ context.Context, c sns.Caller, in sns.CreateTopicInput) (string, error) {
	return fakeTopicARN, f.record("CreateTopic", c, in)
}

func (f *fakeSNS) DeleteTopic(_ context.Context, c sns.Caller, topicARN string) error {
	return f.record("DeleteTopic", c, topicARN)
}

func (f *fakeSNS) ListTopics(_ context.Context, c sns.Caller, nextToken string) (sns.ListTopicsOutput, error) {
	return fakeTopicList, f.record("ListTopics", c, nextToken)
}

func (f *fakeSNS) GetTopicAttributes(_ context.Context, c sns.Caller, topicARN string) (map[string]string, error) {
	return fakeSNSAttrs, f.record("GetTopicAttributes", c, topicARN)
}

func (f *fakeSNS) SetTopicAttributes(_ context.Context, c sns.Caller, in sns.SetTopicAttributesInput) error {
	return f.record("SetTopicAttributes", c, in)
}

func (f *fakeSNS) Subscribe(_ context.Context, c sns.Caller, in sns.SubscribeInput) (string, error) {
	return fakeSubARN, f.record("Subscribe", c, in)
}

func (f *fakeSNS) ConfirmSubscription(_ context.Context, c sns.Caller, in sns.ConfirmSubscriptionInput) (string, error) {
	return fakeSubARN, f.record("ConfirmSubscription", c, in)
}

func (f *fakeSNS) Unsubscribe(_ context.Context, c sns.Caller, subscriptionARN string) error {
	return f.record("Unsubscribe", c, subscriptionARN)
}

func (f *fakeSNS) ListSubscriptions(_ context.Context, c sns.Caller, nextToken string) (sns.ListSubscriptionsOutput, error) {
	return fakeSubList, f.record("ListSubscriptions", c, nextToken)
}

// listByTopicInput is what the fake records for ListSubscriptionsByTopic.
type listByTopicInput struct{ TopicARN, NextToken string }

func (f *fakeSNS) ListSubscriptionsByTopic(_ context.Context, c sns.Caller, topicARN, nextToken string) (sns.ListSubscriptionsOutput, error) {
	return fakeSubList, f.record("ListSubscriptionsByTopic", c, listByTopicInput{topicARN, nextToken})
}

func (f *fakeSNS) GetSubscriptionAttributes(_ context.Context, c sns.Caller, subscriptionARN string) (map[string]string, error) {
	return fakeSNSAttrs, f.record("GetSubscriptionAttributes", c, subscriptionARN)
}

func (f *fakeSNS) SetSubscriptionAttributes(_ context.Context, c sns.Caller, in sns.SetSubscriptionAttributesInput) error {
	return f.record("SetSubscriptionAttributes", c, in)
}

func (f *fakeSNS) Publish(_ context.Context, c sns.Caller, in sns.PublishInput) (sns.PublishOutput, error) {
	return fakePublish, f.record("Publish", c, in)
}

// PublishBatch succeeds for every entry but the last of two or more.
func (f *fakeSNS) PublishBatch(_ context.Context, c sns.Caller, in sns.PublishBatchInput) (sns.PublishBatchOutput, error) {
	var out sns.PublishBatchOutput
	for i, e := range in.Entries {
		if i == len(in.Entries)-1 && i > 0 {
			out.Failed = append(out.Failed, sns.BatchResultErrorEntry{ID: e.ID, Code: sns.CodeInvalidParameter, Message: "bad <message>", SenderFault: true})
			continue
		}
		out.Successful = append(out.Successful, sns.PublishBatchResultEntry{ID: e.ID, MessageID: "m-" + e.ID, SequenceNumber: "1" + e.ID})
	}
	return out, f.record("PublishBatch", c, in)
}

func (f *fakeSNS) TagResource(_ context.Context, c sns.Caller, in sns.TagResourceInput) error {
	return f.record("TagResource", c, in)
}

func (f *fakeSNS) UntagResource(_ context.Context, c sns.Caller, in sns.UntagResourceInput) error {
	return f.record("UntagResource", c, in)
}

func (f *fakeSNS) ListTagsForResource(_ context.Context, c sns.Caller, resourceARN string) (map[string]string, error) {
	return fakeTags, f.record("ListTagsForResource", c, resourceARN)
}

func (f *fakeSNS) AddPermission(_ context.Context, c sns.Caller, in sns.AddPermissionInput) error {
	return f.record("AddPermission", c, in)
}

func (f *fakeSNS) RemovePermission(_ context.Context, c sns.Caller, in sns.RemovePermissionInput) error {
	return f.record("RemovePermission", c, in)
}

func (f *fakeSNS) GetDataProtectionPolicy(_ context.Context, c sns.Caller, resourceARN string) (string, error) {
	return fakeDPP, f.record("GetDataProtectionPolicy", c, resourceARN)
}

func (f *fakeSNS) PutDataProtectionPolicy(_ context.Context, c sns.Caller, in sns.PutDataProtectionPolicyInput) error {
	return f.record("PutDataProtectionPolicy", c, in)
}
