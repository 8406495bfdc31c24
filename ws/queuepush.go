package ws

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/heraldmq/herald/sqs"
)

// Bounds of SQSQueuePush's polling.
const (
	queuePushWait        = 20              // WaitTimeSeconds of each long poll
	queuePushBatch       = 10              // most messages one ReceiveMessage returns
	queuePushRetry       = time.Second     // pause after a failed ReceiveMessage
	queuePushReleaseTime = 5 * time.Second // bound on Close's visibility resets
	maxVisibilityTimeout = 12 * 60 * 60    // SQS's limit, in seconds
)

// ErrQueuePushClosed is returned by Ack and Nack after Close.
var ErrQueuePushClosed = errors.New("queue subscription closed")

// QueueMessageFrame is the queue_message frame of docs/websocket.md.
type QueueMessageFrame struct {
	Type              string                           `json:"type"` // "queue_message"
	Queue             string                           `json:"queue"`
	MessageID         string                           `json:"message_id"`
	ReceiptHandle     string                           `json:"receipt_handle"`
	Body              string                           `json:"body"`
	Attributes        map[string]string                `json:"attributes"`
	MessageAttributes map[string]QueueMessageAttribute `json:"message_attributes"`
	ReceiveCount      int                              `json:"receive_count"`
}

// QueueMessageAttribute is one message attribute of a queue_message frame;
// binary_value is base64 in JSON.
type QueueMessageAttribute struct {
	DataType    string `json:"data_type"`
	StringValue string `json:"string_value,omitempty"`
	BinaryValue []byte `json:"binary_value,omitempty"`
}

// SQSQueuePush pushes the messages of one SQS queue to one connection. A
// goroutine long-polls the queue and hands each message to send as a
// QueueMessageFrame; it never holds more than maxInFlight messages the
// client has not acked, nacked or let time out. Its methods are safe for
// concurrent use.
type SQSQueuePush struct {
	api    sqs.API
	caller sqs.Caller
	url    string
	vt     int
	max    int
	send   func(frame any) error

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the polling goroutine ends
	wake   chan struct{} // a slot was freed

	mu       sync.Mutex
	inFlight map[string]time.Time // receipt handle → end of its visibility timeout
	closed   bool
}

// NewSQSQueuePush checks that the queue at queueURL can be read by caller
// and starts pushing its messages to send: each is received with
// visibility timeout vt seconds (0 to 43200), at most maxInFlight (≥ 1)
// unacked at a time. send writes a frame to the client; it may block while
// the client is slow and must fail once the connection is gone, which
// stops the push (its unsent messages become visible again at once). The
// caller must Close the push.
func NewSQSQueuePush(api sqs.API, caller sqs.Caller, queueURL string, vt, maxInFlight int, send func(frame any) error) (*SQSQueuePush, error) {
	if vt < 0 || vt > maxVisibilityTimeout {
		return nil, sqs.NewError(sqs.CodeInvalidParameterValue, "visibility_timeout must be between 0 and %d seconds", maxVisibilityTimeout)
	}
	if maxInFlight < 1 {
		return nil, sqs.NewError(sqs.CodeInvalidParameterValue, "max_in_flight must be at least 1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err := checkReceive(ctx, api, caller, queueURL)
	cancel()
	if err != nil {
		return nil, err
	}
	p := &SQSQueuePush{
		api: api, caller: caller, url: queueURL, vt: vt, max: maxInFlight, send: send,
		done:     make(chan struct{}),
		wake:     make(chan struct{}, 1),
		inFlight: make(map[string]time.Time),
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	go p.run()
	return p, nil
}

// URL is the queue's URL, which its queue_message frames carry.
func (p *SQSQueuePush) URL() string { return p.url }

// accessChecker is the queue service's check of an action without taking it
// (sqs.Service.CheckAccess).
type accessChecker interface {
	CheckAccess(ctx context.Context, c sqs.Caller, action, queueURL string) error
}

// checkReceive checks that caller may receive from the queue, as the queue
// service would authorize a ReceiveMessage: its own queue, or one whose
// policy lets its account receive. An API without the check (a test's)
// is asked for the queue's attributes instead.
func checkReceive(ctx context.Context, api sqs.API, caller sqs.Caller, queueURL string) error {
	if ac, ok := api.(accessChecker); ok {
		return ac.CheckAccess(ctx, caller, sqs.ActReceiveMessage, queueURL)
	}
	_, err := api.GetQueueAttributes(ctx, caller, sqs.GetQueueAttributesInput{QueueURL: queueURL, AttributeNames: []string{"QueueArn"}})
	return err
}

// Ack deletes the message received with handle and frees its slot.
func (p *SQSQueuePush) Ack(handle string) error {
	if !p.forget(handle) {
		return ErrQueuePushClosed
	}
	return p.api.DeleteMessage(p.ctx, p.caller, sqs.DeleteMessageInput{QueueURL: p.url, ReceiptHandle: handle})
}

// Nack makes the message received with handle visible again at once and
// frees its slot.
func (p *SQSQueuePush) Nack(handle string) error {
	if !p.forget(handle) {
		return ErrQueuePushClosed
	}
	return p.release(p.ctx, handle)
}

// Close stops polling and makes every in-flight message visible again at
// once. It does not wait for a send in progress; a message the poller
// receives while closing is released by the poller itself.
func (p *SQSQueuePush) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	handles := make([]string, 0, len(p.inFlight))
	now := time.Now()
	for h, until := range p.inFlight {
		if until.After(now) {
			handles = append(handles, h)
		}
	}
	clear(p.inFlight)
	p.mu.Unlock()
	p.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), queuePushReleaseTime)
	defer cancel()
	p.releaseAll(ctx, handles)
}

// forget removes handle from the in-flight set (it may already have timed
// out) and wakes the poller; false after Close.
func (p *SQSQueuePush) forget(handle string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	delete(p.inFlight, handle)
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return true
}

// release makes the message of handle visible at once.
func (p *SQSQueuePush) release(ctx context.Context, handle string) error {
	zero := 0
	return p.api.ChangeMessageVisibility(ctx, p.caller, sqs.ChangeMessageVisibilityInput{QueueURL: p.url, ReceiptHandle: handle, VisibilityTimeout: &zero})
}

// releaseAll releases handles in batches of ten; failures are ignored (the
// messages come back when their visibility timeout ends).
func (p *SQSQueuePush) releaseAll(ctx context.Context, handles []string) {
	zero := 0
	for len(handles) > 0 {
		n := min(len(handles), queuePushBatch)
		entries := make([]sqs.BatchHandleEntry, n)
		for i, h := range handles[:n] {
			entries[i] = sqs.BatchHandleEntry{ID: strconv.Itoa(i), ReceiptHandle: h, VisibilityTimeout: &zero}
		}
		_, _ = p.api.ChangeMessageVisibilityBatch(ctx, p.caller, sqs.ChangeMessageVisibilityBatchInput{QueueURL: p.url, Entries: entries})
		handles = handles[n:]
	}
}
