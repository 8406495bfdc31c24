package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/heraldmq/herald/sns/snsmail/smtptest"
)

// SNS email and email-json through a real herald serve and the unchanged
// aws-sdk-go-v2 client, on both engines: Herald mails a local SMTP sink
// (smtptest, in this process) given as --smtp-addr.

// followLink GETs a link from a mail, as the person reading it would.
func followLink(t *testing.T, body, prefix string) {
	t.Helper()
	i := strings.Index(body, prefix)
	if i < 0 {
		t.Fatalf("no link %s... in the mail:\n%s", prefix, body)
	}
	link, _, _ := strings.Cut(body[i:], "\n")
	resp, err := http.Get(strings.TrimSpace(link))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", link, resp.Status)
	}
}

func TestSNSEmailConfirmationAndDelivery(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		sink := smtptest.NewServer(t)
		s := e.start(t, "", "--smtp-addr", sink.Addr, "--smtp-from", "sns@herald.test")
		c := snsClient(s)
		ctx := ctxFor(t, 2*time.Minute)
		topic := newTopic(t, c, map[string]string{"DisplayName": "Ops Desk"})

		out, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: &topic, Protocol: aws.String("email"), Endpoint: aws.String("ops@example.com")})
		if err != nil || aws.ToString(out.SubscriptionArn) != "pending confirmation" {
			t.Fatalf("Subscribe email = %v, %v; want pending confirmation", aws.ToString(out.SubscriptionArn), err)
		}
		conf := sink.Wait(t, "ops@example.com", 1, 30*time.Second)
		if conf.Subject != "AWS Notification - Subscription Confirmation" || conf.Header.Get("From") != `"Ops Desk" <sns@herald.test>` ||
			!strings.Contains(conf.Body, topic) {
			t.Fatalf("confirmation mail: subject %q, from %q, body:\n%s", conf.Subject, conf.Header.Get("From"), conf.Body)
		}
		subs, err := c.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: &topic})
		if err != nil || len(subs.Subscriptions) != 1 || aws.ToString(subs.Subscriptions[0].SubscriptionArn) != "PendingConfirmation" {
			t.Fatalf("before confirmation the subscriptions are %+v, %v", subs, err)
		}
		followLink(t, conf.Body, s.URL+"/?Action=ConfirmSubscription")
		subs, err = c.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: &topic})
		if err != nil || len(subs.Subscriptions) != 1 || !strings.HasPrefix(aws.ToString(subs.Subscriptions[0].SubscriptionArn), topic+":") {
			t.Fatalf("after following the link the subscriptions are %+v, %v", subs, err)
		}

		_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: &topic, Message: aws.String("db-1 disk at 97%"), Subject: aws.String("Disk alarm")})
		if err != nil {
			t.Fatal(err)
		}
		m := sink.Wait(t, "ops@example.com", 2, 30*time.Second)
		if m.Subject != "Disk alarm" || !strings.HasPrefix(m.Body, "db-1 disk at 97%\n") {
			t.Errorf("notification mail: subject %q, body:\n%s", m.Subject, m.Body)
		}
		_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: &topic, Message: aws.String("no subject")})
		if err != nil {
			t.Fatal(err)
		}
		if m := sink.Wait(t, "ops@example.com", 3, 30*time.Second); m.Subject != "AWS Notification Message" {
			t.Errorf("subject of a message without one: %q", m.Subject)
		}
		// The footer's link unsubscribes.
		followLink(t, m.Body, s.URL+"/?Action=Unsubscribe")
		subs, err = c.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: &topic})
		if err != nil || len(subs.Subscriptions) != 0 {
			t.Errorf("after the unsubscribe link the subscriptions are %+v, %v", subs.Subscriptions, err)
		}
	})
}

func TestSNSEmailJSONAndRetries(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		sink := smtptest.NewServer(t)
		s := e.start(t, "", "--smtp-addr", sink.Addr)
		c := snsClient(s)
		ctx := ctxFor(t, 2*time.Minute)
		topic := newTopic(t, c, nil)
		if _, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: &topic, Protocol: aws.String("email-json"), Endpoint: aws.String("robot@example.com")}); err != nil {
			t.Fatal(err)
		}
		var doc struct{ Type, Token, SubscribeURL string }
		conf := sink.Wait(t, "robot@example.com", 1, 30*time.Second)
		if err := json.Unmarshal([]byte(conf.Body), &doc); err != nil || doc.Type != "SubscriptionConfirmation" {
			t.Fatalf("email-json confirmation: %v\n%s", err, conf.Body)
		}
		if _, err := c.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: &topic, Token: &doc.Token}); err != nil {
			t.Fatal(err)
		}
		// The relay refuses the first attempt for now (451): the mail
		// comes with the retry 10 s later.
		sink.TempFail(1)
		pub, err := c.Publish(ctx, &sns.PublishInput{TopicArn: &topic, Message: aws.String(`{"cpu": 99}`)})
		if err != nil {
			t.Fatal(err)
		}
		m := sink.Wait(t, "robot@example.com", 2, 60*time.Second)
		var env snsEnvelope
		if err := json.Unmarshal([]byte(m.Body), &env); err != nil {
			t.Fatalf("email-json body: %v\n%s", err, m.Body)
		}
		if env.Type != "Notification" || env.MessageID != aws.ToString(pub.MessageId) || env.Message != `{"cpu": 99}` || env.TopicARN != topic {
			t.Errorf("email-json envelope = %+v", env)
		}
		if err := verifySNS([]byte(m.Body), env.SigningCertURL); err != nil {
			t.Errorf("the email-json envelope's signature: %v", err)
		}
	})
}

// TestSNSEmailAndSMSWithoutRelaysFailVisibly: as AWS does, a server with
// neither --smtp-addr nor --sms-webhook-url takes email and sms
// subscriptions and a Publish to a phone number; the deliveries are given
// up and counted on /metrics (herald_sns_deliveries_total{outcome="dropped"}).
func TestSNSEmailAndSMSWithoutRelaysFailVisibly(t *testing.T) {
	s := startServer(t, "")
	c := snsClient(s)
	ctx := ctxFor(t, 30*time.Second)
	topic := newTopic(t, c, nil)
	out, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: &topic, Protocol: aws.String("email"), Endpoint: aws.String("ops@example.com")})
	if err != nil || aws.ToString(out.SubscriptionArn) != "pending confirmation" {
		t.Fatalf("Subscribe email without --smtp-addr: %v, %v; want it pending confirmation", out, err)
	}
	if _, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: &topic, Protocol: aws.String("sms"), Endpoint: aws.String("+15555550100")}); err != nil {
		t.Fatalf("Subscribe sms without --sms-webhook-url: %v", err)
	}
	if _, err := c.Publish(ctx, &sns.PublishInput{TopicArn: &topic, Message: aws.String("to the sms subscriber")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Publish(ctx, &sns.PublishInput{PhoneNumber: aws.String("+15555550101"), Message: aws.String("direct")}); err != nil {
		t.Fatalf("Publish to a phone number without --sms-webhook-url: %v", err)
	}
	const dropped = `herald_sns_deliveries_total{outcome="dropped"} `
	var last string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(s.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, dropped); ok {
				last = v
			}
		}
		if last == "2" {
			return
		}
	}
	t.Errorf("%s%s, want 2 (the subscriber's SMS and the direct one given up)", dropped, last)
}
