package sqs_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
)

func TestLongPollWakesOnSend(t *testing.T) {
	e := newEnv(t, realClock)
	url := e.createQueue(t, "poll", nil)
	type result struct {
		msgs []sqs.ReceivedMessage
		err  error
		took time.Duration
	}
	done := make(chan result, 1)
	go func() {
		start := time.Now()
		out, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, WaitTimeSeconds: ptr(10)})
		done <- result{out.Messages, err, time.Since(start)}
	}()
	time.Sleep(200 * time.Millisecond)
	before := e.index.receives.Load()
	e.send(t, url, "wake up")
	r := <-done
	wantCode(t, r.err, "")
	if len(r.msgs) != 1 || r.msgs[0].Body != "wake up" {
		t.Fatalf("long poll got %v", bodies(r.msgs))
	}
	if r.took > 2*time.Second {
		t.Fatalf("long poll took %v to see the send", r.took)
	}
	// One look before sleeping, one after the wake-up.
	if n := e.index.receives.Load(); before > 2 || n-before > 2 {
		t.Fatalf("Index.Receive called %d times before and %d after the send: busy polling", before, n-before)
	}
}

// TestLongPollWakesWhenADeleteUnblocksAFIFOGroup: a long poll that found
// its only group blocked returns the group's next message as soon as the
// message blocking it is deleted, not when its wait (or a recheck, here
// set far beyond the wait) ends.
func TestLongPollWakesWhenADeleteUnblocksAFIFOGroup(t *testing.T) {
	e := newEnv(t, realClock, recheck(time.Hour))
	url := e.createQueue(t, "unblock.fifo", fifoAttrs())
	e.sendFIFO(t, url, "a1", "A", "a1")
	e.sendFIFO(t, url, "a2", "A", "a2")
	first := e.receive(t, url, 1, nil)
	if got := bodies(first); !slices.Equal(got, []string{"a1"}) {
		t.Fatalf("first receive %v, want [a1]", got)
	}
	type result struct {
		msgs []sqs.ReceivedMessage
		err  error
	}
	done := make(chan result, 1)
	go func() {
		out, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, WaitTimeSeconds: ptr(20)})
		done <- result{out.Messages, err}
	}()
	// The poll has looked once and sleeps: the group is blocked by a1.
	for e.index.receives.Load() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	e.deleteMessage(t, url, first[0].ReceiptHandle)
	select {
	case r := <-done:
		wantCode(t, r.err, "")
		if got := bodies(r.msgs); !slices.Equal(got, []string{"a2"}) {
			t.Fatalf("long poll got %v, want [a2]", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the long poll still sleeps 10 s after the delete that unblocked its group")
	}
}

func TestLongPollDoesNotBusyPoll(t *testing.T) {
	e := newEnv(t, realClock)
	url := e.createQueue(t, "idle", map[string]string{"ReceiveMessageWaitTimeSeconds": "1"})
	start := time.Now()
	out, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url}) // the queue's wait time
	wantCode(t, err, "")
	if len(out.Messages) != 0 {
		t.Fatal("empty queue delivered a message")
	}
	if took := time.Since(start); took < 900*time.Millisecond || took > 3*time.Second {
		t.Fatalf("1-second long poll took %v", took)
	}
	if n := e.index.receives.Load(); n > 2 {
		t.Fatalf("Index.Receive called %d times in one idle long poll", n)
	}
}

func TestLongPollWakesWhenDelayEnds(t *testing.T) {
	e := newEnv(t, realClock)
	url := e.createQueue(t, "soon", nil)
	_, err := e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: "later", DelaySeconds: ptr(1)})
	wantCode(t, err, "")
	start := time.Now()
	out, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, WaitTimeSeconds: ptr(5)})
	wantCode(t, err, "")
	if len(out.Messages) != 1 {
		t.Fatal("delayed message not received within the long poll")
	}
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Fatalf("took %v for a 1-second delay", took)
	}
	if n := e.index.receives.Load(); n > 3 {
		t.Fatalf("Index.Receive called %d times", n)
	}
}

func TestLongPollEndsWithContext(t *testing.T) {
	e := newEnv(t, realClock)
	url := e.createQueue(t, "ctx", nil)
	ctx, cancel := context.WithTimeout(e.ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := e.svc.ReceiveMessage(ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, WaitTimeSeconds: ptr(20)})
	wantCode(t, err, "")
	if len(out.Messages) != 0 || time.Since(start) > 2*time.Second {
		t.Fatalf("got %d messages after %v", len(out.Messages), time.Since(start))
	}
}

func TestRebuildAfterIndexLoss(t *testing.T) {
	e := newEnv(t, shards(4))
	url := e.createQueue(t, "rebuild", nil)
	const n = 30
	for i := 0; i < n; i++ {
		e.send(t, url, strconv.Itoa(i))
	}
	// Ten are in flight (received once) when the Index loses the queue.
	inFlight := map[string]bool{}
	for len(inFlight) < 10 {
		for _, m := range e.receive(t, url, 10-len(inFlight), nil) {
			inFlight[m.Body] = true
		}
	}
	wantCode(t, e.index.Drop(e.ctx, sqs.IndexQueue{ID: queueID(t, e, "rebuild")}), "")

	got := map[string]bool{}
	for {
		msgs := e.receive(t, url, 10, nil)
		if len(msgs) == 0 {
			break
		}
		for _, m := range msgs {
			if inFlight[m.Body] {
				t.Fatalf("in-flight message %s delivered again before its timeout", m.Body)
			}
			if m.Attributes["ApproximateReceiveCount"] != "1" {
				t.Fatalf("fresh message %s has receive count %s", m.Body, m.Attributes["ApproximateReceiveCount"])
			}
			got[m.Body] = true
			e.deleteMessage(t, url, m.ReceiptHandle)
		}
	}
	if len(got) != n-10 {
		t.Fatalf("after the rebuild %d messages delivered, want %d", len(got), n-10)
	}
	// The in-flight ones come back after their timeout, with their counts.
	e.advance(31 * time.Second)
	for _, m := range e.receive(t, url, 10, nil) {
		if !inFlight[m.Body] || m.Attributes["ApproximateReceiveCount"] != "2" {
			t.Fatalf("after the timeout got %s with count %s", m.Body, m.Attributes["ApproximateReceiveCount"])
		}
		delete(inFlight, m.Body)
	}
	if len(inFlight) != 0 {
		t.Fatalf("lost after the rebuild: %v", inFlight)
	}
}

func TestDegradedModeKeepsServing(t *testing.T) {
	e := newEnv(t, shards(3))
	url := e.createQueue(t, "degraded", map[string]string{"VisibilityTimeout": "30"})
	e.send(t, url, "before")
	e.index.down.Store(true)

	for _, b := range []string{"during-1", "during-2"} {
		e.send(t, url, b)
	}
	if e.store.marked.Load() == 0 {
		t.Fatal("a send with the Index down did not MarkUnindexed")
	}
	got := e.receive(t, url, 10, nil)
	names := bodies(got)
	slices.Sort(names)
	if !slices.Equal(names, []string{"before", "during-1", "during-2"}) {
		t.Fatalf("degraded receive %v", names)
	}
	// Claims are saved in the Store: no immediate redelivery.
	if again := e.receive(t, url, 10, nil); len(again) != 0 {
		t.Fatalf("degraded mode redelivered %v at once", bodies(again))
	}
	if n := e.attributes(t, url, "ApproximateNumberOfMessagesNotVisible")["ApproximateNumberOfMessagesNotVisible"]; n != "3" {
		t.Fatalf("degraded counts: %s not visible, want 3", n)
	}
	e.deleteMessage(t, url, got[0].ReceiptHandle)
	wantCode(t, e.svc.ChangeMessageVisibility(e.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: got[1].ReceiptHandle, VisibilityTimeout: ptr(0)}), "")
	if again := e.receive(t, url, 10, nil); len(again) != 1 || again[0].Body != got[1].Body || again[0].Attributes["ApproximateReceiveCount"] != "2" {
		t.Fatalf("after visibility 0 in degraded mode: %+v", again)
	}

	// The Index comes back; Run drops the queue's stale state and the next
	// receive rebuilds it from the Store.
	e.index.down.Store(false)
	ctx, cancel := context.WithCancel(e.ctx)
	ran := make(chan struct{})
	go func() { e.svc.Run(ctx); close(ran) }()
	deadline := time.Now().Add(5 * time.Second)
	for e.index.drops.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-ran
	if e.index.drops.Load() == 0 {
		t.Fatal("Run did not drop the unindexed queue")
	}
	e.advance(time.Minute)
	left := bodies(e.receive(t, url, 10, nil))
	slices.Sort(left)
	want := []string{"before", "during-1", "during-2"}
	want = slices.DeleteFunc(want, func(b string) bool { return b == got[0].Body })
	if !slices.Equal(left, want) {
		t.Fatalf("after recovery %v, want %v", left, want)
	}
}

func TestDegradedFIFOHonoursGroups(t *testing.T) {
	e := newEnv(t, shards(4))
	url := e.createQueue(t, "dg.fifo", fifoAttrs("ContentBasedDeduplication", "true"))
	e.index.down.Store(true)
	for _, b := range []string{"a1", "a2", "a3"} {
		e.sendFIFO(t, url, b, "A", "")
	}
	e.sendFIFO(t, url, "b1", "B", "")
	if got := bodies(e.receive(t, url, 2, nil)); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Fatalf("first degraded FIFO receive %v", got)
	}
	if got := bodies(e.receive(t, url, 10, nil)); !slices.Equal(got, []string{"b1"}) {
		t.Fatalf("second degraded FIFO receive %v (group A is in flight)", got)
	}
}

func TestFailedStoreWriteFailsTheSend(t *testing.T) {
	e := newEnv(t)
	url := e.createQueue(t, "fail", nil)
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	_, err := e.svc.SendMessage(ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: "x"})
	if err == nil {
		t.Fatal("send succeeded without a Store write")
	}
	wantCode(t, err, sqs.CodeServiceUnavailable) // not InternalFailure
}
