package sns

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"time"
)

// envelopeAttr is a message attribute as the JSON envelope shows it.
type envelopeAttr struct {
	Type  string `json:"Type"`
	Value string `json:"Value"`
}

// envelope is the JSON document of a notification or confirmation, with
// AWS's keys in AWS's order.
type envelope struct {
	Type              string                  `json:"Type"`
	MessageID         string                  `json:"MessageId"`
	Token             string                  `json:"Token,omitempty"`
	SequenceNumber    string                  `json:"SequenceNumber,omitempty"`
	TopicARN          string                  `json:"TopicArn"`
	Subject           string                  `json:"Subject,omitempty"`
	Message           string                  `json:"Message"`
	SubscribeURL      string                  `json:"SubscribeURL,omitempty"`
	Timestamp         string                  `json:"Timestamp"`
	SignatureVersion  *string                 `json:"SignatureVersion,omitempty"` // nil for FIFO topics
	Signature         *string                 `json:"Signature,omitempty"`
	SigningCertURL    *string                 `json:"SigningCertURL,omitempty"`
	UnsubscribeURL    string                  `json:"UnsubscribeURL,omitempty"`
	MessageAttributes map[string]envelopeAttr `json:"MessageAttributes,omitempty"`
}

// awsTimestamp formats t as AWS does in envelopes (UTC, milliseconds).
func awsTimestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// baseURL is <scheme>://<host>/ of the publisher's endpoint.
func baseURL(scheme, host string) string {
	if scheme == "" {
		scheme = "http"
	}
	return scheme + "://" + host + "/"
}

// UnsubscribeURL is the URL whose GET unsubscribes t.
func UnsubscribeURL(t Target) string { return UnsubscribeLink(t.PublicURL(), t.SubscriptionARN) }

// SubscribeURL is the URL whose GET confirms a subscription.
func SubscribeURL(scheme, host, topicARN, token string) string {
	return SubscribeLink(baseURL(scheme, host), topicARN, token)
}

// UnsubscribeLink is the UnsubscribeURL of a subscription under publicURL
// (Herald's base URL as endpoints reach it; a trailing / is ignored).
// Like AWS it writes the ARN's colons as they are:
// ?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:1:t:<id>.
func UnsubscribeLink(publicURL, subscriptionARN string) string {
	return strings.TrimSuffix(publicURL, "/") + "/?Action=Unsubscribe&SubscriptionArn=" + queryARN(subscriptionARN)
}

// SubscribeLink is the SubscribeURL of a confirmation under publicURL,
// the topic ARN written as AWS writes it (see UnsubscribeLink).
func SubscribeLink(publicURL, topicARN, token string) string {
	return strings.TrimSuffix(publicURL, "/") + "/?Action=ConfirmSubscription&TopicArn=" + queryARN(topicARN) +
		"&Token=" + url.QueryEscape(token)
}

// queryARN escapes arn for a query string except for its colons, which a
// query value may hold unescaped and AWS's links leave as they are.
func queryARN(arn string) string { return strings.ReplaceAll(url.QueryEscape(arn), "%3A", ":") }

// signingCertURL is where an unsigned default envelope points; a signing
// Enveloper (snshttp) replaces the whole envelope.
func signingCertURL(t Target) string {
	return baseURL(t.Scheme, t.Host) + "SimpleNotificationService-herald.pem"
}

func envelopeAttrs(attrs map[string]MessageAttributeValue) map[string]envelopeAttr {
	if len(attrs) == 0 {
		return nil
	}
	out := make(map[string]envelopeAttr, len(attrs))
	for k, v := range attrs {
		val := v.StringValue
		if strings.HasPrefix(v.DataType, "Binary") {
			val = base64.StdEncoding.EncodeToString(v.BinaryValue)
		}
		out[k] = envelopeAttr{Type: v.DataType, Value: val}
	}
	return out
}

func sigVersion(t Target) string {
	if t.SignatureVersion == "" {
		return "1"
	}
	return t.SignatureVersion
}

// unsigned are the signature members of an envelope that is not signed:
// the version and certificate URL with an empty Signature.
func unsigned(t Target) (version, signature, certURL *string) {
	v, sig, cert := sigVersion(t), "", signingCertURL(t)
	return &v, &sig, &cert
}

// DefaultEnvelope builds the JSON envelope of n for t without a signature
// (Signature is empty; a FIFO topic's envelope has no signature members,
// as on AWS). Configure Config.Envelope with a signing one.
func DefaultEnvelope(t Target, n Notification) (string, error) {
	env := envelope{
		Type:              "Notification",
		MessageID:         n.MessageID,
		TopicARN:          n.TopicARN,
		Subject:           n.Subject,
		Message:           n.Message,
		Timestamp:         awsTimestamp(n.Timestamp),
		UnsubscribeURL:    UnsubscribeURL(t),
		MessageAttributes: envelopeAttrs(n.MessageAttributes),
	}
	if n.FromFIFOTopic() {
		env.SequenceNumber = n.SequenceNumber
	} else {
		env.SignatureVersion, env.Signature, env.SigningCertURL = unsigned(t)
	}
	b, err := json.Marshal(env)
	return string(b), err
}

// confirmationEnvelope is the SubscriptionConfirmation document sent to a
// queue of another account.
func confirmationEnvelope(t Target, c Confirmation) (string, error) {
	env := envelope{
		Type:         "SubscriptionConfirmation",
		MessageID:    c.MessageID,
		Token:        c.Token,
		TopicARN:     c.TopicARN,
		Message:      c.Message,
		SubscribeURL: c.SubscribeURL,
		Timestamp:    awsTimestamp(c.Timestamp),
	}
	env.SignatureVersion, env.Signature, env.SigningCertURL = unsigned(t)
	b, err := json.Marshal(env)
	return string(b), err
}

// PathMetadata is the metadata Herald stores with a notification delivered
// to a cache path: {"paths":[path],"sns":{topic_arn,message_id,subject,attributes}}.
func PathMetadata(path string, n Notification) ([]byte, error) {
	snsMeta := map[string]any{"topic_arn": n.TopicARN, "message_id": n.MessageID}
	if n.Subject != "" {
		snsMeta["subject"] = n.Subject
	}
	if a := envelopeAttrs(n.MessageAttributes); a != nil {
		snsMeta["attributes"] = a
	}
	return json.Marshal(map[string]any{"paths": []string{path}, "sns": snsMeta})
}
