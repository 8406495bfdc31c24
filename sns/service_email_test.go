package sns_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
)

// fakeMailer records the mail it is given; each address in fails fails
// that many times first (permanently when permanent is set).
type fakeMailer struct {
	mu        sync.Mutex
	sent      []sns.Mail
	attempts  map[string]int
	fails     map[string]int
	permanent bool
}

func newFakeMailer() *fakeMailer {
	return &fakeMailer{attempts: map[string]int{}, fails: map[string]int{}}
}

func (f *fakeMailer) SendMail(_ context.Context, m sns.Mail) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.attempts[m.To]++
	if f.fails[m.To] > 0 {
		f.fails[m.To]--
		err := errors.New("451 try again later")
		if f.permanent {
			return sns.Permanent(errors.New("550 no such mailbox"))
		}
		return err
	}
	f.sent = append(f.sent, m)
	return nil
}

// to returns the mail sent to address so far.
func (f *fakeMailer) to(address string) []sns.Mail {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []sns.Mail
	for _, m := range f.sent {
		if m.To == address {
			out = append(out, m)
		}
	}
	return out
}

func (f *fakeMailer) attemptsTo(address string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.attempts[address]
}

func withMailer(m sns.Mailer) option { return func(c *sns.Config) { c.Mail = m } }

// waitMail waits for the n-th mail to address and returns it.
func waitMail(t *testing.T, f *fakeMailer, address string, n int) sns.Mail {
	t.Helper()
	eventually(t, 10*time.Second, "mail to "+address, func() bool { return len(f.to(address)) >= n })
	return f.to(address)[n-1]
}

// confirmByLink confirms a subscription as its subscriber would: by the
// SubscribeURL in the confirmation mail's body.
func (e *env) confirmByLink(t *testing.T, topic, body string) string {
	t.Helper()
	i := strings.Index(body, "http://localhost:4566/?Action=ConfirmSubscription")
	if i < 0 {
		t.Fatalf("no SubscribeURL in the confirmation mail:\n%s", body)
	}
	link, _, _ := strings.Cut(body[i:], "\n")
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Query().Get("TopicArn"); got != topic {
		t.Fatalf("SubscribeURL names topic %q, want %q", got, topic)
	}
	arn, err := e.svc.ConfirmSubscription(e.ctx, sns.Caller{}, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: u.Query().Get("Token")})
	wantCode(t, err, "")
	return arn
}

// TestEmailWithoutAMailerFailsVisibly: as on AWS, email and email-json
// subscriptions are taken on a server without a mailer (--smtp-addr); each
// stays pending, its confirmation given up after its attempts and counted.
func TestEmailWithoutAMailerFailsVisibly(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc)
	topic := e.createTopic(t, "no-mail", nil)
	for _, protocol := range []string{sns.ProtocolEmail, sns.ProtocolEmailJSON} {
		arn, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: protocol, Endpoint: "ops@example.com"})
		if err != nil || arn != "pending confirmation" {
			t.Fatalf("Subscribe %s without a mailer: %q, %v; want it taken, pending confirmation", protocol, arn, err)
		}
	}
	eventually(t, 10*time.Second, "both confirmations given up", func() bool { return e.svc.Stats().ConfirmationsFailed.Load() == 2 })
	out, err := e.svc.ListSubscriptionsByTopic(e.ctx, caller, topic, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range out.Subscriptions {
		if s.SubscriptionARN != "PendingConfirmation" {
			t.Errorf("%s subscription %s: want it still pending", s.Protocol, s.SubscriptionARN)
		}
	}
}

func TestEmailEndpointMustBeAnAddress(t *testing.T) {
	e := newEnv(t, withMailer(newFakeMailer()))
	topic := e.createTopic(t, "addresses", nil)
	fifo := e.createTopic(t, "addresses.fifo", map[string]string{"FifoTopic": "true"})
	tests := []struct {
		name, topic, endpoint, message string
	}{
		{"no at sign", topic, "ops.example.com", "Invalid parameter: Email address"},
		{"display name", topic, "Ops <ops@example.com>", "Invalid parameter: Email address"},
		{"empty", topic, "", "Invalid parameter: Email address"},
		{"header injection", topic, "ops@example.com\r\nBcc: x@example.com", "Invalid parameter: Email address"},
		{"FIFO topic", fifo, "ops@example.com", "Invalid parameter: Herald does not support this protocol string on a FIFO topic: email; it supports path, sqs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: tc.topic, Protocol: sns.ProtocolEmail, Endpoint: tc.endpoint})
			wantError(t, err, sns.CodeInvalidParameter, tc.message)
		})
	}
}

func TestEmailSubscriptionIsConfirmedByTheMailedLinkThenDelivers(t *testing.T) {
	mailer := newFakeMailer()
	e := newEnv(t, withMailer(mailer))
	run(t, e.svc)
	topic := e.createTopic(t, "alerts", map[string]string{"DisplayName": "Alerts Desk"})
	out, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: sns.ProtocolEmail, Endpoint: "ops@example.com"})
	wantCode(t, err, "")
	if out != sns.PendingConfirmation {
		t.Fatalf("Subscribe answered %q, want %q", out, sns.PendingConfirmation)
	}
	conf := waitMail(t, mailer, "ops@example.com", 1)
	if conf.Subject != sns.ConfirmationEmailSubject || conf.FromName != "Alerts Desk" || !strings.Contains(conf.Body, topic) {
		t.Fatalf("confirmation mail = %+v, want subject %q from Alerts Desk naming the topic", conf, sns.ConfirmationEmailSubject)
	}
	// Nothing is delivered while the subscription is pending.
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "early"})
	time.Sleep(300 * time.Millisecond)
	if got := len(mailer.to("ops@example.com")); got != 1 {
		t.Fatalf("%d mails while pending, want only the confirmation", got)
	}
	subARN := e.confirmByLink(t, topic, conf.Body)
	attrs, err := e.svc.GetSubscriptionAttributes(e.ctx, caller, subARN)
	wantCode(t, err, "")
	if attrs["PendingConfirmation"] != "false" || attrs["Protocol"] != "email" {
		t.Fatalf("after confirmation attributes = %v", attrs)
	}

	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "disk full on db-1", Subject: ptr("Disk alarm")})
	m := waitMail(t, mailer, "ops@example.com", 2)
	if m.Subject != "Disk alarm" || m.FromName != "Alerts Desk" {
		t.Errorf("notification mail subject %q from %q, want %q from Alerts Desk", m.Subject, m.FromName, "Disk alarm")
	}
	unsubscribe := "http://localhost:4566/?Action=Unsubscribe&SubscriptionArn=" + subARN
	if !strings.HasPrefix(m.Body, "disk full on db-1\n") || !strings.Contains(m.Body, unsubscribe) {
		t.Errorf("notification body = %q, want the message then the link %s", m.Body, unsubscribe)
	}
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "no subject"})
	if m := waitMail(t, mailer, "ops@example.com", 3); m.Subject != sns.DefaultEmailSubject {
		t.Errorf("subject of a message published without one = %q, want %q", m.Subject, sns.DefaultEmailSubject)
	}
}

func TestEmailJSONGetsTheEnvelope(t *testing.T) {
	mailer := newFakeMailer()
	e := newEnv(t, withMailer(mailer))
	run(t, e.svc)
	topic := e.createTopic(t, "json-alerts", nil)
	_, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: sns.ProtocolEmailJSON, Endpoint: "robot@example.com"})
	wantCode(t, err, "")
	conf := waitMail(t, mailer, "robot@example.com", 1)
	var doc struct{ Type, TopicArn, Token, SubscribeURL string }
	if err := json.Unmarshal([]byte(conf.Body), &doc); err != nil || doc.Type != "SubscriptionConfirmation" || doc.TopicArn != topic {
		t.Fatalf("email-json confirmation body = %s (%v), want a SubscriptionConfirmation document", conf.Body, err)
	}
	_, err = e.svc.ConfirmSubscription(e.ctx, caller, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: doc.Token})
	wantCode(t, err, "")
	out := e.publish(t, sns.PublishInput{TopicARN: topic, Message: `{"cpu": 99}`,
		MessageAttributes: map[string]sns.MessageAttributeValue{"host": {DataType: "String", StringValue: "db-1"}}})
	m := waitMail(t, mailer, "robot@example.com", 2)
	var env struct {
		Type, MessageId, TopicArn, Message, UnsubscribeURL string
		MessageAttributes                                  map[string]struct{ Type, Value string }
	}
	if err := json.Unmarshal([]byte(m.Body), &env); err != nil {
		t.Fatalf("email-json body is not JSON: %v\n%s", err, m.Body)
	}
	if env.Type != "Notification" || env.MessageId != out.MessageID || env.Message != `{"cpu": 99}` ||
		env.MessageAttributes["host"].Value != "db-1" || env.UnsubscribeURL == "" {
		t.Errorf("email-json envelope = %+v", env)
	}
	if m.Subject != sns.DefaultEmailSubject {
		t.Errorf("email-json subject = %q, want %q", m.Subject, sns.DefaultEmailSubject)
	}
}

func TestEmailDeliveryRetries(t *testing.T) {
	tests := []struct {
		name         string
		permanent    bool
		wantAttempts int
		wantMail     int
	}{
		{"a relay that fails twice is retried", false, 3, 1},
		{"a refused recipient is not retried", true, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mailer := newFakeMailer()
			mailer.permanent = tc.permanent
			e := newEnv(t, withMailer(mailer), func(c *sns.Config) {
				c.NotifyRetry = sns.DeliveryPolicy{NumRetries: 5, MinDelayTarget: 1, MaxDelayTarget: 1}
			})
			run(t, e.svc)
			topic := e.createTopic(t, "retries", nil)
			_, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: sns.ProtocolEmail, Endpoint: "ops@example.com"})
			wantCode(t, err, "")
			e.confirmByLink(t, topic, waitMail(t, mailer, "ops@example.com", 1).Body)
			mailer.mu.Lock()
			mailer.fails["ops@example.com"] = 2
			before := mailer.attempts["ops@example.com"]
			mailer.mu.Unlock()
			e.publish(t, sns.PublishInput{TopicARN: topic, Message: "m"})
			eventually(t, 15*time.Second, "the delivery attempts", func() bool {
				return mailer.attemptsTo("ops@example.com")-before >= tc.wantAttempts
			})
			time.Sleep(1500 * time.Millisecond) // room for an attempt too many
			if got := mailer.attemptsTo("ops@example.com") - before; got != tc.wantAttempts {
				t.Errorf("%d attempts, want %d", got, tc.wantAttempts)
			}
			if got := len(mailer.to("ops@example.com")) - 1; got != tc.wantMail {
				t.Errorf("%d notifications mailed, want %d", got, tc.wantMail)
			}
		})
	}
}
