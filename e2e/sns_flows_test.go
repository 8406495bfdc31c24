package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"
)

// These tests drive Herald's SNS API with the unchanged aws-sdk-go-v2 SNS
// client, with real HTTP subscribers, real queues and the message cache as
// endpoints.

func snsClient(s *server) *sns.Client { return snsClientIn(s, "us-east-1") }

// snsClientIn is snsClient signing for region.
func snsClientIn(s *server, region string) *sns.Client {
	return sns.New(sns.Options{BaseEndpoint: aws.String(s.URL), Region: region, Credentials: testCredentials, RetryMaxAttempts: 1})
}

func newTopic(t *testing.T, c *sns.Client, attrs map[string]string) string {
	t.Helper()
	out, err := c.CreateTopic(ctxFor(t, 30*time.Second), &sns.CreateTopicInput{Name: aws.String("e2e-" + uuid.NewString()[:12]), Attributes: attrs})
	if err != nil {
		t.Fatalf("CreateTopic: %v", err)
	}
	return aws.ToString(out.TopicArn)
}

func subscribe(t *testing.T, c *sns.Client, topic, protocol, endpoint string, attrs map[string]string) string {
	t.Helper()
	out, err := c.Subscribe(ctxFor(t, 30*time.Second), &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String(protocol),
		Endpoint: aws.String(endpoint), Attributes: attrs, ReturnSubscriptionArn: true})
	if err != nil {
		t.Fatalf("Subscribe %s %s: %v", protocol, endpoint, err)
	}
	return aws.ToString(out.SubscriptionArn)
}

func publish(t *testing.T, c *sns.Client, in *sns.PublishInput) string {
	t.Helper()
	out, err := c.Publish(ctxFor(t, 30*time.Second), in)
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	return aws.ToString(out.MessageId)
}

// waitConfirmed waits until the subscription of endpoint is confirmed.
func waitConfirmed(t *testing.T, c *sns.Client, topic, endpoint string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		out, err := c.ListSubscriptionsByTopic(ctxFor(t, 30*time.Second), &sns.ListSubscriptionsByTopicInput{TopicArn: aws.String(topic)})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range out.Subscriptions {
			if aws.ToString(s.Endpoint) == endpoint && strings.HasPrefix(aws.ToString(s.SubscriptionArn), "arn:") {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the subscription of %s was not confirmed within 20 s", endpoint)
}

func TestSNSToHTTPEndpointSignedAndConfirmed(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := snsClient(s)
		for _, version := range []string{"1", "2"} {
			topic := newTopic(t, c, map[string]string{"SignatureVersion": version})
			ep := newSNSEndpoint(t, 0)
			subscribe(t, c, topic, "http", ep.URL(), nil)
			waitConfirmed(t, c, topic, ep.URL())

			id := publish(t, c, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("hello, subscriber"), Subject: aws.String("greeting"),
				MessageAttributes: map[string]snstypes.MessageAttributeValue{"colour": {DataType: aws.String("String"), StringValue: aws.String("blue")}}})
			ep.waitFor(1, 20*time.Second)
			n := ep.notifications()[0]
			if n.MessageID != id || n.Message != "hello, subscriber" || n.Subject != "greeting" || n.TopicARN != topic || n.SignatureVersion != version {
				t.Errorf("signature version %s: notification %+v", version, n)
			}
			if n.MessageAttributes["colour"].Value != "blue" || n.UnsubscribeURL == "" {
				t.Errorf("notification attributes %+v, UnsubscribeURL %q", n.MessageAttributes, n.UnsubscribeURL)
			}
		}
	})
}

func TestSNSToQueuesRawAndEnveloped(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c, q := snsClient(s), sqsClient(s)
		topic := newTopic(t, c, nil)
		envURL, rawURL := newQueue(t, q, "", nil), newQueue(t, q, "", nil)
		subscribe(t, c, topic, "sqs", queueArn(t, q, envURL), nil)
		subscribe(t, c, topic, "sqs", queueArn(t, q, rawURL), map[string]string{"RawMessageDelivery": "true"})

		id := publish(t, c, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(`{"alert":"flood"}`)})
		raw := receiveN(t, q, rawURL, 1, 20*time.Second, 30)
		if len(raw) != 1 || aws.ToString(raw[0].Body) != `{"alert":"flood"}` {
			t.Fatalf("raw queue got %v", raw)
		}
		env := receiveN(t, q, envURL, 1, 20*time.Second, 30)
		if len(env) != 1 {
			t.Fatal("the enveloped queue got nothing")
		}
		var n snsEnvelope
		if err := json.Unmarshal([]byte(aws.ToString(env[0].Body)), &n); err != nil || n.Type != "Notification" || n.MessageID != id || n.Message != `{"alert":"flood"}` {
			t.Errorf("enveloped queue got %s (%v)", aws.ToString(env[0].Body), err)
		}
		if err := verifySNS([]byte(aws.ToString(env[0].Body)), n.SigningCertURL); err != nil {
			t.Errorf("the envelope in the queue does not verify: %v", err)
		}
	})
}

func TestSNSToCachePath(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c := snsClient(s)
		topic := newTopic(t, c, nil)
		word := "sns" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
		path := word + ".alerts.eu"
		subscribe(t, c, topic, "path", path, nil)
		publish(t, c, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("storm warning")})

		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			resp, err := http.Get(s.URL + "/v1/latest?pattern=" + url.QueryEscape(word+".#"))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(body), `"path":"`+path+`"`) {
				if !strings.Contains(string(body), "c3Rvcm0gd2FybmluZw==") { // base64 of the message
					t.Errorf("the cached notification does not carry the message as its body: %s", body)
				}
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("nothing appeared at %s within 20 s", path)
	})
}

func TestSNSFilterPolicies(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c, q := snsClient(s), sqsClient(s)
		topic := newTopic(t, c, nil)
		blue, big, body := newQueue(t, q, "", nil), newQueue(t, q, "", nil), newQueue(t, q, "", nil)
		raw := map[string]string{"RawMessageDelivery": "true"}
		withPolicy := func(policy string, extra map[string]string) map[string]string {
			m := map[string]string{"FilterPolicy": policy}
			for k, v := range raw {
				m[k] = v
			}
			for k, v := range extra {
				m[k] = v
			}
			return m
		}
		subscribe(t, c, topic, "sqs", queueArn(t, q, blue), withPolicy(`{"colour":["blue"]}`, nil))
		subscribe(t, c, topic, "sqs", queueArn(t, q, big), withPolicy(`{"size":[{"numeric":[">",10]}],"colour":[{"anything-but":"red"}]}`, nil))
		subscribe(t, c, topic, "sqs", queueArn(t, q, body), withPolicy(`{"kind":[{"prefix":"alert-"}]}`, map[string]string{"FilterPolicyScope": "MessageBody"}))

		send := func(msg, colour string, size int) {
			attrs := map[string]snstypes.MessageAttributeValue{
				"colour": {DataType: aws.String("String"), StringValue: aws.String(colour)},
				"size":   {DataType: aws.String("Number"), StringValue: aws.String(fmt.Sprint(size))},
			}
			publish(t, c, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(msg), MessageAttributes: attrs})
		}
		send(`{"kind":"alert-flood","n":1}`, "blue", 5)
		send(`{"kind":"info","n":2}`, "red", 50)
		send(`{"kind":"alert-fire","n":3}`, "green", 20)

		bodies := func(url string, want int) []string {
			var out []string
			for _, m := range receiveN(t, q, url, want, 15*time.Second, 60) {
				out = append(out, aws.ToString(m.Body))
			}
			if extra := receiveN(t, q, url, 1, 2*time.Second, 60); len(extra) > 0 {
				out = append(out, aws.ToString(extra[0].Body))
			}
			return out
		}
		if got := bodies(blue, 1); len(got) != 1 || !strings.Contains(got[0], `"n":1`) {
			t.Errorf("colour=blue queue got %v, want message 1 only", got)
		}
		if got := bodies(big, 1); len(got) != 1 || !strings.Contains(got[0], `"n":3`) {
			t.Errorf("size>10 and not red queue got %v, want message 3 only", got)
		}
		if got := bodies(body, 2); len(got) != 2 || strings.Contains(strings.Join(got, ""), `"n":2`) {
			t.Errorf("body kind prefix alert- queue got %v, want messages 1 and 3", got)
		}
	})
}

func TestSNSRetriesThenDeadLetterQueue(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c, q := snsClient(s), sqsClient(s)
		topic := newTopic(t, c, nil)
		fast := `{"healthyRetryPolicy":{"numRetries":3,"numNoDelayRetries":0,"minDelayTarget":1,"maxDelayTarget":1,"numMinDelayRetries":3,"numMaxDelayRetries":0,"backoffFunction":"linear"}}`

		// Fails twice, then accepts: retries deliver it.
		flaky := newSNSEndpoint(t, 2)
		subscribe(t, c, topic, "http", flaky.URL(), map[string]string{"DeliveryPolicy": fast})
		waitConfirmed(t, c, topic, flaky.URL())

		// Always fails: after its retries the message goes to its dead-letter queue.
		dlq := newQueue(t, q, "", nil)
		dead := newSNSEndpoint(t, 1<<30)
		subscribe(t, c, topic, "http", dead.URL(), map[string]string{"DeliveryPolicy": fast,
			"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q}`, queueArn(t, q, dlq))})
		waitConfirmed(t, c, topic, dead.URL())

		id := publish(t, c, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("persist")})
		flaky.waitFor(1, 30*time.Second)
		if got := flaky.notifications(); got[0].MessageID != id {
			t.Errorf("flaky endpoint got %+v", got)
		}
		moved := receiveN(t, q, dlq, 1, 30*time.Second, 30)
		if len(moved) != 1 || !strings.Contains(aws.ToString(moved[0].Body), id) {
			t.Fatalf("the dead-letter queue got %v after the endpoint failed", moved)
		}
		dead.mu.Lock()
		tries := dead.failed
		dead.mu.Unlock()
		if tries != 4 {
			t.Errorf("the failing endpoint was tried %d times, want 1 + 3 retries", tries)
		}
	})
}

// TestSNSFanOutSurvivesAKill publishes to a topic with 1,000 queue
// subscribers and kills Herald with SIGKILL at once: after a restart every
// queue still gets the message.
func TestSNSFanOutSurvivesAKill(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	c, q := snsClient(s), sqsClient(s)
	topic := newTopic(t, c, nil)
	var urls []string
	for range 1000 {
		u := newQueue(t, q, "", nil)
		urls = append(urls, u)
		subscribe(t, c, topic, "sqs", queueArn(t, q, u), map[string]string{"RawMessageDelivery": "true"})
	}
	publish(t, c, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("everyone")})
	s.kill(t)

	s2 := startServer(t, dir)
	q2 := sqsClient(s2)
	deadline := time.Now().Add(60 * time.Second)
	for i, u := range urls {
		for {
			out, err := q2.ReceiveMessage(ctxFor(t, 30*time.Second), &sqs.ReceiveMessageInput{QueueUrl: aws.String(u), WaitTimeSeconds: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Messages) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("queue %d of 1000 never got the message after the kill", i)
			}
		}
	}
}
