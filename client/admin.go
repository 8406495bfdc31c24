package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The admin API (docs/http-api.md, "Admin API and the console"): the
// caller's queues and topics as the console shows them. Like every /v1/
// call it acts as the client's identity, so it sees that account only.

// Queue is one queue of the admin API's listing.
type Queue struct {
	Name             string            `json:"name"`
	URL              string            `json:"url"`
	ARN              string            `json:"arn"`
	FIFO             bool              `json:"fifo"`
	Visible          int64             `json:"visible"`
	InFlight         int64             `json:"in_flight"`
	Delayed          int64             `json:"delayed"`
	DeadLetterTarget string            `json:"dead_letter_target,omitempty"`
	Attributes       map[string]string `json:"attributes"`
}

// QueuesResponse is GET /v1/admin/queues: the first 200 queues by name.
type QueuesResponse struct {
	Queues    []Queue `json:"queues"`
	Truncated bool    `json:"truncated"`
}

// Subscription is one subscription of a topic. SubscriptionARN is
// "PendingConfirmation" until it is confirmed.
type Subscription struct {
	SubscriptionARN string
	Owner           string
	Protocol        string
	Endpoint        string
	TopicARN        string
}

// Pending reports whether the subscription waits for its confirmation.
func (s Subscription) Pending() bool { return s.SubscriptionARN == "PendingConfirmation" }

// Topic is one topic of the admin API's listing.
type Topic struct {
	ARN           string            `json:"arn"`
	Name          string            `json:"name"`
	Attributes    map[string]string `json:"attributes"`
	Subscriptions []Subscription    `json:"subscriptions"`
}

// TopicsResponse is GET /v1/admin/topics: the first 100 topics, with up to
// 100 subscriptions each.
type TopicsResponse struct {
	Topics    []Topic `json:"topics"`
	Truncated bool    `json:"truncated"`
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

// PeekResponse is GET /v1/admin/queues/{name}/peek.
type PeekResponse struct {
	Messages []PeekedMessage `json:"messages"`
}

// Queues lists the caller's queues with their message counts.
func (c *Client) Queues(ctx context.Context) (QueuesResponse, error) {
	var resp QueuesResponse
	_, err := c.do(ctx, http.MethodGet, "/v1/admin/queues", nil, nil, &resp)
	return resp, err
}

// Topics lists the caller's topics with their subscriptions.
func (c *Client) Topics(ctx context.Context) (TopicsResponse, error) {
	var resp TopicsResponse
	_, err := c.do(ctx, http.MethodGet, "/v1/admin/topics", nil, nil, &resp)
	return resp, err
}

// Peek returns up to limit of queue's oldest messages without receiving
// them: their receive counts and visibility do not change. limit 0 is the
// server's default (10); the server allows at most 100.
func (c *Client) Peek(ctx context.Context, queue string, limit int) (PeekResponse, error) {
	var q url.Values
	if limit > 0 {
		q = url.Values{"limit": {strconv.Itoa(limit)}}
	}
	var resp PeekResponse
	_, err := c.do(ctx, http.MethodGet, "/v1/admin/queues/"+url.PathEscape(queue)+"/peek", q, nil, &resp)
	return resp, err
}
