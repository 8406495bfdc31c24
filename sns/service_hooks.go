package sns

import (
	"context"
	"errors"
	"time"
)

// The Service's collaborators are small interfaces so that each comes from
// its own package (sns/filter, sns/snshttp, the message cache) and tests
// can use fakes.

// Matcher is a compiled filter policy.
type Matcher interface {
	// Match reports whether a message with these attributes and body
	// passes the policy.
	Match(attrs map[string]MessageAttributeValue, body string) bool
}

// FilterFunc compiles a filter policy for a scope (ScopeMessageAttributes
// or ScopeMessageBody); its error says why the policy is invalid.
type FilterFunc func(policy, scope string) (Matcher, error)

// RetryPolicy is the effective HTTP retry policy of a subscription.
type RetryPolicy interface {
	// Retries is how many times a failed delivery is retried.
	Retries() int
	// Delay is how long to wait before retry n (1-based).
	Delay(n int) time.Duration
}

// DeliveryPolicies validates DeliveryPolicy attributes and combines them.
type DeliveryPolicies interface {
	ValidateTopic(policy string) error
	ValidateSubscription(policy string) error
	// Effective combines a topic's DeliveryPolicy and a subscription's
	// (either may be "") into the policy its deliveries follow, and the
	// JSON shown as EffectiveDeliveryPolicy.
	Effective(topicPolicy, subscriptionPolicy string) (RetryPolicy, string, error)
}

// Target is one subscription as a deliverer sees it.
type Target struct {
	SubscriptionARN  string
	TopicARN         string
	Protocol         string
	Endpoint         string
	Raw              bool   // RawMessageDelivery
	SignatureVersion string // the topic's; "" means "1"
	// ContentType is the effective delivery policy's headerContentType
	// (http/https only; "" for the default).
	ContentType string
	// Scheme and Host are those the publisher (or subscriber) used;
	// SubscribeURL, UnsubscribeURL and SigningCertURL are built from them.
	Scheme, Host string
	// DisplayName is the topic's DisplayName: the sender's name of the
	// emails of email and email-json subscriptions.
	DisplayName string
}

// PublicURL is <scheme>://<host> of the request that led to this delivery.
func (t Target) PublicURL() string {
	scheme := t.Scheme
	if scheme == "" {
		scheme = "http"
	}
	return scheme + "://" + t.Host
}

// Confirmation is a SubscriptionConfirmation message.
type Confirmation struct {
	MessageID    string
	TopicARN     string
	Token        string
	SubscribeURL string
	Message      string
	Timestamp    time.Time
}

// HTTPDeliverer delivers to http and https endpoints: one attempt each
// call; the Service schedules retries.
type HTTPDeliverer interface {
	Deliver(ctx context.Context, t Target, n Notification) error
	SendConfirmation(ctx context.Context, t Target, c Confirmation) error
}

// PathPutter stores a notification in the message cache at path (the lead
// wires cache.Service.Put with PathMetadata as the metadata and the
// message as the body).
// RollupIngester counts the events of a notification's message in rollup
// name of account (rollup subscriptions). An error of code
// herald.EInvalid or ENotFound is permanent; others are retried.
type RollupIngester interface {
	IngestNotification(ctx context.Context, account, name, message string) error
}

type PathPutter interface {
	PutNotification(ctx context.Context, path string, n Notification) error
}

// Enveloper builds the JSON document AWS sends for a notification that is
// not raw, to SQS queues and dead-letter queues (the same as the body of an
// HTTP delivery, signature included).
type Enveloper func(t Target, n Notification) (string, error)

// Mail is one email to an email or email-json subscriber: the Service
// writes its subject and text body; a Mailer sends it from its configured
// address, under FromName (the topic's DisplayName, if any).
type Mail struct {
	To       string
	FromName string
	Subject  string
	Body     string
}

// Mailer sends mail (snsmail sends it over SMTP). One attempt per call; the
// Service schedules retries. An error wrapped with Permanent (a recipient
// the relay refuses for good) is not retried.
type Mailer interface {
	SendMail(ctx context.Context, m Mail) error
}

// SMS is one text message to a phone number, as Herald posts it to the SMS
// webhook (docs/sns.md describes the JSON document). TopicARN and
// SubscriptionARN are empty for a Publish to a PhoneNumber.
type SMS struct {
	MessageID         string `json:"messageId"`
	PhoneNumber       string `json:"phoneNumber"`
	Message           string `json:"message"`
	SenderID          string `json:"senderId,omitempty"`
	SMSType           string `json:"smsType"`
	MaxPrice          string `json:"maxPrice,omitempty"`
	OriginationNumber string `json:"originationNumber,omitempty"`
	Account           string `json:"accountId"`
	TopicARN          string `json:"topicArn,omitempty"`
	SubscriptionARN   string `json:"subscriptionArn,omitempty"`
	Timestamp         string `json:"timestamp"`
}

// SMSSender hands text messages to an SMS gateway (snssms posts them to a
// webhook). One attempt per call; the Service schedules retries, except
// after an error wrapped with Permanent. optedOut reports that the gateway
// answered that the recipient opted out: the Service then records the
// number as opted out of the account's messages.
type SMSSender interface {
	SendSMS(ctx context.Context, m SMS) (optedOut bool, err error)
}

// Permanent marks err as a failure that retrying cannot fix, for Mailer
// and SMSSender implementations.
func Permanent(err error) error { return permanentError{err} }

// IsPermanent reports whether err was marked with Permanent.
func IsPermanent(err error) bool {
	var pe permanentError
	return errors.As(err, &pe)
}
