package sns_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

func snsIn(region string) sns.Caller {
	c := caller
	c.Region = region
	return c
}

// TestRegionsScopeTopics: the same name in two regions is two topics, each
// with its region's ARN (and its subscriptions'), listed only in its
// region; a caller that names no region is in the home region.
func TestRegionsScopeTopics(t *testing.T) {
	e := newEnv(t)
	east, err := e.svc.CreateTopic(e.ctx, snsIn("us-east-1"), sns.CreateTopicInput{Name: "news"})
	wantCode(t, err, "")
	west, err := e.svc.CreateTopic(e.ctx, snsIn("eu-west-1"), sns.CreateTopicInput{Name: "news", Attributes: map[string]string{"DisplayName": "West"}})
	wantCode(t, err, "") // another topic: its attributes may differ
	if east != "arn:aws:sns:us-east-1:"+account+":news" || west != "arn:aws:sns:eu-west-1:"+account+":news" {
		t.Fatalf("topic ARNs %s, %s", east, west)
	}
	for _, tc := range []struct {
		c       sns.Caller
		arn     string
		display string
	}{{snsIn(""), east, ""}, {snsIn("us-east-1"), east, ""}, {snsIn("eu-west-1"), west, "West"}} {
		attrs, err := e.svc.GetTopicAttributes(e.ctx, tc.c, tc.arn)
		wantCode(t, err, "")
		if attrs["DisplayName"] != tc.display || attrs["TopicArn"] != tc.arn {
			t.Errorf("%s: DisplayName %q TopicArn %s", tc.arn, attrs["DisplayName"], attrs["TopicArn"])
		}
		list, err := e.svc.ListTopics(e.ctx, tc.c, "")
		wantCode(t, err, "")
		if len(list.TopicARNs) != 1 || list.TopicARNs[0] != tc.arn {
			t.Errorf("region %q lists %v, want [%s]", tc.c.Region, list.TopicARNs, tc.arn)
		}
	}
	sub, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: west, Protocol: "sqs",
		Endpoint: e.createQueue(t, "inbox", nil), ReturnSubscriptionARN: true})
	wantCode(t, err, "")
	if !strings.HasPrefix(sub, west+":") {
		t.Errorf("subscription ARN %s is not under %s", sub, west)
	}
	subs, err := e.svc.ListSubscriptions(e.ctx, snsIn("eu-west-1"), "")
	wantCode(t, err, "")
	if len(subs.Subscriptions) != 1 || subs.Subscriptions[0].SubscriptionARN != sub {
		t.Errorf("eu-west-1 subscriptions %+v, want %s", subs.Subscriptions, sub)
	}
	subs, err = e.svc.ListSubscriptions(e.ctx, snsIn("us-east-1"), "")
	wantCode(t, err, "")
	if len(subs.Subscriptions) != 0 {
		t.Errorf("us-east-1 subscriptions %+v, want none", subs.Subscriptions)
	}
}

// TestRegionsDeliverAcrossRegions: a topic of one region delivers to a
// queue of another by the queue's ARN, as AWS does.
func TestRegionsDeliverAcrossRegions(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc)
	west, err := e.svc.CreateTopic(e.ctx, snsIn("eu-west-1"), sns.CreateTopicInput{Name: "alerts"})
	wantCode(t, err, "")
	_, err = e.queues.CreateQueue(e.ctx, sqs.Caller{Account: account, Region: "ap-south-1"}, sqs.CreateQueueInput{QueueName: "far"})
	wantCode(t, err, "")
	queueARN := sqs.QueueARN("ap-south-1", account, "far")
	_, err = e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: west, Protocol: "sqs", Endpoint: queueARN,
		Attributes: map[string]string{"RawMessageDelivery": "true"}, ReturnSubscriptionARN: true})
	wantCode(t, err, "")
	_, err = e.svc.Publish(e.ctx, snsIn("eu-west-1"), sns.PublishInput{TopicARN: west, Message: "across"})
	wantCode(t, err, "")
	far := sqs.Caller{Account: account, Region: "ap-south-1"}
	var got []string
	eventually(t, 10*time.Second, "the message in ap-south-1's queue", func() bool {
		n, wait := 10, 0
		out, err := e.queues.ReceiveMessage(e.ctx, far, sqs.ReceiveMessageInput{QueueURL: "/" + account + "/far", MaxNumberOfMessages: &n, WaitTimeSeconds: &wait})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			got = append(got, m.Body)
		}
		return len(got) > 0
	})
	if len(got) != 1 || got[0] != "across" {
		t.Fatalf("ap-south-1's queue got %v", got)
	}
}

// TestRegionsKeepOlderTopics: a topic as a Herald without regions stored
// it (under its bare account) is the home region's; another region's ARN
// of that name finds nothing.
func TestRegionsKeepOlderTopics(t *testing.T) {
	e := newEnv(t)
	old := &sns.Topic{ID: uuid.New(), Account: account, Name: "legacy", Attributes: map[string]string{}, CreatedAt: time.Now()}
	if _, err := e.store.CreateTopic(e.ctx, old); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.GetTopicAttributes(e.ctx, caller, "arn:aws:sns:us-east-1:"+account+":legacy")
	wantCode(t, err, "")
	_, err = e.svc.GetTopicAttributes(e.ctx, caller, "arn:aws:sns:eu-west-1:"+account+":legacy")
	wantCode(t, err, sns.CodeNotFound)
	if _, err := e.svc.CreateTopic(e.ctx, snsIn("eu-west-1"), sns.CreateTopicInput{Name: "legacy"}); err != nil {
		t.Fatal(err)
	}
	if got, err := e.store.GetTopic(e.ctx, account+"@eu-west-1", "legacy"); err != nil || got.ID == old.ID {
		t.Fatalf("eu-west-1's topic as stored: %+v, %v", got, err)
	}
}
