package sns_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

var other = sns.Caller{Account: "111111111111", SenderID: "AKIDOTHER", Scheme: "http", Host: "localhost:4566"}

// topicActions are the SNS actions on a topic, as caller c.
func topicActions(e *env) map[string]func(c sns.Caller, topic string) error {
	return map[string]func(c sns.Caller, topic string) error{
		"Publish": func(c sns.Caller, topic string) error {
			_, err := e.svc.Publish(e.ctx, c, sns.PublishInput{TopicARN: topic, Message: "m"})
			return err
		},
		"Subscribe": func(c sns.Caller, topic string) error {
			_, err := e.svc.Subscribe(e.ctx, c, sns.SubscribeInput{TopicARN: topic, Protocol: "https", Endpoint: "https://example.com/x"})
			return err
		},
		"GetTopicAttributes": func(c sns.Caller, topic string) error {
			_, err := e.svc.GetTopicAttributes(e.ctx, c, topic)
			return err
		},
		"SetTopicAttributes": func(c sns.Caller, topic string) error {
			return e.svc.SetTopicAttributes(e.ctx, c, sns.SetTopicAttributesInput{TopicARN: topic, AttributeName: "DisplayName", AttributeValue: "x"})
		},
		"ListSubscriptionsByTopic": func(c sns.Caller, topic string) error {
			_, err := e.svc.ListSubscriptionsByTopic(e.ctx, c, topic, "")
			return err
		},
		"TagResource": func(c sns.Caller, topic string) error {
			return e.svc.TagResource(e.ctx, c, sns.TagResourceInput{ResourceARN: topic, Tags: map[string]string{"k": "v"}})
		},
		"AddPermission": func(c sns.Caller, topic string) error {
			return e.svc.AddPermission(e.ctx, c, sns.AddPermissionInput{TopicARN: topic, Label: "l", AWSAccountIDs: []string{"222222222222"}, ActionNames: []string{"Publish"}})
		},
		"GetDataProtectionPolicy": func(c sns.Caller, topic string) error {
			_, err := e.svc.GetDataProtectionPolicy(e.ctx, c, topic)
			return err
		},
		"PutDataProtectionPolicy": func(c sns.Caller, topic string) error {
			return e.svc.PutDataProtectionPolicy(e.ctx, c, sns.PutDataProtectionPolicyInput{ResourceARN: topic, DataProtectionPolicy: `{"Name":"p"}`})
		},
		"DeleteTopic": func(c sns.Caller, topic string) error { return e.svc.DeleteTopic(e.ctx, c, topic) },
	}
}

// Another account reaches a topic only as its policy allows; a topic that
// does not exist is refused the same way, so names do not leak.
func TestTopicCrossAccount(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "news", nil)
	missing := "arn:aws:sns:us-east-1:" + account + ":missing"
	for name, act := range topicActions(e) {
		t.Run(name, func(t *testing.T) {
			wantCode(t, act(other, topic), sns.CodeAuthorizationError)
			wantCode(t, act(other, missing), sns.CodeAuthorizationError)
		})
	}

	// AddPermission grants exactly what it names, and is enforced.
	wantCode(t, e.svc.AddPermission(e.ctx, caller, sns.AddPermissionInput{TopicARN: topic, Label: "pub",
		AWSAccountIDs: []string{other.Account}, ActionNames: []string{"Publish"}}), "")
	// Written as AWS writes it: one account and one action as strings.
	attrs, err := e.svc.GetTopicAttributes(e.ctx, caller, topic)
	wantCode(t, err, "")
	if p := attrs["Policy"]; !strings.Contains(p, `"Principal":{"AWS":"arn:aws:iam::`+other.Account+`:root"}`) || !strings.Contains(p, `"Action":"SNS:Publish"`) {
		t.Errorf("policy after AddPermission: %s", p)
	}
	acts := topicActions(e)
	wantCode(t, acts["Publish"](other, topic), "")
	wantCode(t, acts["Subscribe"](other, topic), sns.CodeAuthorizationError)
	wantCode(t, acts["Publish"](sns.Caller{Account: "222222222222"}, topic), sns.CodeAuthorizationError)
	wantCode(t, e.svc.RemovePermission(e.ctx, caller, sns.RemovePermissionInput{TopicARN: topic, Label: "pub"}), "")
	wantCode(t, acts["Publish"](other, topic), sns.CodeAuthorizationError)

	// An explicit Deny binds the owner too, except for repairing the policy.
	deny := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"sns:Publish","Resource":"` + topic + `"}]}`
	wantCode(t, e.svc.SetTopicAttributes(e.ctx, caller, sns.SetTopicAttributesInput{TopicARN: topic, AttributeName: "Policy", AttributeValue: deny}), "")
	wantCode(t, acts["Publish"](caller, topic), sns.CodeAuthorizationError)
	wantCode(t, e.svc.SetTopicAttributes(e.ctx, caller, sns.SetTopicAttributesInput{TopicARN: topic, AttributeName: "Policy", AttributeValue: ""}), "")
	wantCode(t, acts["Publish"](caller, topic), "")

	// A policy that does not parse is refused.
	err = e.svc.SetTopicAttributes(e.ctx, caller, sns.SetTopicAttributesInput{TopicARN: topic, AttributeName: "Policy", AttributeValue: `{"Statement":[{"Effect":"Maybe"}]}`})
	wantCode(t, err, sns.CodeInvalidParameter)
}

// No client account may act in an internal account, and Herald's internal
// caller owns no topics.
func TestTopicsOutOfInternalReach(t *testing.T) {
	e := newEnv(t)
	for _, c := range []sns.Caller{{Account: "herald-sns"}, sqs.InternalCaller("herald-sns"), {Account: ""}} {
		_, err := e.svc.CreateTopic(e.ctx, c, sns.CreateTopicInput{Name: "t"})
		wantCode(t, err, sns.CodeAuthorizationError)
		_, err = e.svc.ListTopics(e.ctx, c, "")
		wantCode(t, err, sns.CodeAuthorizationError)
	}
}

// A queue's owner that subscribes its queue to another account's topic
// (allowed by the topic's policy) consents by doing so: the subscription
// is confirmed at once. Its messages still reach the queue only when the
// queue's policy admits the topic.
func TestQueueOwnerSubscribesToAnotherAccountsTopic(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc)
	topic := e.createTopic(t, "feed", nil)
	wantCode(t, e.svc.AddPermission(e.ctx, caller, sns.AddPermissionInput{TopicARN: topic, Label: "sub",
		AWSAccountIDs: []string{other.Account}, ActionNames: []string{"Subscribe"}}), "")
	policy := `{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*","Condition":{"ArnEquals":{"aws:SourceArn":"` + topic + `"}}}]}`
	for _, q := range []struct {
		name   string
		policy string
	}{{"open", policy}, {"closed", ""}} {
		attrs := map[string]string{}
		if q.policy != "" {
			attrs["Policy"] = q.policy
		}
		if _, err := e.queues.CreateQueue(e.ctx, other, sqs.CreateQueueInput{QueueName: q.name, Attributes: attrs}); err != nil {
			t.Fatal(err)
		}
		arn, err := e.svc.Subscribe(e.ctx, other, sns.SubscribeInput{TopicARN: topic, Protocol: "sqs", Endpoint: sqs.QueueARN("us-east-1", other.Account, q.name)})
		wantCode(t, err, "")
		if arn == sns.PendingConfirmation {
			t.Fatalf("%s: the queue owner's own subscription is pending", q.name)
		}
	}
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "hello"})
	receive := func(name string) int {
		n, wait := 10, 0
		out, err := e.queues.ReceiveMessage(e.ctx, other, sqs.ReceiveMessageInput{QueueURL: "/" + other.Account + "/" + name, MaxNumberOfMessages: &n, WaitTimeSeconds: &wait})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Messages)
	}
	eventually(t, 5*time.Second, "the message in the open queue", func() bool { return receive("open") == 1 })
	eventually(t, 5*time.Second, "the closed queue's delivery given up", func() bool { return e.svc.Stats().Dropped.Load() >= 1 })
	if n := receive("closed"); n != 0 {
		t.Fatalf("the queue whose policy does not admit the topic got %d messages", n)
	}
}

// Jobs on the internal queues that Herald did not seal never cause a
// delivery, whatever they claim: a publish job for a topic, a delivery
// job to any endpoint, a confirmation, or a job sealed under another key.
func TestForgedJobsNeverDeliver(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc)
	topic := e.createTopic(t, "real", nil)
	e.subscribe(t, topic, "https", "https://example.com/real", nil)
	if c, ok := e.http.confirmation("https://example.com/real"); ok {
		_, err := e.svc.ConfirmSubscription(e.ctx, caller, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: c.Token})
		wantCode(t, err, "")
	} else {
		eventually(t, 5*time.Second, "the confirmation", func() bool { _, ok := e.http.confirmation("https://example.com/real"); return ok })
		c, _ := e.http.confirmation("https://example.com/real")
		_, err := e.svc.ConfirmSubscription(e.ctx, caller, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: c.Token})
		wantCode(t, err, "")
	}
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "genuine"})
	eventually(t, 5*time.Second, "the genuine delivery", func() bool { _, d := e.http.count("https://example.com/real"); return d == 1 })

	internal := sqs.InternalCaller("herald-sns")
	pub := fmt.Sprintf(`{"tid":"00000000-0000-0000-0000-000000000000","acct":%q,"topic":"real","msg":"forged","ts":%d}`, account, time.Now().UnixMilli())
	forged := []struct{ queue, body string }{
		{"sns-publish", pub},
		{"sns-publish", "hj1.AAAAAAAAAAAAAAAAAAAAAAAA." + pub},
		{"sns-delivery", `{"pub":` + pub + `,"subs":[{"id":"00000000-0000-0000-0000-000000000001","p":"https","e":"https://evil.example/steal"}]}`},
		{"sns-delivery", `{"confirm":{"topic":"00000000-0000-0000-0000-000000000000","sub":"00000000-0000-0000-0000-000000000001","target":{"Protocol":"https","Endpoint":"https://evil.example/confirm"},"conf":{}},"pub":{},"subs":[]}`},
	}
	for _, f := range forged {
		if _, err := e.queues.SendMessage(e.ctx, internal, sqs.SendMessageInput{QueueURL: "/herald-sns/" + f.queue, MessageBody: f.body}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 10*time.Second, "every forged job refused", func() bool { return e.svc.Stats().Forged.Load() == int64(len(forged)) })
	if a, _ := e.http.count("https://evil.example/steal"); a != 0 {
		t.Fatalf("a forged delivery job reached its endpoint (%d attempts)", a)
	}
	if _, ok := e.http.confirmation("https://evil.example/confirm"); ok {
		t.Fatal("a forged confirmation was sent")
	}
	if _, d := e.http.count("https://example.com/real"); d != 1 {
		t.Fatalf("the forged publish job was delivered: %d deliveries", d)
	}
	// Genuine work still flows.
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "genuine again"})
	eventually(t, 5*time.Second, "the second genuine delivery", func() bool { _, d := e.http.count("https://example.com/real"); return d == 2 })
}

// Another account reaches none of a topic's subscriptions, by any
// subscription action.
func TestSubscriptionsCrossAccount(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "subs", nil)
	queue := e.createQueue(t, "subq", nil)
	sub := e.subscribe(t, topic, "sqs", queue, nil)
	_, err := e.svc.GetSubscriptionAttributes(e.ctx, other, sub)
	wantCode(t, err, sns.CodeAuthorizationError)
	wantCode(t, e.svc.SetSubscriptionAttributes(e.ctx, other, sns.SetSubscriptionAttributesInput{SubscriptionARN: sub, AttributeName: "RawMessageDelivery", AttributeValue: "true"}), sns.CodeAuthorizationError)
	wantCode(t, e.svc.Unsubscribe(e.ctx, other, sub), sns.CodeAuthorizationError)
	out, err := e.svc.ListSubscriptions(e.ctx, other, "")
	wantCode(t, err, "")
	if len(out.Subscriptions) != 0 {
		t.Fatalf("another account lists %d subscriptions", len(out.Subscriptions))
	}
	// The owner still can.
	_, err = e.svc.GetSubscriptionAttributes(e.ctx, caller, sub)
	wantCode(t, err, "")
}

// Herald's internal queues cannot be subscribed to a topic.
func TestInternalQueueIsNoEndpoint(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	_, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: "sqs", Endpoint: "arn:aws:sqs:us-east-1:herald-sns:sns-delivery"})
	wantCode(t, err, sns.CodeInvalidParameter)
}

// A job an older Herald left unsealed on its publish queue (made without a
// job key) is still delivered after the upgrade: it was sent before the key
// existed. One sent after the key existed is refused.
func TestUnsealedJobsFromBeforeTheUpgrade(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "legacy", nil)
	queue := e.createQueue(t, "legacy-sub", nil)
	e.subscribe(t, topic, "sqs", queue, map[string]string{"RawMessageDelivery": "true"})
	tp, err := e.store.GetTopic(e.ctx, account, "legacy")
	if err != nil {
		t.Fatal(err)
	}
	internal := sqs.InternalCaller("herald-sns")
	// The publish queue as an older Herald made it: no job key.
	if _, err := e.queues.CreateQueue(e.ctx, internal, sqs.CreateQueueInput{QueueName: "sns-publish",
		Attributes: map[string]string{"VisibilityTimeout": "2", "MaximumMessageSize": "1048576", "MessageRetentionPeriod": "1209600"}}); err != nil {
		t.Fatal(err)
	}
	job := fmt.Sprintf(`{"tid":%q,"acct":%q,"topic":"legacy","msg":"left by the old version","ts":%d}`, tp.ID, account, time.Now().UnixMilli())
	if _, err := e.queues.SendMessage(e.ctx, internal, sqs.SendMessageInput{QueueURL: "/herald-sns/sns-publish", MessageBody: job}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // the key is made after the job was sent
	run(t, e.svc)
	var got []sqs.ReceivedMessage
	eventually(t, 10*time.Second, "the legacy job's delivery", func() bool {
		got = append(got, e.drain(t, "legacy-sub")...)
		return len(got) >= 1
	})
	if got[0].Body != "left by the old version" {
		t.Fatalf("delivered %q", got[0].Body)
	}
	// Now the key exists: an unsealed job is a forgery.
	if _, err := e.queues.SendMessage(e.ctx, internal, sqs.SendMessageInput{QueueURL: "/herald-sns/sns-publish", MessageBody: job}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the new unsealed job refused", func() bool { return e.svc.Stats().Forged.Load() == 1 })
	if n := len(e.drain(t, "legacy-sub")); n != 0 {
		t.Fatalf("an unsealed job sent after the key existed was delivered (%d)", n)
	}
}
