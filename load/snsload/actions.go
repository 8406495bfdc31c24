package snsload

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
)

// The SNS actions the load uses.
const (
	ActionCreateTopic         = "CreateTopic"
	ActionDeleteTopic         = "DeleteTopic"
	ActionSubscribe           = "Subscribe"
	ActionConfirmSubscription = "ConfirmSubscription"
	ActionPublish             = "Publish"
)

// CreateTopic creates (or finds) the topic name and returns its ARN.
func (c *Client) CreateTopic(ctx context.Context, name string) (string, error) {
	var out struct {
		Arn string `xml:"CreateTopicResult>TopicArn"`
	}
	if err := c.query(ctx, ActionCreateTopic, url.Values{"Name": {name}}, &out); err != nil {
		return "", err
	}
	if out.Arn == "" {
		return "", fmt.Errorf("%s %s: the answer has no TopicArn", ActionCreateTopic, name)
	}
	return out.Arn, nil
}

// DeleteTopic deletes the topic and its subscriptions.
func (c *Client) DeleteTopic(ctx context.Context, topicARN string) error {
	return c.query(ctx, ActionDeleteTopic, url.Values{"TopicArn": {topicARN}}, nil)
}

// Subscribe subscribes endpoint to the topic over protocol, with raw message
// delivery when raw is set, and returns the subscription's ARN (for http
// subscriptions one that is pending until confirmed).
func (c *Client) Subscribe(ctx context.Context, topicARN, protocol, endpoint string, raw bool) (string, error) {
	var attrs map[string]string
	if raw {
		attrs = map[string]string{"RawMessageDelivery": "true"}
	}
	return c.SubscribeWith(ctx, topicARN, protocol, endpoint, attrs)
}

// SubscribeWith subscribes endpoint to the topic over protocol with
// subscription attributes (FilterPolicy, RawMessageDelivery, ...) and
// returns the subscription's ARN.
func (c *Client) SubscribeWith(ctx context.Context, topicARN, protocol, endpoint string, attrs map[string]string) (string, error) {
	params := url.Values{
		"TopicArn": {topicARN}, "Protocol": {protocol}, "Endpoint": {endpoint},
		"ReturnSubscriptionArn": {"true"},
	}
	n := 0
	for _, k := range slices.Sorted(maps.Keys(attrs)) {
		n++
		params[fmt.Sprintf("Attributes.entry.%d.key", n)] = []string{k}
		params[fmt.Sprintf("Attributes.entry.%d.value", n)] = []string{attrs[k]}
	}
	var out struct {
		Arn string `xml:"SubscribeResult>SubscriptionArn"`
	}
	if err := c.query(ctx, ActionSubscribe, params, &out); err != nil {
		return "", err
	}
	return out.Arn, nil
}

// ConfirmSubscription confirms a pending subscription with the token the
// server sent its endpoint.
func (c *Client) ConfirmSubscription(ctx context.Context, topicARN, token string) error {
	return c.query(ctx, ActionConfirmSubscription, url.Values{"TopicArn": {topicARN}, "Token": {token}}, nil)
}

// Publish publishes message to the topic and returns its message id.
func (c *Client) Publish(ctx context.Context, topicARN, message string) (string, error) {
	var out struct {
		ID string `xml:"PublishResult>MessageId"`
	}
	if err := c.query(ctx, ActionPublish, url.Values{"TopicArn": {topicARN}, "Message": {message}}, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// PublishWith publishes message to the topic with String message
// attributes and returns its message id.
func (c *Client) PublishWith(ctx context.Context, topicARN, message string, attrs map[string]string) (string, error) {
	params := url.Values{"TopicArn": {topicARN}, "Message": {message}}
	n := 0
	for _, k := range slices.Sorted(maps.Keys(attrs)) {
		n++
		p := fmt.Sprintf("MessageAttributes.entry.%d.", n)
		params[p+"Name"] = []string{k}
		params[p+"Value.DataType"] = []string{"String"}
		params[p+"Value.StringValue"] = []string{attrs[k]}
	}
	var out struct {
		ID string `xml:"PublishResult>MessageId"`
	}
	if err := c.query(ctx, ActionPublish, params, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// QueueARN asks the server's SQS JSON API for the ARN of the queue at
// queueURL (GetQueueAttributes QueueArn), signed for service "sqs".
func (c *Client) QueueARN(ctx context.Context, queueURL string) (string, error) {
	const action = "GetQueueAttributes"
	body, err := json.Marshal(map[string]any{"QueueUrl": queueURL, "AttributeNames": []string{"QueueArn"}})
	if err != nil {
		return "", err
	}
	answer, status, err := c.post(ctx, action, "sqs", "application/x-amz-json-1.0", "AmazonSQS."+action, body)
	if err != nil {
		return "", err
	}
	if status != http.StatusOK {
		return "", &APIError{Action: action, Status: status, Message: string(answer)}
	}
	var out struct {
		Attributes map[string]string `json:"Attributes"`
	}
	if err := json.Unmarshal(answer, &out); err != nil {
		return "", fmt.Errorf("%s: decoding the answer: %w", action, err)
	}
	if out.Attributes["QueueArn"] == "" {
		return "", fmt.Errorf("%s %s: the answer has no QueueArn", action, queueURL)
	}
	return out.Attributes["QueueArn"], nil
}

// message is the text of the seq-th publish: its number, its publish time
// in Unix nanoseconds and padding to size bytes.
func message(seq int, published int64, size int) string {
	b := make([]byte, 0, max(size, 48))
	b = append(b, "snsbench "...)
	b = strconv.AppendInt(b, int64(seq), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, published, 10)
	b = append(b, ' ')
	for len(b) < size {
		b = append(b, 'x')
	}
	return string(b)
}

// parseMessage reads what message wrote; ok is false for anything else.
func parseMessage(text []byte) (seq int, published int64, ok bool) {
	const prefix = "snsbench "
	if len(text) < len(prefix) || string(text[:len(prefix)]) != prefix {
		return 0, 0, false
	}
	rest := text[len(prefix):]
	var fields [2]int64
	for i := range fields {
		end := 0
		for end < len(rest) && rest[end] != ' ' {
			end++
		}
		n, err := strconv.ParseInt(string(rest[:end]), 10, 64)
		if err != nil || end == len(rest) {
			return 0, 0, false
		}
		fields[i], rest = n, rest[end+1:]
	}
	if fields[0] < 0 {
		return 0, 0, false
	}
	return int(fields[0]), fields[1], true
}
