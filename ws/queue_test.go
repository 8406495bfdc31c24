package ws

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

var queueTestCaller = sqs.Caller{Account: "000000000000", SenderID: "AKIDTEST", Scheme: "http", Host: "localhost:4566"}

// queueEnv is an SQS Service on the in-memory store, on the wall clock,
// with one queue.
type queueEnv struct {
	svc *sqs.Service
	url string
}

func newQueueEnv(t *testing.T) *queueEnv {
	t.Helper()
	svc := sqs.NewService(sqsmem.NewStore(), sqsmem.NewIndex(sqsmem.IndexOptions{Clock: time.Now}), sqsmem.NewNotifier(), sqs.Config{})
	t.Cleanup(func() { svc.Close() })
	url, err := svc.CreateQueue(context.Background(), queueTestCaller, sqs.CreateQueueInput{QueueName: "device-42"})
	if err != nil {
		t.Fatal(err)
	}
	return &queueEnv{svc: svc, url: url}
}

func (e *queueEnv) send(t *testing.T, body string) string {
	t.Helper()
	out, err := e.svc.SendMessage(context.Background(), queueTestCaller, sqs.SendMessageInput{
		QueueURL: e.url, MessageBody: body,
		MessageAttributes: map[string]sqs.MessageAttributeValue{"kind": {DataType: "String", StringValue: "test"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.MessageID
}

// counts returns the visible and in-flight messages of the queue.
func (e *queueEnv) counts(t *testing.T) (visible, inFlight string) {
	t.Helper()
	a, err := e.svc.GetQueueAttributes(context.Background(), queueTestCaller, sqs.GetQueueAttributesInput{
		QueueURL: e.url, AttributeNames: []string{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a["ApproximateNumberOfMessages"], a["ApproximateNumberOfMessagesNotVisible"]
}

func (e *queueEnv) waitCounts(t *testing.T, visible, inFlight string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		v, f := e.counts(t)
		if v == visible && f == inFlight {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("visible %s, in flight %s; want %s, %s", v, f, visible, inFlight)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// queueFrames collects what a push sends.
type queueFrames struct {
	mu  sync.Mutex
	got []QueueMessageFrame
	ch  chan QueueMessageFrame
}

func newQueueFrames() *queueFrames { return &queueFrames{ch: make(chan QueueMessageFrame, 100)} }

func (f *queueFrames) send(frame any) error {
	m := frame.(QueueMessageFrame)
	f.mu.Lock()
	f.got = append(f.got, m)
	f.mu.Unlock()
	f.ch <- m
	return nil
}

func (f *queueFrames) next(t *testing.T) QueueMessageFrame {
	t.Helper()
	select {
	case m := <-f.ch:
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no queue_message frame")
		return QueueMessageFrame{}
	}
}

func (f *queueFrames) none(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case m := <-f.ch:
		t.Fatalf("unexpected frame %+v", m)
	case <-time.After(d):
	}
}

func (e *queueEnv) push(t *testing.T, vt, max int, f *queueFrames) *SQSQueuePush {
	t.Helper()
	p, err := NewSQSQueuePush(e.svc, queueTestCaller, e.url, vt, max, f.send)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Close()
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			t.Error("poller did not stop")
		}
	})
	return p
}

func TestQueuePushFrame(t *testing.T) {
	e := newQueueEnv(t)
	f := newQueueFrames()
	id := e.send(t, "hello")
	e.push(t, 30, 10, f)
	m := f.next(t)
	if m.Type != "queue_message" || m.Queue != e.url || m.MessageID != id || m.Body != "hello" ||
		m.ReceiptHandle == "" || m.ReceiveCount != 1 || m.MessageAttributes["kind"].StringValue != "test" ||
		m.Attributes["ApproximateReceiveCount"] != "1" {
		t.Fatalf("frame %+v", m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"type", "queue", "message_id", "receipt_handle", "body", "attributes", "message_attributes", "receive_count"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("frame JSON lacks %q: %s", k, b)
		}
	}
}

func TestQueuePushAckDeletes(t *testing.T) {
	e := newQueueEnv(t)
	f := newQueueFrames()
	e.send(t, "a")
	p := e.push(t, 30, 10, f)
	m := f.next(t)
	if err := p.Ack(m.ReceiptHandle); err != nil {
		t.Fatal(err)
	}
	e.waitCounts(t, "0", "0")
	f.none(t, 200*time.Millisecond)
}

func TestQueuePushNackRedelivers(t *testing.T) {
	e := newQueueEnv(t)
	f := newQueueFrames()
	e.send(t, "a")
	p := e.push(t, 30, 10, f)
	m := f.next(t)
	if err := p.Nack(m.ReceiptHandle); err != nil {
		t.Fatal(err)
	}
	// Visible again at once, so the same push receives it again.
	again := f.next(t)
	if again.MessageID != m.MessageID || again.ReceiveCount != 2 {
		t.Fatalf("after nack got %+v", again)
	}
}

func TestQueuePushTimeoutRedelivers(t *testing.T) {
	e := newQueueEnv(t)
	f := newQueueFrames()
	e.send(t, "a")
	e.push(t, 1, 1, f)
	start := time.Now()
	m := f.next(t)
	again := f.next(t)
	if again.MessageID != m.MessageID || again.ReceiveCount != 2 {
		t.Fatalf("after timeout got %+v", again)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Fatalf("redelivered after %v, before the visibility timeout", d)
	}
}

func TestQueuePushCloseReleases(t *testing.T) {
	e := newQueueEnv(t)
	f := newQueueFrames()
	for _, b := range []string{"a", "b", "c"} {
		e.send(t, b)
	}
	p := e.push(t, 300, 10, f)
	for range 3 {
		f.next(t)
	}
	e.waitCounts(t, "0", "3")
	p.Close()
	v, fl := e.counts(t)
	if v != "3" || fl != "0" {
		t.Fatalf("after Close: visible %s, in flight %s", v, fl)
	}
	if err := p.Ack("x"); err != ErrQueuePushClosed {
		t.Fatalf("Ack after Close: %v", err)
	}
	p.Close() // idempotent
}

func TestQueuePushMaxInFlight(t *testing.T) {
	e := newQueueEnv(t)
	f := newQueueFrames()
	for range 5 {
		e.send(t, "m")
	}
	p := e.push(t, 300, 2, f)
	a, b := f.next(t), f.next(t)
	f.none(t, 300*time.Millisecond)
	e.waitCounts(t, "3", "2")
	if err := p.Ack(a.ReceiptHandle); err != nil {
		t.Fatal(err)
	}
	c := f.next(t)
	f.none(t, 300*time.Millisecond)
	if err := p.Nack(b.ReceiptHandle); err != nil {
		t.Fatal(err)
	}
	d := f.next(t)
	f.none(t, 300*time.Millisecond)
	if c.MessageID == a.MessageID || d.MessageID == c.MessageID {
		t.Fatalf("unexpected redelivery: %s %s %s", a.MessageID, c.MessageID, d.MessageID)
	}
	e.waitCounts(t, "2", "2") // 4 left: c and d in flight
}

func TestQueuePushSendFailureReleases(t *testing.T) {
	e := newQueueEnv(t)
	e.send(t, "a")
	e.send(t, "b")
	var mu sync.Mutex
	calls := 0
	p, err := NewSQSQueuePush(e.svc, queueTestCaller, e.url, 300, 10, func(any) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return context.Canceled
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		t.Fatal("poller did not stop after send failed")
	}
	e.waitCounts(t, "2", "0")
}

func TestNewSQSQueuePushErrors(t *testing.T) {
	e := newQueueEnv(t)
	nop := func(any) error { return nil }
	tests := []struct {
		name    string
		url     string
		vt, max int
	}{
		{"no such queue", e.url + "-missing", 30, 10},
		{"negative vt", e.url, -1, 10},
		{"vt too long", e.url, 43201, 10},
		{"zero max", e.url, 30, 0},
	}
	for _, tt := range tests {
		if p, err := NewSQSQueuePush(e.svc, queueTestCaller, tt.url, tt.vt, tt.max, nop); err == nil {
			p.Close()
			t.Errorf("%s: no error", tt.name)
		}
	}
}
