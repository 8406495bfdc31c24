package sns

import (
	"strings"
	"time"
)

// Notification is one published message as delivered to one subscription:
// Message is already the text for that subscription's protocol (with
// MessageStructure=json, the protocol's entry or "default").
type Notification struct {
	MessageID              string
	TopicARN               string
	Subject                string
	Message                string
	Timestamp              time.Time // when Publish was accepted, millisecond precision
	MessageAttributes      map[string]MessageAttributeValue
	MessageGroupID         string // FIFO topics
	MessageDeduplicationID string // FIFO topics
	SequenceNumber         string // FIFO topics
	// TraceHeader is the publish request's X-Amzn-Trace-Id, which an SQS
	// delivery passes on as the message's AWSTraceHeader, as AWS does.
	// Envelopes do not carry it.
	TraceHeader string
}

// FromFIFOTopic reports whether n was published to a FIFO topic. Its JSON
// envelope then carries SequenceNumber and, as AWS's do, no signature
// (Signature, SignatureVersion and SigningCertURL are left out).
func (n *Notification) FromFIFOTopic() bool { return strings.HasSuffix(n.TopicARN, FIFOSuffix) }
