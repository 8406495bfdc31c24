package sqs_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// inRegion is caller acting in region.
func inRegion(region string) sqs.Caller {
	c := caller
	c.Region = region
	return c
}

// TestRegionsScopeQueues: the same name in two regions is two queues, each
// with its region's ARN, listed only in its region; the home region is the
// one of callers that name none; a URL's host region wins over the
// caller's.
func TestRegionsScopeQueues(t *testing.T) {
	e := newEnv(t)
	home, west := inRegion("us-east-1"), inRegion("eu-west-1")
	urlHome, err := e.svc.CreateQueue(e.ctx, home, sqs.CreateQueueInput{QueueName: "orders"})
	wantCode(t, err, "")
	urlWest, err := e.svc.CreateQueue(e.ctx, west, sqs.CreateQueueInput{QueueName: "orders", Attributes: map[string]string{"DelaySeconds": "7"}})
	wantCode(t, err, "") // not QueueNameExists: another queue

	for _, tc := range []struct {
		c     sqs.Caller
		url   string
		arn   string
		delay string
	}{
		{home, urlHome, "arn:aws:sqs:us-east-1:" + account + ":orders", "0"},
		{inRegion(""), urlHome, "arn:aws:sqs:us-east-1:" + account + ":orders", "0"},
		{west, urlWest, "arn:aws:sqs:eu-west-1:" + account + ":orders", "7"},
	} {
		out, err := e.svc.GetQueueAttributes(e.ctx, tc.c, sqs.GetQueueAttributesInput{QueueURL: tc.url, AttributeNames: []string{"All"}})
		wantCode(t, err, "")
		if out["QueueArn"] != tc.arn || out["DelaySeconds"] != tc.delay {
			t.Errorf("region %q: QueueArn %s DelaySeconds %s, want %s %s", tc.c.Region, out["QueueArn"], out["DelaySeconds"], tc.arn, tc.delay)
		}
		list, err := e.svc.ListQueues(e.ctx, tc.c, sqs.ListQueuesInput{})
		wantCode(t, err, "")
		if len(list.QueueURLs) != 1 {
			t.Errorf("region %q lists %v, want its one queue", tc.c.Region, list.QueueURLs)
		}
	}
	_, err = e.svc.GetQueueURL(e.ctx, inRegion("ap-south-1"), sqs.GetQueueURLInput{QueueName: "orders"})
	wantCode(t, err, sqs.CodeQueueDoesNotExist)

	// The host of a URL names its region, whatever the caller's.
	hostStyle := "http://sqs.eu-west-1.localhost:4566/" + account + "/orders"
	out, err := e.svc.GetQueueAttributes(e.ctx, home, sqs.GetQueueAttributesInput{QueueURL: hostStyle, AttributeNames: []string{"DelaySeconds"}})
	wantCode(t, err, "")
	if out["DelaySeconds"] != "7" {
		t.Errorf("through %s: DelaySeconds %s, want eu-west-1's 7", hostStyle, out["DelaySeconds"])
	}

	// A dead-letter queue is of its source's region.
	_, err = e.svc.CreateQueue(e.ctx, west, sqs.CreateQueueInput{QueueName: "src", Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:` + account + `:orders","maxReceiveCount":"1"}`,
	}})
	wantError(t, err, sqs.CodeInvalidParameterValue, "Dead-letter target region should be same as the source.")
	_, err = e.svc.CreateQueue(e.ctx, west, sqs.CreateQueueInput{QueueName: "src", Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:eu-west-1:` + account + `:orders","maxReceiveCount":"1"}`,
	}})
	wantCode(t, err, "")
	srcs, err := e.svc.ListDeadLetterSourceQueues(e.ctx, west, sqs.ListDeadLetterSourceQueuesInput{QueueURL: urlWest})
	wantCode(t, err, "")
	if len(srcs.QueueURLs) != 1 {
		t.Errorf("eu-west-1 dead-letter sources %v, want src", srcs.QueueURLs)
	}
	srcs, err = e.svc.ListDeadLetterSourceQueues(e.ctx, home, sqs.ListDeadLetterSourceQueuesInput{QueueURL: urlHome})
	wantCode(t, err, "")
	if len(srcs.QueueURLs) != 0 {
		t.Errorf("us-east-1 dead-letter sources %v, want none", srcs.QueueURLs)
	}
}

// TestRegionsMessagesStayInTheirRegion: a message sent in one region is
// received only there, also through an ARN-addressed move back from a
// dead-letter queue of that region.
func TestRegionsMessagesStayInTheirRegion(t *testing.T) {
	e := newEnv(t)
	home, west := inRegion("us-east-1"), inRegion("eu-west-1")
	urls := map[string]string{}
	for _, c := range []sqs.Caller{home, west} {
		url, err := e.svc.CreateQueue(e.ctx, c, sqs.CreateQueueInput{QueueName: "q"})
		wantCode(t, err, "")
		urls[c.Region] = url
		_, err = e.svc.SendMessage(e.ctx, c, sqs.SendMessageInput{QueueURL: url, MessageBody: "from " + c.Region})
		wantCode(t, err, "")
	}
	for _, c := range []sqs.Caller{home, west} {
		out, err := e.svc.ReceiveMessage(e.ctx, c, sqs.ReceiveMessageInput{QueueURL: urls[c.Region], MaxNumberOfMessages: ptr(10)})
		wantCode(t, err, "")
		if got := bodies(out.Messages); !slices.Equal(got, []string{"from " + c.Region}) {
			t.Errorf("%s received %v", c.Region, got)
		}
	}
}

// TestRegionsKeepOlderQueues: a queue record as a Herald without regions
// stored it (under its bare account) is the home region's, and no other
// region sees it.
func TestRegionsKeepOlderQueues(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	old := &sqs.Queue{ID: uuid.New(), Account: account, Name: "legacy", Shards: 1, CreatedAt: now, ModifiedAt: now}
	old.Attributes, _ = sqs.NewQueueAttributes("legacy", nil, sqs.DefaultLimits())
	if _, err := e.store.CreateQueue(e.ctx, old); err != nil {
		t.Fatal(err)
	}
	for _, region := range []string{"", "us-east-1"} {
		if _, err := e.svc.GetQueueURL(e.ctx, inRegion(region), sqs.GetQueueURLInput{QueueName: "legacy"}); err != nil {
			t.Errorf("home region %q: %v", region, err)
		}
	}
	_, err := e.svc.GetQueueURL(e.ctx, inRegion("eu-west-1"), sqs.GetQueueURLInput{QueueName: "legacy"})
	wantCode(t, err, sqs.CodeQueueDoesNotExist)
	// And a queue of another region is stored apart from the home region's.
	_, err = e.svc.CreateQueue(e.ctx, inRegion("eu-west-1"), sqs.CreateQueueInput{QueueName: "legacy"})
	wantCode(t, err, "")
	if q, err := e.store.GetQueue(e.ctx, account+"@eu-west-1", "legacy"); err != nil || q.ID == old.ID {
		t.Fatalf("eu-west-1's queue as stored: %+v, %v", q, err)
	}
}
