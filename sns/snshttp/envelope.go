package snshttp

import (
	"encoding/base64"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/internal/jsonenc"
	"github.com/heraldmq/herald/sns"
)

// Message types of the envelopes and of the x-amz-sns-message-type header.
const (
	TypeNotification             = "Notification"
	TypeSubscriptionConfirmation = "SubscriptionConfirmation"
	TypeUnsubscribeConfirmation  = "UnsubscribeConfirmation"
)

// TimestampLayout is how envelopes write times: ISO-8601 in UTC with
// milliseconds, e.g. 2026-11-30T08:00:00.000Z.
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// FormatTimestamp writes t in TimestampLayout.
func FormatTimestamp(t time.Time) string { return t.UTC().Format(TimestampLayout) }

// SubscribeURL is the link of a confirmation message: a GET on it confirms
// the subscription (ConfirmSubscription in the Query protocol). publicURL
// is Herald's base URL as endpoints reach it (a trailing / is ignored).
func SubscribeURL(publicURL, topicARN, token string) string {
	return sns.SubscribeLink(publicURL, topicARN, token)
}

// UnsubscribeURL is the link of a notification that unsubscribes the
// endpoint (the ARN unencoded, as AWS writes it).
func UnsubscribeURL(publicURL, subscriptionARN string) string {
	return sns.UnsubscribeLink(publicURL, subscriptionARN)
}

// Confirmation is the content of a SubscriptionConfirmation or
// UnsubscribeConfirmation envelope.
type Confirmation struct {
	TopicARN        string
	SubscriptionARN string // for the standard text of an UnsubscribeConfirmation
	Token           string
	SubscribeURL    string
	Message         string    // "" for Herald's standard text
	MessageID       string    // "" for a new UUID
	Timestamp       time.Time // zero for now
}

// Encoder writes signed envelopes. It is safe for concurrent use; the SQS
// delivery of enveloped (non-raw) notifications can use it too.
type Encoder struct {
	Signer *Signer
	// CertPath is where Herald serves the certificate under a public URL:
	// SigningCertURL = publicURL + CertPath. Default DefaultCertPath.
	CertPath string
}

// DefaultCertPath is the path of the signing certificate, named like AWS's.
const DefaultCertPath = "/SimpleNotificationService-herald.pem"

// SigningCertURL is the certificate's URL under publicURL.
func (e *Encoder) SigningCertURL(publicURL string) string {
	p := e.CertPath
	if p == "" {
		p = DefaultCertPath
	}
	return strings.TrimSuffix(publicURL, "/") + p
}

// Notification returns the JSON envelope of n for the subscription, signed
// with signature version "1" or "2" ("" means "1"); its UnsubscribeURL and
// SigningCertURL are under publicURL. A FIFO topic's envelope carries its
// SequenceNumber (after MessageId) and, as AWS's, no SignatureVersion,
// Signature or SigningCertURL: it is not signed.
func (e *Encoder) Notification(n *sns.Notification, subscriptionARN, version, publicURL string) ([]byte, error) {
	fifo := n.FromFIFOTopic()
	version = normVersion(version)
	ts := FormatTimestamp(n.Timestamp)
	var sig string
	if !fifo {
		var err error
		if sig, err = e.Signer.signCached(version, notificationStringToSign(n, ts)); err != nil {
			return nil, err
		}
	}
	b := make([]byte, 0, 512+len(n.Message)+len(n.Subject))
	b = append(b, "{\n"...)
	b = field(b, "Type", TypeNotification)
	b = field(b, "MessageId", n.MessageID)
	if fifo {
		b = field(b, "SequenceNumber", n.SequenceNumber)
	}
	b = field(b, "TopicArn", n.TopicARN)
	if n.Subject != "" {
		b = field(b, "Subject", n.Subject)
	}
	b = field(b, "Message", n.Message)
	b = field(b, "Timestamp", ts)
	if !fifo {
		b = field(b, "SignatureVersion", version)
		b = field(b, "Signature", sig)
		b = field(b, "SigningCertURL", e.SigningCertURL(publicURL))
	}
	if len(n.MessageAttributes) == 0 {
		b = lastField(b, "UnsubscribeURL", UnsubscribeURL(publicURL, subscriptionARN))
	} else {
		b = field(b, "UnsubscribeURL", UnsubscribeURL(publicURL, subscriptionARN))
		b = appendAttributes(b, n.MessageAttributes)
	}
	return append(b, '}'), nil
}

// Confirmation returns the JSON envelope of a SubscriptionConfirmation or
// UnsubscribeConfirmation (typ), with c's defaults filled in, and the
// MessageId it carries.
func (e *Encoder) Confirmation(typ string, c Confirmation, version, publicURL string) ([]byte, string, error) {
	version = normVersion(version)
	if c.MessageID == "" {
		c.MessageID = uuid.NewString()
	}
	if c.Timestamp.IsZero() {
		c.Timestamp = time.Now()
	}
	if c.Message == "" {
		c.Message = confirmationText(typ, c.TopicARN, c.SubscriptionARN)
	}
	ts := FormatTimestamp(c.Timestamp)
	sig, err := e.Signer.signCached(version, confirmationStringToSign(typ, &c, ts))
	if err != nil {
		return nil, "", err
	}
	b := make([]byte, 0, 768)
	b = append(b, "{\n"...)
	b = field(b, "Type", typ)
	b = field(b, "MessageId", c.MessageID)
	b = field(b, "Token", c.Token)
	b = field(b, "TopicArn", c.TopicARN)
	b = field(b, "Message", c.Message)
	b = field(b, "SubscribeURL", c.SubscribeURL)
	b = field(b, "Timestamp", ts)
	b = field(b, "SignatureVersion", version)
	b = field(b, "Signature", sig)
	b = lastField(b, "SigningCertURL", e.SigningCertURL(publicURL))
	return append(b, '}'), c.MessageID, nil
}

// confirmationText is Herald's standard Message of a confirmation.
func confirmationText(typ, topicARN, subscriptionARN string) string {
	if typ == TypeUnsubscribeConfirmation {
		return "The subscription " + subscriptionARN + " has been deactivated.\n" +
			"To subscribe again, visit the SubscribeURL in this message."
	}
	return "A subscription of this endpoint to the topic " + topicARN + " was requested.\n" +
		"To confirm it, visit the SubscribeURL in this message."
}

func normVersion(v string) string {
	if v == "" {
		return "1"
	}
	return v
}

func field(b []byte, key, value string) []byte {
	b = append(b, "  \""...)
	b = append(b, key...)
	b = append(b, "\" : "...)
	b = appendJSONString(b, value)
	return append(b, ",\n"...)
}

func lastField(b []byte, key, value string) []byte {
	b = append(b, "  \""...)
	b = append(b, key...)
	b = append(b, "\" : "...)
	b = appendJSONString(b, value)
	return append(b, '\n')
}

// appendAttributes writes MessageAttributes as AWS renders them in
// envelopes: {"name" : {"Type":"String","Value":"..."}}, binary values in
// base64, names in byte order.
func appendAttributes(b []byte, attrs map[string]sns.MessageAttributeValue) []byte {
	names := make([]string, 0, len(attrs))
	for k := range attrs {
		names = append(names, k)
	}
	slices.Sort(names)
	b = append(b, "  \"MessageAttributes\" : {\n"...)
	for i, k := range names {
		v := attrs[k]
		b = append(b, "    "...)
		b = appendJSONString(b, k)
		b = append(b, ` : {"Type":`...)
		b = appendJSONString(b, v.DataType)
		b = append(b, `,"Value":`...)
		if len(v.DataType) >= 6 && v.DataType[:6] == "Binary" {
			b = appendJSONString(b, base64.StdEncoding.EncodeToString(v.BinaryValue))
		} else {
			b = appendJSONString(b, v.StringValue)
		}
		b = append(b, '}')
		if i < len(names)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	return append(b, "  }\n"...)
}

// appendJSONString writes s as a JSON string (jsonenc, which does not
// escape <, > and &, as AWS does not). A run of invalid UTF-8 bytes
// becomes one U+FFFD, as strings.ToValidUTF8 makes it for the string to
// sign, so that the envelope reads back as what was signed.
func appendJSONString(b []byte, s string) []byte {
	return jsonenc.AppendString(b, strings.ToValidUTF8(s, "\uFFFD"))
}
