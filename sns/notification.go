package sns

import "time"

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
}
