package sns_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
)

func TestDefaultEnvelope(t *testing.T) {
	target := sns.Target{SubscriptionARN: "arn:aws:sns:us-east-1:1:t:5f0c1a2b-0000-4000-8000-000000000000", Scheme: "https", Host: "herald:4566"}
	n := sns.Notification{MessageID: "m-1", TopicARN: "arn:aws:sns:us-east-1:1:t", Message: "hi\n\"there\"",
		Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC),
		MessageAttributes: map[string]sns.MessageAttributeValue{
			"s": {DataType: "String", StringValue: "v"}, "b": {DataType: "Binary", BinaryValue: []byte("hi")}}}
	body, err := sns.DefaultEnvelope(target, n)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Type, MessageId, TopicArn, Message, Timestamp, SignatureVersion, UnsubscribeURL string
		Subject                                                                         *string
		MessageAttributes                                                               map[string]struct{ Type, Value string }
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Type != "Notification" || doc.MessageId != "m-1" || doc.Message != n.Message || doc.Subject != nil ||
		doc.Timestamp != "2026-01-02T03:04:05.006Z" || doc.SignatureVersion != "1" ||
		doc.UnsubscribeURL != "https://herald:4566/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:1:t:5f0c1a2b-0000-4000-8000-000000000000" ||
		doc.MessageAttributes["b"].Value != "aGk=" || doc.MessageAttributes["s"].Type != "String" {
		t.Fatalf("envelope = %s", body)
	}
}

func TestPathMetadata(t *testing.T) {
	b, err := sns.PathMetadata("alerts.box1", sns.Notification{MessageID: "m", TopicARN: "arn:aws:sns:us-east-1:1:t", Subject: "S"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"paths":["alerts.box1"],"sns":{"message_id":"m","subject":"S","topic_arn":"arn:aws:sns:us-east-1:1:t"}}`
	if string(b) != want {
		t.Fatalf("metadata = %s", b)
	}
}

// TestDefaultEnvelopeMembers checks which members an unsigned envelope
// has: a FIFO topic's carries SequenceNumber and no signature members.
func TestDefaultEnvelopeMembers(t *testing.T) {
	tests := []struct {
		name, topic string
		want        []string
	}{
		{"standard", "arn:aws:sns:us-east-1:1:t",
			[]string{"Type", "MessageId", "TopicArn", "Message", "Timestamp", "SignatureVersion", "Signature", "SigningCertURL", "UnsubscribeURL"}},
		{"fifo", "arn:aws:sns:us-east-1:1:t.fifo",
			[]string{"Type", "MessageId", "SequenceNumber", "TopicArn", "Message", "Timestamp", "UnsubscribeURL"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := sns.Notification{MessageID: "m", TopicARN: tc.topic, Message: "hi", Timestamp: time.Unix(0, 0)}
			if strings.HasSuffix(tc.topic, ".fifo") {
				n.SequenceNumber = "10000000000000000001"
			}
			body, err := sns.DefaultEnvelope(sns.Target{SubscriptionARN: tc.topic + ":5f0c1a2b-0000-4000-8000-000000000000", Host: "h"}, n)
			if err != nil {
				t.Fatal(err)
			}
			if got := jsonKeys(t, body); !slices.Equal(got, tc.want) {
				t.Fatalf("members %v, want %v", got, tc.want)
			}
		})
	}
}

// jsonKeys lists the members of a JSON object in document order.
func jsonKeys(t *testing.T, doc string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
