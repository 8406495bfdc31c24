package api

import "time"

// The documents of the admin API (docs/http-api.md, "Admin API and the
// console"), which the console at "/", the CLI's queues, topics and peek,
// and scripts read.

// AdminQueue is one queue as GET /v1/admin/queues shows it.
type AdminQueue struct {
	Name             string `json:"name"`
	URL              string `json:"url"`
	ARN              string `json:"arn"`
	FIFO             bool   `json:"fifo"`
	Visible          int64  `json:"visible"`
	InFlight         int64  `json:"in_flight"`
	Delayed          int64  `json:"delayed"`
	DeadLetterTarget string `json:"dead_letter_target,omitempty"`
	// OldestAgeSeconds is the age of the oldest stored message (0: none).
	OldestAgeSeconds float64 `json:"oldest_age_seconds"`
	// Sent, Received and Deleted are the answering node's counts since it
	// started; the console turns them into rates.
	Sent       int64             `json:"sent"`
	Received   int64             `json:"received"`
	Deleted    int64             `json:"deleted"`
	Attributes map[string]string `json:"attributes"`
}

// AdminQueues is GET /v1/admin/queues: the first 200 queues by name.
type AdminQueues struct {
	Queues    []AdminQueue `json:"queues"`
	Truncated bool         `json:"truncated"`
	// Next names the page after this one (the `next` parameter) when
	// Truncated.
	Next string `json:"next,omitempty"`
}

// AdminSubscription is one subscription of a topic. SubscriptionARN is
// "PendingConfirmation" until it is confirmed; then Attributes and
// Deliveries are given.
type AdminSubscription struct {
	SubscriptionARN string
	Owner           string
	Protocol        string
	Endpoint        string
	TopicARN        string
	Attributes      map[string]string `json:",omitempty"`
	Deliveries      *Deliveries       `json:",omitempty"`
}

// Pending reports whether the subscription waits for its confirmation.
func (s AdminSubscription) Pending() bool { return s.SubscriptionARN == "PendingConfirmation" }

// Deliveries are a subscription's delivery counts on the answering node
// since it started.
type Deliveries struct {
	Delivered, Retried, Failed int64
}

// AdminTopic is one topic as GET /v1/admin/topics shows it.
type AdminTopic struct {
	ARN           string              `json:"arn"`
	Name          string              `json:"name"`
	Attributes    map[string]string   `json:"attributes"`
	Subscriptions []AdminSubscription `json:"subscriptions"`
}

// AdminTopics is GET /v1/admin/topics: the first 100 topics, with up to
// 100 subscriptions each.
type AdminTopics struct {
	Topics    []AdminTopic `json:"topics"`
	Truncated bool         `json:"truncated"`
}

// PeekedMessage is a queue's message as a peek shows it. Body is the text
// when BodyEncoding is "text", else base64 ("base64").
type PeekedMessage struct {
	MessageID    string    `json:"message_id"`
	Body         string    `json:"body"`
	BodyEncoding string    `json:"body_encoding"`
	SentAt       time.Time `json:"sent"`
	ReceiveCount int       `json:"receive_count"`
	VisibleAt    time.Time `json:"visible_at"`
	GroupID      string    `json:"group,omitempty"`
}

// Peek is GET /v1/admin/queues/{name}/peek.
type Peek struct {
	Messages []PeekedMessage `json:"messages"`
}

// Reindex is the answer of POST /v1/admin/sqs/reindex: the new index epoch
// of the answering node's data center. Within a few seconds every node of
// that data center rebuilds each queue's Index (Redis) state from the
// Store on the queue's next use.
type Reindex struct {
	Epoch uint64 `json:"epoch"`
}

// DataCenters is the answer of GET /v1/admin/dc and of its fence and
// unfence: the answering node's data center, the home of queues created
// before queues had one, and each fenced data center with the one that
// fenced it (and now serves its queues).
type DataCenters struct {
	Local      string            `json:"local"`
	LegacyHome string            `json:"legacy_home"`
	Fenced     map[string]string `json:"fenced"`
}

// DataCenter is the body of POST /v1/admin/dc/fence and /v1/admin/dc/unfence.
type DataCenter struct {
	DC string `json:"dc"`
}
