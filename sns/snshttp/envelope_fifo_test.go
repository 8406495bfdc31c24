package snshttp

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
)

// TestFIFONotificationEnvelope checks a FIFO topic's envelope member by
// member, in AWS's order: SequenceNumber after MessageId, no signature
// members, the subscription ARN unencoded in UnsubscribeURL.
func TestFIFONotificationEnvelope(t *testing.T) {
	const topic = "arn:aws:sns:us-east-1:000000000000:orders.fifo"
	const sub = topic + ":5f3a63a6-30bb-4a4b-8e0e-0a5f1c1f7a11"
	tests := []struct {
		name  string
		attrs map[string]sns.MessageAttributeValue
		want  string
	}{
		{"without attributes", nil, `{
  "Type" : "Notification",
  "MessageId" : "m-1",
  "SequenceNumber" : "10000000000000000017",
  "TopicArn" : "` + topic + `",
  "Subject" : "s",
  "Message" : "hi",
  "Timestamp" : "2026-11-30T08:00:00.000Z",
  "UnsubscribeURL" : "https://herald.example.com/?Action=Unsubscribe&SubscriptionArn=` + sub + `"
}`},
		{"with attributes", map[string]sns.MessageAttributeValue{"k": {DataType: "String", StringValue: "v"}}, `{
  "Type" : "Notification",
  "MessageId" : "m-1",
  "SequenceNumber" : "10000000000000000017",
  "TopicArn" : "` + topic + `",
  "Subject" : "s",
  "Message" : "hi",
  "Timestamp" : "2026-11-30T08:00:00.000Z",
  "UnsubscribeURL" : "https://herald.example.com/?Action=Unsubscribe&SubscriptionArn=` + sub + `",
  "MessageAttributes" : {
    "k" : {"Type":"String","Value":"v"}
  }
}`},
	}
	enc := &Encoder{Signer: testSigner(t)}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := sns.Notification{MessageID: "m-1", TopicARN: topic, Subject: "s", Message: "hi", SequenceNumber: "10000000000000000017",
				MessageGroupID: "g", Timestamp: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), MessageAttributes: tc.attrs}
			b, err := enc.Notification(&n, sub, "2", "https://herald.example.com/")
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("envelope:\n%s\nwant:\n%s", b, tc.want)
			}
		})
	}
}

// TestStandardNotificationEnvelopeIsSigned checks that a standard topic's
// envelope keeps its signature members and no SequenceNumber.
func TestStandardNotificationEnvelopeIsSigned(t *testing.T) {
	enc := &Encoder{Signer: testSigner(t)}
	n := testNotification()
	n.SequenceNumber = "10000000000000000017" // never set for standard topics; ignored if it were
	b, err := enc.Notification(&n, testSub, "1", "https://herald.example.com")
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, b)
	for _, k := range []string{"SignatureVersion", "Signature", "SigningCertURL"} {
		if s, _ := m[k].(string); s == "" {
			t.Errorf("%s missing from %s", k, b)
		}
	}
	if _, ok := m["SequenceNumber"]; ok || strings.Contains(string(b), "%3A") {
		t.Errorf("standard envelope has a SequenceNumber or an encoded ARN:\n%s", b)
	}
	if err := Verify(b, enc.Signer.CertPEM()); err != nil {
		t.Fatal(err)
	}
}
