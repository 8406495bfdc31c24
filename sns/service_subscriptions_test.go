package sns_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

func TestSubscribeHTTPConfirmation(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc) // the workers also send confirmations
	topic := e.createTopic(t, "hooks", nil)
	arn, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: "https", Endpoint: "https://example.com/in"})
	wantCode(t, err, "")
	if arn != sns.PendingConfirmation {
		t.Fatalf("Subscribe = %q, want %q", arn, sns.PendingConfirmation)
	}
	var c sns.Confirmation
	eventually(t, 2*time.Second, "a confirmation", func() (ok bool) { c, ok = e.http.confirmation("https://example.com/in"); return })
	if c.TopicARN != topic || len(c.Token) < 64 ||
		c.SubscribeURL != "http://localhost:4566/?Action=ConfirmSubscription&TopicArn="+topic+"&Token="+c.Token {
		t.Fatalf("confirmation = %+v", c)
	}
	list, _ := e.svc.ListSubscriptionsByTopic(e.ctx, caller, topic, "")
	if len(list.Subscriptions) != 1 || list.Subscriptions[0].SubscriptionARN != sns.PendingARN {
		t.Fatalf("list = %+v", list)
	}
	forged := c.Token[:len(c.Token)-1] + "0"
	if forged == c.Token {
		forged = c.Token[:len(c.Token)-1] + "1"
	}
	_, err = e.svc.ConfirmSubscription(e.ctx, caller, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: forged})
	wantCode(t, err, sns.CodeInvalidParameter)
	_, err = e.svc.ConfirmSubscription(e.ctx, caller, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: "short"})
	wantCode(t, err, sns.CodeInvalidParameter)
	_, err = e.svc.ConfirmSubscription(e.ctx, caller, sns.ConfirmSubscriptionInput{TopicARN: topic + "x", Token: c.Token})
	wantCode(t, err, sns.CodeNotFound)
	subARN, err := e.svc.ConfirmSubscription(e.ctx, caller, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: c.Token, AuthenticateOnUnsubscribe: "true"})
	wantCode(t, err, "")
	if !strings.HasPrefix(subARN, topic+":") {
		t.Fatalf("confirmed arn = %s", subARN)
	}
	attrs, err := e.svc.GetSubscriptionAttributes(e.ctx, caller, subARN)
	wantCode(t, err, "")
	if attrs["PendingConfirmation"] != "false" || attrs["ConfirmationWasAuthenticated"] != "true" ||
		attrs["Protocol"] != "https" || attrs["Endpoint"] != "https://example.com/in" || attrs["RawMessageDelivery"] != "false" ||
		!strings.Contains(attrs["EffectiveDeliveryPolicy"], "numRetries") {
		t.Fatalf("attributes = %v", attrs)
	}
	// Confirming again answers the same subscription.
	again, err := e.svc.ConfirmSubscription(e.ctx, caller, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: c.Token})
	wantCode(t, err, "")
	if again != subARN {
		t.Fatalf("second confirm = %s", again)
	}
}

func TestSubscribeProtocols(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	fifo := e.createTopic(t, "t.fifo", map[string]string{"FifoTopic": "true"})
	queue := e.createQueue(t, "q", nil)
	tests := []struct {
		name              string
		topic, proto, end string
		attrs             map[string]string
		code              string
		pending           bool
	}{
		{"sqs", topic, "sqs", queue, nil, "", false},
		{"sqs raw", topic, "sqs", sqs.QueueARN("us-east-1", account, "raw"), map[string]string{"RawMessageDelivery": "true"}, "", false},
		{"sqs other account", topic, "sqs", sqs.QueueARN("us-east-1", "222222222222", "theirs"), nil, "", true},
		{"sqs not an arn", topic, "sqs", "https://sqs/q", nil, sns.CodeInvalidParameter, false},
		{"path", topic, "path", "alerts.emergency.box1", nil, "", false},
		{"path invalid", topic, "path", "alerts..box", nil, sns.CodeInvalidParameter, false},
		{"http", topic, "http", "http://example.com/x", nil, "", true},
		{"http scheme mismatch", topic, "http", "https://example.com/x", nil, sns.CodeInvalidParameter, false},
		{"http no host", topic, "https", "https:///x", nil, sns.CodeInvalidParameter, false},
		{"email without a mailer", topic, "email", "a@example.com", nil, "", true},
		{"email not an address", topic, "email", "a.example.com", nil, sns.CodeInvalidParameter, false},
		{"http on fifo topic", fifo, "https", "https://example.com/x", nil, sns.CodeInvalidParameter, false},
		{"sqs on fifo topic", fifo, "sqs", sqs.QueueARN("us-east-1", account, "q.fifo"), nil, "", false},
		{"bad raw value", topic, "sqs", sqs.QueueARN("us-east-1", account, "q2"), map[string]string{"RawMessageDelivery": "yes"}, sns.CodeInvalidParameter, false},
		{"bad filter policy", topic, "sqs", sqs.QueueARN("us-east-1", account, "q3"), map[string]string{"FilterPolicy": `{"a": "b"}`}, sns.CodeInvalidParameter, false},
		{"bad filter scope", topic, "sqs", sqs.QueueARN("us-east-1", account, "q4"), map[string]string{"FilterPolicyScope": "Headers"}, sns.CodeInvalidParameter, false},
		{"body filter", topic, "sqs", sqs.QueueARN("us-east-1", account, "q5"), map[string]string{"FilterPolicy": `{"a": {"b": ["c"]}}`, "FilterPolicyScope": "MessageBody"}, "", false},
		{"redrive not sqs", topic, "sqs", sqs.QueueARN("us-east-1", account, "q6"), map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sns:us-east-1:1:t"}`}, sns.CodeInvalidParameter, false},
		{"delivery policy on sqs", topic, "sqs", sqs.QueueARN("us-east-1", account, "q7"), map[string]string{"DeliveryPolicy": `{"healthyRetryPolicy":{"numRetries":1}}`}, sns.CodeInvalidParameter, false},
		{"unknown attribute", topic, "sqs", sqs.QueueARN("us-east-1", account, "q8"), map[string]string{"Colour": "red"}, sns.CodeInvalidParameter, false},
		{"missing topic", topic + "x", "sqs", queue, nil, sns.CodeNotFound, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			arn, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: tc.topic, Protocol: tc.proto, Endpoint: tc.end, Attributes: tc.attrs})
			wantCode(t, err, tc.code)
			if tc.code != "" {
				return
			}
			if pending := arn == sns.PendingConfirmation; pending != tc.pending {
				t.Fatalf("Subscribe = %q, pending %v", arn, tc.pending)
			}
		})
	}
}

func TestSubscribeTwice(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	q := e.createQueue(t, "q", nil)
	a := e.subscribe(t, topic, "sqs", q, map[string]string{"RawMessageDelivery": "true"})
	b := e.subscribe(t, topic, "sqs", q, map[string]string{"RawMessageDelivery": "true"})
	c := e.subscribe(t, topic, "sqs", q, nil)
	if a != b || a != c {
		t.Fatalf("arns %s %s %s", a, b, c)
	}
	_, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: "sqs", Endpoint: q, Attributes: map[string]string{"RawMessageDelivery": "false"}})
	wantCode(t, err, sns.CodeInvalidParameter)
}

func TestSubscriptionAttributes(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	sub := e.subscribe(t, topic, "sqs", e.createQueue(t, "q", nil), nil)
	set := func(name, value, code string) {
		t.Helper()
		wantCode(t, e.svc.SetSubscriptionAttributes(e.ctx, caller, sns.SetSubscriptionAttributesInput{SubscriptionARN: sub, AttributeName: name, AttributeValue: value}), code)
	}
	set("RawMessageDelivery", "true", "")
	set("FilterPolicy", `{"kind": ["a", "b"]}`, "")
	set("RedrivePolicy", `{"deadLetterTargetArn":"`+sqs.QueueARN("us-east-1", account, "dlq")+`"}`, "")
	set("RedrivePolicy", `{"deadLetterTargetArn":""}`, sns.CodeInvalidParameter)
	set("FilterPolicy", `not json`, sns.CodeInvalidParameter)
	set("FilterPolicyScope", "Body", sns.CodeInvalidParameter)
	set("Protocol", "http", sns.CodeInvalidParameter)
	set("SubscriptionRoleArn", "arn:aws:iam::1:role/r", "")
	attrs, err := e.svc.GetSubscriptionAttributes(e.ctx, caller, sub)
	wantCode(t, err, "")
	want := map[string]string{"SubscriptionArn": sub, "TopicArn": topic, "Owner": account, "Protocol": "sqs",
		"RawMessageDelivery": "true", "FilterPolicy": `{"kind": ["a", "b"]}`, "FilterPolicyScope": "MessageAttributes",
		"PendingConfirmation": "false", "ConfirmationWasAuthenticated": "true", "SubscriptionPrincipal": "arn:aws:iam::" + account + ":root"}
	for k, v := range want {
		if attrs[k] != v {
			t.Errorf("%s = %q, want %q", k, attrs[k], v)
		}
	}
	// Switching the scope re-checks the policy in the new scope.
	set("FilterPolicyScope", "MessageBody", "")
	set("FilterPolicy", "", "")
	attrs, _ = e.svc.GetSubscriptionAttributes(e.ctx, caller, sub)
	if _, ok := attrs["FilterPolicy"]; ok {
		t.Fatalf("FilterPolicy not removed: %v", attrs)
	}

	_, err = e.svc.GetSubscriptionAttributes(e.ctx, caller, topic+":5f0c1a2b-0000-4000-8000-000000000000")
	wantCode(t, err, sns.CodeNotFound)
	_, err = e.svc.GetSubscriptionAttributes(e.ctx, caller, topic+":nope")
	wantCode(t, err, sns.CodeInvalidParameter)
	other := caller
	other.Account = "111111111111"
	_, err = e.svc.GetSubscriptionAttributes(e.ctx, other, sub)
	wantCode(t, err, sns.CodeAuthorizationError)

	wantCode(t, e.svc.Unsubscribe(e.ctx, caller, sub), "")
	wantCode(t, e.svc.Unsubscribe(e.ctx, caller, sub), "")
	_, err = e.svc.GetSubscriptionAttributes(e.ctx, caller, sub)
	wantCode(t, err, sns.CodeNotFound)
}

func TestListSubscriptionsPages(t *testing.T) {
	e := newEnv(t)
	want := map[string]bool{}
	for ti := 0; ti < 3; ti++ {
		topic := e.createTopic(t, fmt.Sprint("topic", ti), nil)
		for i := 0; i < 80; i++ {
			want[e.subscribe(t, topic, "path", fmt.Sprintf("p.t%d.s%d", ti, i), nil)] = true
		}
	}
	e.createTopic(t, "empty", nil)
	got := map[string]bool{}
	token, pages := "", 0
	for {
		out, err := e.svc.ListSubscriptions(e.ctx, caller, token)
		wantCode(t, err, "")
		if len(out.Subscriptions) > sns.MaxListPage {
			t.Fatalf("page of %d", len(out.Subscriptions))
		}
		for _, s := range out.Subscriptions {
			if got[s.SubscriptionARN] {
				t.Fatalf("%s listed twice", s.SubscriptionARN)
			}
			got[s.SubscriptionARN] = true
		}
		pages++
		if token = out.NextToken; token == "" {
			break
		}
	}
	if len(got) != len(want) || pages != 3 {
		t.Fatalf("%d of %d subscriptions in %d pages", len(got), len(want), pages)
	}
	topic := e.createTopic(t, "topic1", nil)
	n, token := 0, ""
	for {
		out, err := e.svc.ListSubscriptionsByTopic(e.ctx, caller, topic, token)
		wantCode(t, err, "")
		n += len(out.Subscriptions)
		if token = out.NextToken; token == "" {
			break
		}
	}
	if n != 80 {
		t.Fatalf("ListSubscriptionsByTopic listed %d", n)
	}
}

func TestCrossAccountQueueConfirmation(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc) // the workers also send confirmations
	other := sqs.Caller{Account: "222222222222"}
	topic := e.createTopic(t, "t", nil)
	// The queue's policy admits the topic's messages (as AWS requires).
	queuePolicy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},` +
		`"Action":"sqs:SendMessage","Resource":"*","Condition":{"ArnEquals":{"aws:SourceArn":"` + topic + `"}}}]}`
	if _, err := e.queues.CreateQueue(e.ctx, other, sqs.CreateQueueInput{QueueName: "theirs", Attributes: map[string]string{"Policy": queuePolicy}}); err != nil {
		t.Fatal(err)
	}
	arn, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: "sqs", Endpoint: sqs.QueueARN("us-east-1", "222222222222", "theirs")})
	wantCode(t, err, "")
	if arn != sns.PendingConfirmation {
		t.Fatalf("Subscribe = %s", arn)
	}
	var body string
	eventually(t, 2*time.Second, "a confirmation in the queue", func() bool {
		n, wait := 1, 0
		out, err := e.queues.ReceiveMessage(e.ctx, other, sqs.ReceiveMessageInput{QueueURL: "/222222222222/theirs", MaxNumberOfMessages: &n, WaitTimeSeconds: &wait})
		if err != nil || len(out.Messages) == 0 {
			return false
		}
		body = out.Messages[0].Body
		return true
	})
	var doc map[string]string
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["Type"] != "SubscriptionConfirmation" || doc["TopicArn"] != topic || doc["Token"] == "" || !strings.Contains(doc["SubscribeURL"], "Action=ConfirmSubscription") {
		t.Fatalf("confirmation = %s", body)
	}
	if _, err := e.svc.ConfirmSubscription(e.ctx, sns.Caller{Account: "222222222222"}, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: doc["Token"]}); err != nil {
		t.Fatal(err)
	}
}

// A confirmation outlives the node that took the Subscribe: it waits on
// the delivery queue, and another node's workers send it.
func TestConfirmationSurvivesItsNode(t *testing.T) {
	e := newEnv(t) // e.svc takes the Subscribe and never runs workers
	topic := e.createTopic(t, "durable", nil)
	arn, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: "https", Endpoint: "https://example.com/late"})
	wantCode(t, err, "")
	if arn != sns.PendingConfirmation {
		t.Fatalf("Subscribe = %q", arn)
	}
	e.svc.Close()
	if _, ok := e.http.confirmation("https://example.com/late"); ok {
		t.Fatal("a confirmation was sent without any worker running")
	}
	run(t, e.newNode(t, e.cfg))
	eventually(t, 5*time.Second, "the confirmation from the other node", func() bool {
		_, ok := e.http.confirmation("https://example.com/late")
		return ok
	})
}

// Subscribing again to a pending subscription sends its confirmation
// again, with the same token; a confirmed one gets none.
func TestSubscribeAgainResendsConfirmation(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc)
	topic := e.createTopic(t, "again", nil)
	in := sns.SubscribeInput{TopicARN: topic, Protocol: "http", Endpoint: "http://example.com/again"}
	for range 2 {
		_, err := e.svc.Subscribe(e.ctx, caller, in)
		wantCode(t, err, "")
	}
	sent := func() []sns.Confirmation {
		e.http.mu.Lock()
		defer e.http.mu.Unlock()
		return append([]sns.Confirmation(nil), e.http.confirmations[in.Endpoint]...)
	}
	eventually(t, 5*time.Second, "two confirmations", func() bool { return len(sent()) == 2 })
	c := sent()
	if c[0].Token != c[1].Token || c[0].MessageID == c[1].MessageID {
		t.Fatalf("confirmations %+v and %+v: want one token, two messages", c[0], c[1])
	}
	if _, err := e.svc.ConfirmSubscription(e.ctx, caller, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: c[0].Token}); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.Subscribe(e.ctx, caller, in)
	wantCode(t, err, "")
	time.Sleep(300 * time.Millisecond)
	if n := len(sent()); n != 2 {
		t.Fatalf("%d confirmations after subscribing to a confirmed subscription, want still 2", n)
	}
}
