package main

import (
	"context"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snsmem"
	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

const testAccount = "000000000000"

// declareEnv is an in-memory SQS and SNS service pair.
type declareEnv struct {
	queues *sqs.Service
	topics *sns.Service
	aws    awsConfig
}

func newDeclareEnv(t *testing.T) *declareEnv {
	t.Helper()
	q := sqs.NewService(sqsmem.NewStore(), sqsmem.NewIndex(sqsmem.IndexOptions{}), sqsmem.NewNotifier(), sqs.Config{Region: "us-east-1"})
	tp := sns.NewService(snsmem.NewStore(), sns.Config{Region: "us-east-1", Queues: q, HTTP: noHTTP{}})
	t.Cleanup(func() {
		tp.Close()
		q.Close()
	})
	return &declareEnv{queues: q, topics: tp, aws: awsConfig{account: testAccount, region: "us-east-1"}}
}

// noHTTP accepts http and https subscriptions and delivers nothing.
type noHTTP struct{}

func (noHTTP) Deliver(context.Context, sns.Target, sns.Notification) error          { return nil }
func (noHTTP) SendConfirmation(context.Context, sns.Target, sns.Confirmation) error { return nil }

// declare parses text as a configuration file and creates what it declares.
func (e *declareEnv) declare(t *testing.T, text string) error {
	t.Helper()
	c, err := loadServe(t, text)
	if err != nil {
		t.Fatal(err)
	}
	return declareResources(context.Background(), c.declared, e.queues, e.topics, e.aws, []string{"us-east-1", "eu-west-1"}, "http", "127.0.0.1:4566")
}

func (e *declareEnv) queueAttrs(t *testing.T, account, region, name string) map[string]string {
	t.Helper()
	if region == "us-east-1" {
		region = ""
	}
	attrs, err := e.queues.GetQueueAttributes(context.Background(), sqs.Caller{Account: account, Region: region},
		sqs.GetQueueAttributesInput{QueueURL: name, AttributeNames: []string{"All"}})
	if err != nil {
		t.Fatalf("queue %s in %s/%s: %v", name, account, region, err)
	}
	return attrs
}

const declaredFile = `
queues:
  - name: orders
    attributes: {VisibilityTimeout: 45}
    dead_letter_queue: {name: orders-dlq, max_receive_count: 4}
    tags: {team: billing}
  - name: orders-dlq
    attributes: {MessageRetentionPeriod: 1209600}
  - name: jobs.fifo
  - name: audit
    account: "111111111111"
    region: eu-west-1
topics:
  - name: events
    attributes: {DisplayName: Events}
    tags: {team: billing}
    subscriptions:
      - queue: orders
        attributes: {RawMessageDelivery: true}
`

func TestDeclareCreatesQueuesAndTopics(t *testing.T) {
	e := newDeclareEnv(t)
	if err := e.declare(t, declaredFile); err != nil {
		t.Fatal(err)
	}
	orders := e.queueAttrs(t, testAccount, "us-east-1", "orders")
	if orders["VisibilityTimeout"] != "45" {
		t.Errorf("VisibilityTimeout %q", orders["VisibilityTimeout"])
	}
	dlqARN := sqs.QueueARN("us-east-1", testAccount, "orders-dlq")
	if !strings.Contains(orders["RedrivePolicy"], dlqARN) || !strings.Contains(orders["RedrivePolicy"], `"maxReceiveCount":4`) {
		t.Errorf("RedrivePolicy %q", orders["RedrivePolicy"])
	}
	if got := e.queueAttrs(t, testAccount, "us-east-1", "orders-dlq")["MessageRetentionPeriod"]; got != "1209600" {
		t.Errorf("the dead-letter queue's MessageRetentionPeriod %q", got)
	}
	if got := e.queueAttrs(t, testAccount, "us-east-1", "jobs.fifo")["FifoQueue"]; got != "true" {
		t.Errorf("a .fifo name is a FIFO queue: FifoQueue %q", got)
	}
	if got := e.queueAttrs(t, "111111111111", "eu-west-1", "audit")["QueueArn"]; got != sqs.QueueARN("eu-west-1", "111111111111", "audit") {
		t.Errorf("a queue of another account and region: QueueArn %q", got)
	}
	tags, err := e.queues.ListQueueTags(context.Background(), sqs.Caller{Account: testAccount}, "orders")
	if err != nil || tags["team"] != "billing" {
		t.Errorf("queue tags %v, %v", tags, err)
	}
	ctx := context.Background()
	c := sqs.Caller{Account: testAccount}
	topicARN := sns.TopicARN("us-east-1", testAccount, "events")
	attrs, err := e.topics.GetTopicAttributes(ctx, c, topicARN)
	if err != nil || attrs["DisplayName"] != "Events" {
		t.Fatalf("topic attributes %v, %v", attrs, err)
	}
	subs, err := e.topics.ListSubscriptionsByTopic(ctx, c, topicARN, "")
	if err != nil || len(subs.Subscriptions) != 1 {
		t.Fatalf("subscriptions %+v, %v", subs, err)
	}
	if s := subs.Subscriptions[0]; s.Protocol != "sqs" || s.Endpoint != sqs.QueueARN("us-east-1", testAccount, "orders") {
		t.Errorf("subscription %+v", s)
	}
	tt, err := e.topics.ListTagsForResource(ctx, c, topicARN)
	if err != nil || tt["team"] != "billing" {
		t.Errorf("topic tags %v, %v", tt, err)
	}

	// The same file again changes nothing and is no error.
	if err := e.declare(t, declaredFile); err != nil {
		t.Fatalf("declaring again: %v", err)
	}
	subs, _ = e.topics.ListSubscriptionsByTopic(ctx, c, topicARN, "")
	if len(subs.Subscriptions) != 1 {
		t.Errorf("declaring again made %d subscriptions", len(subs.Subscriptions))
	}
}

func TestDeclareCreatesAnUndeclaredDeadLetterQueue(t *testing.T) {
	e := newDeclareEnv(t)
	if err := e.declare(t, "queues:\n  - name: work.fifo\n    dead_letter_queue: {name: work-dlq.fifo, max_receive_count: 2}\n"); err != nil {
		t.Fatal(err)
	}
	if got := e.queueAttrs(t, testAccount, "us-east-1", "work-dlq.fifo")["FifoQueue"]; got != "true" {
		t.Errorf("the dead-letter queue made for a FIFO queue: FifoQueue %q", got)
	}
}

func TestDeclareErrors(t *testing.T) {
	tests := []struct {
		name   string
		before string // declared first, successfully
		text   string
		want   []string
	}{
		{"a queue with other attributes", "queues: [{name: orders, attributes: {VisibilityTimeout: 30}}]",
			"queues: [{name: orders, attributes: {VisibilityTimeout: 60}}]",
			[]string{"queue orders", "already exists", `VisibilityTimeout is "30" there, "60" in the file`}},
		{"a topic with other attributes", "topics: [{name: events, attributes: {DisplayName: A}}]",
			"topics: [{name: events, attributes: {DisplayName: B}}]",
			[]string{"topic events", "already exists", `DisplayName is "A" there, "B" in the file`}},
		{"a subscription with other attributes", "queues: [{name: q}]\ntopics: [{name: t, subscriptions: [{queue: q}]}]",
			"topics: [{name: t, subscriptions: [{queue: q, attributes: {RawMessageDelivery: true}}]}]",
			[]string{"topic t, subscription sqs", "different attributes"}},
		{"a cycle of dead-letter queues", "",
			"queues:\n  - {name: a, dead_letter_queue: {name: b, max_receive_count: 1}}\n  - {name: b, dead_letter_queue: {name: a, max_receive_count: 1}}",
			[]string{"cycle", "a -> b -> a"}},
		{"a dead-letter queue without a count", "", "queues: [{name: a, dead_letter_queue: {name: b}}]",
			[]string{"queue a", "max_receive_count"}},
		{"both dead-letter forms", "", "queues: [{name: a, attributes: {RedrivePolicy: x}, dead_letter_queue: {name: b, max_receive_count: 1}}]",
			[]string{"not both"}},
		{"a queue without a name", "", "queues: [{attributes: {}}]", []string{"queues[0]", "name is required"}},
		{"a queue declared twice", "", "queues: [{name: a}, {name: a}]", []string{"queue a is declared twice"}},
		{"a region not served", "", "queues: [{name: a, region: ap-south-1}]", []string{"region ap-south-1 is not served"}},
		{"an internal account", "", "topics: [{name: t, account: herald-sns}]", []string{"topics[0]", `account "herald-sns"`}},
		{"a subscription without an endpoint", "", "topics: [{name: t, subscriptions: [{protocol: https}]}]",
			[]string{"subscriptions[0]", "protocol and endpoint"}},
		{"an invalid attribute", "", "queues: [{name: a, attributes: {VisibilityTimeout: forever}}]",
			[]string{"queue a", "VisibilityTimeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newDeclareEnv(t)
			if tt.before != "" {
				if err := e.declare(t, tt.before); err != nil {
					t.Fatalf("declaring first: %v", err)
				}
			}
			err := e.declare(t, tt.text)
			if err == nil {
				t.Fatalf("no error for:\n%s", tt.text)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
