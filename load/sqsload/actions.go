package sqsload

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/heraldmq/herald/internal/jsonenc"
)

// The SQS actions the load uses, as X-Amz-Target names them.
const (
	ActionCreateQueue        = "CreateQueue"
	ActionListQueues         = "ListQueues"
	ActionDeleteQueue        = "DeleteQueue"
	ActionSendMessage        = "SendMessage"
	ActionSendMessageBatch   = "SendMessageBatch"
	ActionReceiveMessage     = "ReceiveMessage"
	ActionDeleteMessage      = "DeleteMessage"
	ActionDeleteMessageBatch = "DeleteMessageBatch"
)

// MaxBatch is the most entries SQS accepts in one batch request.
const MaxBatch = 10

// Message is what the load keeps of a received message.
type Message struct {
	MessageID     string `json:"MessageId"`
	ReceiptHandle string `json:"ReceiptHandle"`
	Body          string `json:"Body"`
}

// BatchError reports the failed entries of a batch request whose other
// entries succeeded.
type BatchError struct {
	Action  string
	Failed  int
	Entries int
	Code    string // of the first failed entry
	Message string
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("%s: %d of %d entries failed, first: %s: %s", e.Action, e.Failed, e.Entries, e.Code, e.Message)
}

// batchAnswer is the answer of SendMessageBatch and DeleteMessageBatch,
// reduced to what the load checks; Successful's entries are counted, not
// kept.
type batchAnswer struct {
	Successful []struct{} `json:"Successful"`
	Failed     []struct {
		Code    string `json:"Code"`
		Message string `json:"Message"`
	} `json:"Failed"`
}

func (a batchAnswer) err(action string, entries int) error {
	if len(a.Failed) == 0 {
		return nil
	}
	return &BatchError{Action: action, Failed: len(a.Failed), Entries: entries, Code: a.Failed[0].Code, Message: a.Failed[0].Message}
}

// CreateQueue creates (or finds) the queue name and returns its URL.
func (c *Client) CreateQueue(ctx context.Context, name string, attributes map[string]string) (string, error) {
	return c.CreateTaggedQueue(ctx, name, attributes, nil)
}

// CreateTaggedQueue is CreateQueue with tags (herald:shards, say).
func (c *Client) CreateTaggedQueue(ctx context.Context, name string, attributes, tags map[string]string) (string, error) {
	body, err := json.Marshal(struct {
		QueueName  string            `json:"QueueName"`
		Attributes map[string]string `json:"Attributes,omitempty"`
		Tags       map[string]string `json:"tags,omitempty"`
	}{name, attributes, tags})
	if err != nil {
		return "", err
	}
	var out struct {
		QueueURL string `json:"QueueUrl"`
	}
	if err := c.call(ctx, NewRequest(ActionCreateQueue, body, false), intoJSON(&out)); err != nil {
		return "", err
	}
	if out.QueueURL == "" {
		return "", fmt.Errorf("%s %s: the answer has no QueueUrl", ActionCreateQueue, name)
	}
	return out.QueueURL, nil
}

// ListQueues lists a page of up to max (1..1000) queue URLs whose names
// start with prefix, from the page nextToken names ("" the first), and
// returns the next page's token ("" after the last).
func (c *Client) ListQueues(ctx context.Context, prefix, nextToken string, max int) ([]string, string, error) {
	body, err := json.Marshal(struct {
		QueueNamePrefix string `json:"QueueNamePrefix,omitempty"`
		NextToken       string `json:"NextToken,omitempty"`
		MaxResults      int    `json:"MaxResults"`
	}{prefix, nextToken, max})
	if err != nil {
		return nil, "", err
	}
	var out struct {
		QueueUrls []string `json:"QueueUrls"`
		NextToken string   `json:"NextToken"`
	}
	if err := c.call(ctx, NewRequest(ActionListQueues, body, c.Signs()), intoJSON(&out)); err != nil {
		return nil, "", err
	}
	return out.QueueUrls, out.NextToken, nil
}

// DeleteQueue deletes the queue at queueURL.
func (c *Client) DeleteQueue(ctx context.Context, queueURL string) error {
	body := append(jsonenc.AppendString([]byte(`{"QueueUrl":`), queueURL), '}')
	return c.call(ctx, NewRequest(ActionDeleteQueue, body, false), nil)
}

// SendRequest encodes the sending of bodies to queueURL: SendMessage for one
// body, SendMessageBatch (entry ids "0", "1", ...) for more.
func (c *Client) SendRequest(queueURL string, bodies []string) Request {
	b := jsonenc.AppendString([]byte(`{"QueueUrl":`), queueURL)
	if len(bodies) == 1 {
		b = jsonenc.AppendString(append(b, `,"MessageBody":`...), bodies[0])
		return NewRequest(ActionSendMessage, append(b, '}'), c.Signs())
	}
	b = append(b, `,"Entries":[`...)
	for i, body := range bodies {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `{"Id":"`...), int64(i), 10)
		b = append(jsonenc.AppendString(append(b, `","MessageBody":`...), body), '}')
	}
	return NewRequest(ActionSendMessageBatch, append(b, "]}"...), c.Signs())
}

// Send sends a request made by SendRequest and returns how many messages
// the server took.
func (c *Client) Send(ctx context.Context, r Request, entries int) (int, error) {
	if r.action == ActionSendMessage {
		if err := c.call(ctx, r, nil); err != nil {
			return 0, err
		}
		return 1, nil
	}
	var out batchAnswer
	if err := c.call(ctx, r, intoJSON(&out)); err != nil {
		return 0, err
	}
	return len(out.Successful), out.err(r.action, entries)
}

// ReceiveRequest encodes a ReceiveMessage of up to max messages from
// queueURL, long-polling wait seconds. A negative visibility leaves the
// queue's VisibilityTimeout in force.
func (c *Client) ReceiveRequest(queueURL string, max, wait, visibility int) Request {
	b := jsonenc.AppendString([]byte(`{"QueueUrl":`), queueURL)
	b = strconv.AppendInt(append(b, `,"MaxNumberOfMessages":`...), int64(max), 10)
	b = strconv.AppendInt(append(b, `,"WaitTimeSeconds":`...), int64(wait), 10)
	if visibility >= 0 {
		b = strconv.AppendInt(append(b, `,"VisibilityTimeout":`...), int64(visibility), 10)
	}
	return NewRequest(ActionReceiveMessage, append(b, '}'), c.Signs())
}

// Receive calls a request made by ReceiveRequest and appends the received
// messages to into.
func (c *Client) Receive(ctx context.Context, r Request, into []Message) ([]Message, error) {
	prior := len(into)
	err := c.call(ctx, r, func(body []byte) error {
		var err error
		into, err = decodeReceiveAnswer(body, into)
		return err
	})
	if err != nil {
		return into[:prior], err
	}
	return into, nil
}

// Delete deletes the messages of the receipt handles from queueURL in one
// call: DeleteMessage when batch is false (exactly one handle),
// DeleteMessageBatch (entry ids "0", "1", ...) otherwise. It returns the
// action called and how many messages the server deleted.
func (c *Client) Delete(ctx context.Context, queueURL string, handles []string, batch bool) (string, int, error) {
	if len(handles) == 0 {
		return "", 0, fmt.Errorf("delete: no receipt handles")
	}
	b := make([]byte, 0, 64+len(queueURL)+len(handles)*(len(handles[0])+24))
	b = jsonenc.AppendString(append(b, `{"QueueUrl":`...), queueURL)
	if !batch {
		if len(handles) != 1 {
			return ActionDeleteMessage, 0, fmt.Errorf("%s takes one receipt handle, got %d", ActionDeleteMessage, len(handles))
		}
		b = append(jsonenc.AppendString(append(b, `,"ReceiptHandle":`...), handles[0]), '}')
		if err := c.call(ctx, NewRequest(ActionDeleteMessage, b, false), nil); err != nil {
			return ActionDeleteMessage, 0, err
		}
		return ActionDeleteMessage, 1, nil
	}
	b = append(b, `,"Entries":[`...)
	for i, h := range handles {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `{"Id":"`...), int64(i), 10)
		b = append(jsonenc.AppendString(append(b, `","ReceiptHandle":`...), h), '}')
	}
	var out batchAnswer
	if err := c.call(ctx, NewRequest(ActionDeleteMessageBatch, append(b, "]}"...), false), intoJSON(&out)); err != nil {
		return ActionDeleteMessageBatch, 0, err
	}
	return ActionDeleteMessageBatch, len(out.Successful), out.err(ActionDeleteMessageBatch, len(handles))
}
