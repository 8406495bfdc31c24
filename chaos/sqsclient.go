package chaos

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/heraldmq/herald/load/sqsload"
)

// sqsClient calls Herald's SQS API with AWS JSON 1.0, unsigned. Unlike
// sqsload's client it keeps the bodies of received messages: the drill
// checks every one.
type sqsClient struct {
	endpoint string
	http     *http.Client
}

func newSQSClient(baseURL string, connections int) *sqsClient {
	return &sqsClient{
		endpoint: strings.TrimRight(baseURL, "/") + "/",
		http: &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{
			Proxy: nil, MaxIdleConns: connections, MaxIdleConnsPerHost: connections,
			IdleConnTimeout: time.Minute, DisableCompression: true,
		}},
	}
}

func (c *sqsClient) close() { c.http.CloseIdleConnections() }

// call posts in as action and decodes a 200 answer into out.
func (c *sqsClient) call(ctx context.Context, action string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = http.Header{"Content-Type": {sqsload.ContentType}, "X-Amz-Target": {sqsload.TargetPrefix + action}}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", action, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", action, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %s", action, resp.StatusCode, clip(string(answer), 300))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("%s: decoding the answer: %w", action, err)
	}
	return nil
}

func (c *sqsClient) createQueue(ctx context.Context, name string, attributes map[string]string) (string, error) {
	var out struct{ QueueUrl string }
	err := c.call(ctx, "CreateQueue", map[string]any{"QueueName": name, "Attributes": attributes}, &out)
	if err == nil && out.QueueUrl == "" {
		err = fmt.Errorf("CreateQueue %s: no QueueUrl", name)
	}
	return out.QueueUrl, err
}

func (c *sqsClient) deleteQueue(ctx context.Context, url string) error {
	return c.call(ctx, "DeleteQueue", map[string]any{"QueueUrl": url}, nil)
}

func (c *sqsClient) queueARN(ctx context.Context, url string) (string, error) {
	var out struct{ Attributes map[string]string }
	if err := c.call(ctx, "GetQueueAttributes", map[string]any{"QueueUrl": url, "AttributeNames": []string{"QueueArn"}}, &out); err != nil {
		return "", err
	}
	if out.Attributes["QueueArn"] == "" {
		return "", fmt.Errorf("GetQueueAttributes %s: no QueueArn", url)
	}
	return out.Attributes["QueueArn"], nil
}

// sendEntry is one message of a SendMessageBatch; group and dedup are for
// FIFO queues.
type sendEntry struct {
	body, group, dedup string
}

// sendBatch sends entries in one SendMessageBatch and reports which of
// them the server acknowledged: listed as successful, with a MessageId and
// the MD5 of the body sent. A mismatched MD5 is returned in bad.
func (c *sqsClient) sendBatch(ctx context.Context, url string, entries []sendEntry) (acked []bool, bad int, err error) {
	type entryIn struct {
		Id                     string
		MessageBody            string
		MessageGroupId         string `json:",omitempty"`
		MessageDeduplicationId string `json:",omitempty"`
	}
	in := struct {
		QueueUrl string
		Entries  []entryIn
	}{QueueUrl: url, Entries: make([]entryIn, len(entries))}
	for i, e := range entries {
		in.Entries[i] = entryIn{Id: strconv.Itoa(i), MessageBody: e.body, MessageGroupId: e.group, MessageDeduplicationId: e.dedup}
	}
	var out struct {
		Successful []struct{ Id, MessageId, MD5OfMessageBody string }
	}
	if err := c.call(ctx, "SendMessageBatch", in, &out); err != nil {
		return nil, 0, err
	}
	acked = make([]bool, len(entries))
	for _, s := range out.Successful {
		i, err := strconv.Atoi(s.Id)
		if err != nil || i < 0 || i >= len(entries) || s.MessageId == "" {
			continue
		}
		sum := md5.Sum([]byte(entries[i].body))
		if s.MD5OfMessageBody != hex.EncodeToString(sum[:]) {
			bad++
			continue
		}
		acked[i] = true
	}
	return acked, bad, nil
}

// sqsMessage is a received message.
type sqsMessage struct {
	MessageId     string
	ReceiptHandle string
	Body          string
}

func (c *sqsClient) receive(ctx context.Context, url string, max, wait int) ([]sqsMessage, error) {
	var out struct{ Messages []sqsMessage }
	err := c.call(ctx, "ReceiveMessage", map[string]any{"QueueUrl": url, "MaxNumberOfMessages": max, "WaitTimeSeconds": wait}, &out)
	return out.Messages, err
}

// deleteBatch deletes the messages of handles and returns how many the
// server deleted.
func (c *sqsClient) deleteBatch(ctx context.Context, url string, handles []string) (int, error) {
	type entryIn struct{ Id, ReceiptHandle string }
	in := struct {
		QueueUrl string
		Entries  []entryIn
	}{QueueUrl: url, Entries: make([]entryIn, len(handles))}
	for i, h := range handles {
		in.Entries[i] = entryIn{strconv.Itoa(i), h}
	}
	var out struct {
		Successful []struct{ Id string }
		Failed     []struct{ Code, Message string }
	}
	if err := c.call(ctx, "DeleteMessageBatch", in, &out); err != nil {
		return 0, err
	}
	if len(out.Failed) > 0 {
		return len(out.Successful), fmt.Errorf("DeleteMessageBatch: %d of %d failed, first: %s: %s", len(out.Failed), len(handles), out.Failed[0].Code, out.Failed[0].Message)
	}
	return len(out.Successful), nil
}

// clip shortens s to at most n bytes for an error message.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
