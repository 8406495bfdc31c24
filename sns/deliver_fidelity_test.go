package sns_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

// receiveAll receives (and deletes) what is now in a subscriber queue,
// with its MessageGroupId system attribute.
func (e *env) receiveAll(t *testing.T, name string) []sqs.ReceivedMessage {
	t.Helper()
	c := sqs.Caller{Account: account}
	url := "/" + account + "/" + name
	var all []sqs.ReceivedMessage
	for {
		n, wait := 10, 0
		out, err := e.queues.ReceiveMessage(e.ctx, c, sqs.ReceiveMessageInput{QueueURL: url, MaxNumberOfMessages: &n, WaitTimeSeconds: &wait,
			MessageSystemAttributeNames: []string{sqs.SysAttrMessageGroupID}})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			return all
		}
		for _, m := range out.Messages {
			if err := e.queues.DeleteMessage(e.ctx, c, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
		all = append(all, out.Messages...)
	}
}

// TestStandardTopicPassesMessageGroupIDToQueues: a standard topic's
// MessageGroupId reaches its standard queues, raw or enveloped, as the
// message's MessageGroupId; a message without one has none.
func TestStandardTopicPassesMessageGroupIDToQueues(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "tenants", nil)
	e.subscribe(t, topic, "sqs", e.createQueue(t, "raw", nil), map[string]string{"RawMessageDelivery": "true"})
	e.subscribe(t, topic, "sqs", e.createQueue(t, "enveloped", nil), nil)
	run(t, e.svc)
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "grouped", MessageGroupID: "tenant-7"})
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "plain"})
	for _, q := range []string{"raw", "enveloped"} {
		var got []sqs.ReceivedMessage
		eventually(t, 5*time.Second, "two deliveries to "+q, func() bool { got = append(got, e.receiveAll(t, q)...); return len(got) >= 2 })
		groups := map[string]string{}
		for _, m := range got {
			body := m.Body
			if q == "enveloped" {
				var env struct{ Message string }
				if err := json.Unmarshal([]byte(m.Body), &env); err != nil {
					t.Fatal(err)
				}
				body = env.Message
			}
			groups[body] = m.Attributes[sqs.SysAttrMessageGroupID]
		}
		if len(got) != 2 || groups["grouped"] != "tenant-7" || groups["plain"] != "" {
			t.Fatalf("%s: MessageGroupId by message %v (%d messages)", q, groups, len(got))
		}
	}
}

// TestFIFOTopicEnvelopeInQueue: an enveloped delivery of a FIFO topic
// carries the publish's SequenceNumber and no signature members.
func TestFIFOTopicEnvelopeInQueue(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "orders.fifo", map[string]string{"FifoTopic": "true"})
	e.subscribe(t, topic, "sqs", e.createQueue(t, "orders.fifo", map[string]string{"FifoQueue": "true"}), nil)
	run(t, e.svc)
	out := e.publish(t, sns.PublishInput{TopicARN: topic, Message: "m", MessageGroupID: "g", MessageDeduplicationID: "d"})
	var got []sqs.ReceivedMessage
	eventually(t, 5*time.Second, "the delivery", func() bool { got = append(got, e.receiveAll(t, "orders.fifo")...); return len(got) > 0 })
	var env map[string]any
	if err := json.Unmarshal([]byte(got[0].Body), &env); err != nil {
		t.Fatal(err)
	}
	if env["SequenceNumber"] != out.SequenceNumber || env["MessageId"] != out.MessageID || out.SequenceNumber == "" {
		t.Fatalf("envelope %v, publish answered %+v", env, out)
	}
	for _, k := range []string{"Signature", "SignatureVersion", "SigningCertURL"} {
		if _, ok := env[k]; ok {
			t.Errorf("a FIFO topic's envelope has %s: %v", k, env)
		}
	}
	if got[0].Attributes[sqs.SysAttrMessageGroupID] != "g" {
		t.Errorf("MessageGroupId %q, want g", got[0].Attributes[sqs.SysAttrMessageGroupID])
	}
}

// TestTraceHeaderPassesToQueues: as AWS does, a publish's X-Amzn-Trace-Id
// reaches the subscribed queue as the message's AWSTraceHeader.
func TestTraceHeaderPassesToQueues(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc)
	topic := e.createTopic(t, "traced", nil)
	e.subscribe(t, topic, "sqs", e.createQueue(t, "traced-q", nil), nil)
	c := caller
	c.TraceHeader = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"
	_, err := e.svc.Publish(e.ctx, c, sns.PublishInput{TopicARN: topic, Message: "m"})
	wantCode(t, err, "")
	var got []sqs.ReceivedMessage
	eventually(t, 10*time.Second, "the delivery", func() bool {
		n, wait := 10, 0
		out, err := e.queues.ReceiveMessage(e.ctx, sqs.Caller{Account: account}, sqs.ReceiveMessageInput{QueueURL: "/" + account + "/traced-q",
			MaxNumberOfMessages: &n, WaitTimeSeconds: &wait, MessageSystemAttributeNames: []string{"AWSTraceHeader"}})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, out.Messages...)
		return len(got) > 0
	})
	if v := got[0].Attributes["AWSTraceHeader"]; v != c.TraceHeader {
		t.Fatalf("AWSTraceHeader %q, want %q", v, c.TraceHeader)
	}
}
