package sns

import (
	"time"

	"github.com/google/uuid"
)

// Topic is a topic's durable record. ID is fixed at creation and never
// reused, so a topic deleted and created again under the same name starts
// without the old subscriptions.
type Topic struct {
	ID      uuid.UUID
	Account string
	// Region is "" for the home region, else the region (region.go);
	// engines neither store nor read it.
	Region     string
	Name       string
	Attributes map[string]string // settable attributes as AWS names them (DisplayName, Policy, DeliveryPolicy, FifoTopic, ...)
	Tags       map[string]string
	CreatedAt  time.Time
}

// Subscription is one subscription of a topic. ID is the last part of its
// ARN (arn:aws:sns:<region>:<account>:<topic>:<id>).
type Subscription struct {
	ID           uuid.UUID
	TopicID      uuid.UUID
	TopicAccount string
	TopicRegion  string // "" for the home region; engines neither store nor read it
	TopicName    string
	Owner        string            // account that subscribed
	Protocol     string            // "http", "https", "sqs", "path", "rollup", "email", "email-json", "sms"
	Endpoint     string            // URL, queue ARN, cache path, email address or phone number
	Attributes   map[string]string // RawMessageDelivery, FilterPolicy, FilterPolicyScope, DeliveryPolicy, RedrivePolicy, ...
	// Pending is true until an http/https subscription is confirmed; Token
	// is the confirmation token sent to the endpoint.
	Pending   bool
	Token     string
	CreatedAt time.Time
}

// Protocols Herald delivers to.
const (
	ProtocolHTTP  = "http"
	ProtocolHTTPS = "https"
	ProtocolSQS   = "sqs"
	ProtocolPath  = "path" // Herald's own: store the notification in the message cache at a path
	// ProtocolRollup is Herald's own: count the events of the message in a
	// rollup of the subscriber's account (docs/rollups.md). Its endpoint is
	// "ACCOUNT/NAME"; Subscribe accepts the rollup's name alone.
	ProtocolRollup = "rollup"
	// ProtocolEmail and ProtocolEmailJSON mail notifications over SMTP
	// (Config.Mail): the message as text, or its JSON envelope.
	ProtocolEmail     = "email"
	ProtocolEmailJSON = "email-json"
	// ProtocolSMS sends notifications to a phone number through the SMS
	// webhook (Config.SMS).
	ProtocolSMS = "sms"
)
