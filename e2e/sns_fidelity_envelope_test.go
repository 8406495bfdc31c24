package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// These tests hold Herald's notifications to AWS's (issue 15, item 10),
// through aws-sdk-go-v2 on both engines.

// TestSNSFidelityStandardEnvelope: a standard topic's envelope in a queue
// is signed, its UnsubscribeURL names the subscription ARN unencoded and
// works when followed; the publish's MessageGroupId reaches the queue;
// GetSubscriptionAttributes has SubscriptionPrincipal and reads a
// RawMessageDelivery given as "True".
func TestSNSFidelityStandardEnvelope(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c, q := snsClient(s), sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		topic := newTopic(t, c, nil)
		envURL, rawURL := newQueue(t, q, "", nil), newQueue(t, q, "", nil)
		sub := subscribe(t, c, topic, "sqs", queueArn(t, q, envURL), nil)
		rawSub := subscribe(t, c, topic, "sqs", queueArn(t, q, rawURL), map[string]string{"RawMessageDelivery": "True"})

		attrs, err := c.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: aws.String(rawSub)})
		if err != nil {
			t.Fatal(err)
		}
		account := strings.Split(topic, ":")[4]
		if attrs.Attributes["RawMessageDelivery"] != "true" || attrs.Attributes["SubscriptionPrincipal"] != "arn:aws:iam::"+account+":root" {
			t.Fatalf("subscription attributes %v", attrs.Attributes)
		}

		id := publish(t, c, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("for tenant 7"), MessageGroupId: aws.String("tenant-7")})
		raw := receiveN(t, q, rawURL, 1, 20*time.Second, 30)
		if len(raw) != 1 || aws.ToString(raw[0].Body) != "for tenant 7" || raw[0].Attributes["MessageGroupId"] != "tenant-7" {
			t.Fatalf("raw queue got %+v", raw)
		}
		env := receiveN(t, q, envURL, 1, 20*time.Second, 30)
		if len(env) != 1 || env[0].Attributes["MessageGroupId"] != "tenant-7" {
			t.Fatalf("enveloped queue got %+v", env)
		}
		body := aws.ToString(env[0].Body)
		var n map[string]string
		if err := json.Unmarshal([]byte(body), &n); err != nil {
			t.Fatalf("envelope %s: %v", body, err)
		}
		if n["MessageId"] != id || n["SignatureVersion"] != "1" || n["Signature"] == "" || n["SigningCertURL"] == "" {
			t.Fatalf("envelope %s", body)
		}
		if _, ok := n["SequenceNumber"]; ok {
			t.Fatalf("a standard topic's envelope has a SequenceNumber: %s", body)
		}
		if !strings.HasSuffix(n["UnsubscribeURL"], "/?Action=Unsubscribe&SubscriptionArn="+sub) {
			t.Fatalf("UnsubscribeURL %q, want the subscription ARN %s as it is", n["UnsubscribeURL"], sub)
		}
		if err := verifySNS([]byte(body), n["SigningCertURL"]); err != nil {
			t.Fatalf("the envelope does not verify: %v", err)
		}

		// Following the UnsubscribeURL, as a person would, unsubscribes.
		resp, err := http.Get(n["UnsubscribeURL"])
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET UnsubscribeURL: %s", resp.Status)
		}
		_, err = c.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: aws.String(sub)})
		wantAPIError(t, "GetSubscriptionAttributes after following the UnsubscribeURL", err, "NotFound")
	})
}

// TestSNSFidelityFIFOEnvelope: a FIFO topic's envelope carries the
// publish's SequenceNumber and no signature members.
func TestSNSFidelityFIFOEnvelope(t *testing.T) {
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "")
		c, q := snsClient(s), sqsClient(s)
		ctx := ctxFor(t, time.Minute)
		out, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("e2e-" + strings.ReplaceAll(t.Name(), "/", "-") + ".fifo"),
			Attributes: map[string]string{"FifoTopic": "TRUE", "ContentBasedDeduplication": "True"}})
		if err != nil {
			t.Fatal(err)
		}
		topic := aws.ToString(out.TopicArn)
		url := newQueue(t, q, ".fifo", map[string]string{"FifoQueue": "true"})
		subscribe(t, c, topic, "sqs", queueArn(t, q, url), nil)

		pub, err := c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("first"), MessageGroupId: aws.String("g")})
		if err != nil {
			t.Fatal(err)
		}
		got := receiveN(t, q, url, 1, 20*time.Second, 30)
		if len(got) != 1 {
			t.Fatal("the FIFO queue got nothing")
		}
		body := aws.ToString(got[0].Body)
		var n map[string]any
		if err := json.Unmarshal([]byte(body), &n); err != nil {
			t.Fatal(err)
		}
		if n["SequenceNumber"] != aws.ToString(pub.SequenceNumber) || n["MessageId"] != aws.ToString(pub.MessageId) || n["Message"] != "first" {
			t.Fatalf("envelope %s, Publish answered %s / %s", body, aws.ToString(pub.MessageId), aws.ToString(pub.SequenceNumber))
		}
		for _, k := range []string{"Signature", "SignatureVersion", "SigningCertURL"} {
			if _, ok := n[k]; ok {
				t.Errorf("a FIFO topic's envelope has %s: %s", k, body)
			}
		}
		if got[0].Attributes[string(sqstypes.MessageSystemAttributeNameMessageGroupId)] != "g" {
			t.Errorf("MessageGroupId %q", got[0].Attributes["MessageGroupId"])
		}
	})
}
