package ws

import (
	"context"
	"strconv"
	"time"

	"github.com/heraldmq/herald/sqs"
)

// run is the polling goroutine.
func (p *SQSQueuePush) run() {
	defer close(p.done)
	for p.ctx.Err() == nil {
		free, next := p.slots(time.Now())
		if free == 0 {
			p.sleep(next)
			continue
		}
		wait, n, vt := queuePushWait, min(free, queuePushBatch), p.vt
		out, err := p.api.ReceiveMessage(p.ctx, p.caller, sqs.ReceiveMessageInput{
			QueueURL:              p.url,
			MaxNumberOfMessages:   &n,
			VisibilityTimeout:     &vt,
			WaitTimeSeconds:       &wait,
			AttributeNames:        []string{"All"},
			MessageAttributeNames: []string{"All"},
		})
		if err != nil {
			p.sleep(time.Now().Add(queuePushRetry))
			continue
		}
		if !p.deliver(out.Messages) {
			return
		}
	}
}

// slots prunes the messages whose visibility timeout ended by now and
// returns the free slots and, when there are none, the earliest time one
// frees by itself.
func (p *SQSQueuePush) slots(now time.Time) (free int, next time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for h, until := range p.inFlight {
		if !until.After(now) {
			delete(p.inFlight, h)
		} else if next.IsZero() || until.Before(next) {
			next = until
		}
	}
	return p.max - len(p.inFlight), next
}

// sleep waits until t, a freed slot or the end of the push.
func (p *SQSQueuePush) sleep(t time.Time) {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-p.wake:
	case <-p.ctx.Done():
	}
}

// deliver registers msgs as in flight and sends them; false when the push
// ended (closed, or send failed), after releasing every message not sent.
func (p *SQSQueuePush) deliver(msgs []sqs.ReceivedMessage) bool {
	// The visibility timeout began before ReceiveMessage returned: a
	// deadline taken now is at or after the real one, so the slot is
	// never freed before the message can reappear.
	until := time.Now().Add(time.Duration(p.vt) * time.Second)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.releaseUnsent(msgs)
		return false
	}
	for _, m := range msgs {
		p.inFlight[m.ReceiptHandle] = until
	}
	p.mu.Unlock()
	for i, m := range msgs {
		if p.ctx.Err() != nil || p.send(p.frame(m)) != nil {
			p.releaseUnsent(msgs[i:])
			return false
		}
	}
	return true
}

// releaseUnsent drops msgs from the in-flight set and makes them visible.
func (p *SQSQueuePush) releaseUnsent(msgs []sqs.ReceivedMessage) {
	handles := make([]string, len(msgs))
	p.mu.Lock()
	for i, m := range msgs {
		handles[i] = m.ReceiptHandle
		delete(p.inFlight, m.ReceiptHandle)
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), queuePushReleaseTime)
	defer cancel()
	p.releaseAll(ctx, handles)
}

// frame renders m as a queue_message frame.
func (p *SQSQueuePush) frame(m sqs.ReceivedMessage) QueueMessageFrame {
	f := QueueMessageFrame{
		Type:              "queue_message",
		Queue:             p.url,
		MessageID:         m.MessageID,
		ReceiptHandle:     m.ReceiptHandle,
		Body:              m.Body,
		Attributes:        m.Attributes,
		MessageAttributes: make(map[string]QueueMessageAttribute, len(m.MessageAttributes)),
	}
	if f.Attributes == nil {
		f.Attributes = map[string]string{}
	}
	for k, v := range m.MessageAttributes {
		f.MessageAttributes[k] = QueueMessageAttribute{DataType: v.DataType, StringValue: v.StringValue, BinaryValue: v.BinaryValue}
	}
	f.ReceiveCount, _ = strconv.Atoi(m.Attributes["ApproximateReceiveCount"])
	return f
}
