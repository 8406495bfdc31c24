package sns_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

// confirmHTTP subscribes an http endpoint and confirms it with the token
// the fake endpoint received.
func (e *env) confirmHTTP(t *testing.T, topic, endpoint string, attrs map[string]string) string {
	t.Helper()
	e.subscribe(t, topic, "http", endpoint, attrs)
	var c sns.Confirmation
	eventually(t, 2*time.Second, "a confirmation", func() (ok bool) { c, ok = e.http.confirmation(endpoint); return })
	arn, err := e.svc.ConfirmSubscription(e.ctx, caller, sns.ConfirmSubscriptionInput{TopicARN: topic, Token: c.Token})
	wantCode(t, err, "")
	return arn
}

func TestFanOutToEveryProtocol(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc) // the workers also send confirmations
	topic := e.createTopic(t, "alerts", nil)
	e.subscribe(t, topic, "sqs", e.createQueue(t, "enveloped", nil), nil)
	e.subscribe(t, topic, "sqs", e.createQueue(t, "raw", nil), map[string]string{"RawMessageDelivery": "true"})
	e.subscribe(t, topic, "sqs", e.createQueue(t, "wants-red", nil), map[string]string{"FilterPolicy": `{"colour": ["red"]}`})
	e.subscribe(t, topic, "sqs", e.createQueue(t, "wants-blue", nil), map[string]string{"FilterPolicy": `{"colour": ["blue"]}`})
	e.subscribe(t, topic, "sqs", e.createQueue(t, "body-filter", nil), map[string]string{
		"FilterPolicy": `{"level": ["high"]}`, "FilterPolicyScope": "MessageBody"})
	e.subscribe(t, topic, "path", "alerts.box1", nil)
	e.confirmHTTP(t, topic, "http://example.com/hook", nil)
	e.subscribe(t, topic, "http", "http://example.com/pending", nil) // never confirmed

	attrs := map[string]sns.MessageAttributeValue{"colour": {DataType: "String", StringValue: "red"}}
	msg := `{"default": "for everyone", "sqs": "for queues", "http": "for hooks"}`
	out := e.publish(t, sns.PublishInput{TopicARN: topic, Message: msg, MessageStructure: "json", Subject: ptr("Storm"), MessageAttributes: attrs})

	eventually(t, 5*time.Second, "the http delivery", func() bool { _, n := e.http.count("http://example.com/hook"); return n == 1 })
	eventually(t, 5*time.Second, "the path delivery", func() bool { return len(e.paths.get("alerts.box1")) == 1 })
	var env map[string]any
	eventually(t, 5*time.Second, "the queue deliveries", func() bool {
		got := e.drain(t, "enveloped")
		if len(got) == 1 {
			if err := json.Unmarshal([]byte(got[0].Body), &env); err != nil {
				t.Fatal(err)
			}
		}
		return env != nil
	})
	if env["Type"] != "Notification" || env["MessageId"] != out.MessageID || env["TopicArn"] != topic ||
		env["Message"] != "for queues" || env["Subject"] != "Storm" || env["SignatureVersion"] != "1" {
		t.Fatalf("envelope = %v", env)
	}
	if a, _ := env["MessageAttributes"].(map[string]any); a["colour"] == nil {
		t.Fatalf("envelope attributes = %v", env["MessageAttributes"])
	}
	var raw []sqs.ReceivedMessage
	eventually(t, 5*time.Second, "the raw delivery", func() bool { raw = append(raw, e.drain(t, "raw")...); return len(raw) > 0 })
	if raw[0].Body != "for queues" || raw[0].MessageAttributes["colour"].StringValue != "red" {
		t.Fatalf("raw delivery = %+v", raw[0])
	}
	eventually(t, 5*time.Second, "the filtered delivery", func() bool { return len(e.drain(t, "wants-red")) == 1 })
	if p := e.paths.get("alerts.box1")[0]; p.Message != "for everyone" || p.MessageID != out.MessageID {
		t.Fatalf("path notification = %+v", p)
	}
	e.http.mu.Lock()
	hook := e.http.delivered["http://example.com/hook"][0]
	e.http.mu.Unlock()
	if hook.Message != "for hooks" || hook.Subject != "Storm" || hook.TopicARN != topic {
		t.Fatalf("http notification = %+v", hook)
	}
	// Filtered-out and pending subscriptions get nothing.
	time.Sleep(200 * time.Millisecond)
	if n := len(e.drain(t, "wants-blue")) + len(e.drain(t, "body-filter")); n != 0 {
		t.Fatalf("%d deliveries to subscriptions the filter rejects", n)
	}
	if a, _ := e.http.count("http://example.com/pending"); a != 0 {
		t.Fatalf("%d deliveries to a pending subscription", a)
	}
	// The body-scope policy is tested and refuses; wants-blue is not even
	// read: the filter index lists it under colour=blue only.
	if f := e.svc.Stats().Filtered.Load(); f != 1 {
		t.Fatalf("Filtered = %d, want 1", f)
	}
	// A body-scope policy matching the body delivers.
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: `{"level": "high"}`})
	eventually(t, 5*time.Second, "the body-filtered delivery", func() bool { return len(e.drain(t, "body-filter")) == 1 })
}

func TestFanOutChunks(t *testing.T) {
	e := newEnv(t, func(c *sns.Config) { c.ChunkSize = 3 })
	topic := e.createTopic(t, "many", nil)
	for i := 0; i < 25; i++ {
		e.subscribe(t, topic, "path", fmt.Sprintf("box.%d", i), nil)
	}
	run(t, e.svc)
	for i := 0; i < 3; i++ {
		e.publish(t, sns.PublishInput{TopicARN: topic, Message: fmt.Sprint("m", i)})
	}
	eventually(t, 10*time.Second, "75 deliveries", func() bool { return e.svc.Stats().Delivered.Load() == 75 })
	for i := 0; i < 25; i++ {
		if n := len(e.paths.get(fmt.Sprintf("box.%d", i))); n != 3 {
			t.Fatalf("box.%d got %d", i, n)
		}
	}
}

func TestHTTPRetriesThenDeadLetter(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc) // the workers also send confirmations
	topic := e.createTopic(t, "flaky", nil)
	dlq := e.createQueue(t, "dlq", nil)
	policy := `{"healthyRetryPolicy": {"numRetries": 2, "numNoDelayRetries": 2, "minDelayTarget": 1, "maxDelayTarget": 1}}`
	e.confirmHTTP(t, topic, "http://dead.example/", map[string]string{"DeliveryPolicy": policy,
		"RedrivePolicy": `{"deadLetterTargetArn": "` + dlq + `"}`})
	e.confirmHTTP(t, topic, "http://dropped.example/", map[string]string{"DeliveryPolicy": policy})
	e.confirmHTTP(t, topic, "http://once.example/", map[string]string{"DeliveryPolicy": policy})
	e.http.mu.Lock()
	e.http.fails["http://dead.example/"] = -1
	e.http.fails["http://dropped.example/"] = -1
	e.http.fails["http://once.example/"] = 1
	e.http.mu.Unlock()
	out := e.publish(t, sns.PublishInput{TopicARN: topic, Message: "hello"})

	var dead []sqs.ReceivedMessage
	eventually(t, 10*time.Second, "the dead letter", func() bool { dead = append(dead, e.drain(t, "dlq")...); return len(dead) > 0 })
	var env map[string]any
	if err := json.Unmarshal([]byte(dead[0].Body), &env); err != nil || env["MessageId"] != out.MessageID || env["Message"] != "hello" {
		t.Fatalf("dead letter = %s (%v)", dead[0].Body, err)
	}
	eventually(t, 10*time.Second, "the drop", func() bool { return e.svc.Stats().Dropped.Load() == 1 })
	for endpoint, want := range map[string][2]int{"http://dead.example/": {3, 0}, "http://dropped.example/": {3, 0}, "http://once.example/": {2, 1}} {
		if a, d := e.http.count(endpoint); a != want[0] || d != want[1] {
			t.Errorf("%s: %d attempts, %d delivered; want %v", endpoint, a, d, want)
		}
	}
	st := e.svc.Stats()
	if st.DeadLettered.Load() != 1 || st.Retried.Load() != 5 || st.Delivered.Load() != 1 {
		t.Fatalf("stats: dead-lettered %d, retried %d, delivered %d", st.DeadLettered.Load(), st.Retried.Load(), st.Delivered.Load())
	}
}

func TestHTTPRetryDelay(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc) // the workers also send confirmations
	topic := e.createTopic(t, "slow", nil)
	e.confirmHTTP(t, topic, "http://later.example/", map[string]string{
		"DeliveryPolicy": `{"healthyRetryPolicy": {"numRetries": 1, "minDelayTarget": 1, "maxDelayTarget": 1}}`})
	e.http.mu.Lock()
	e.http.fails["http://later.example/"] = 1
	e.http.mu.Unlock()
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "hello"})
	eventually(t, 10*time.Second, "the retry", func() bool { _, d := e.http.count("http://later.example/"); return d == 1 })
	e.http.mu.Lock()
	at := e.http.attempts["http://later.example/"]
	e.http.mu.Unlock()
	if gap := at[1].Sub(at[0]); gap < 900*time.Millisecond {
		t.Fatalf("retried after %v, want the policy's 1 s", gap)
	}
}

func TestFIFOTopicToFIFOQueue(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "orders.fifo", map[string]string{"FifoTopic": "true"})
	e.subscribe(t, topic, "sqs", e.createQueue(t, "orders.fifo", map[string]string{"FifoQueue": "true"}), map[string]string{"RawMessageDelivery": "true"})
	e.subscribe(t, topic, "path", "orders.all", nil)
	for i := 0; i < 5; i++ {
		e.publish(t, sns.PublishInput{TopicARN: topic, Message: fmt.Sprint("m", i), MessageGroupID: "g", MessageDeduplicationID: fmt.Sprint("d", i)})
	}
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "dup", MessageGroupID: "g", MessageDeduplicationID: "d2"})
	run(t, e.svc)
	var got []string
	eventually(t, 10*time.Second, "five messages", func() bool {
		for _, m := range e.drain(t, "orders.fifo") {
			got = append(got, m.Body)
		}
		return len(got) >= 5
	})
	if fmt.Sprint(got) != "[m0 m1 m2 m3 m4]" {
		t.Fatalf("queue got %v", got)
	}
	paths := e.paths.get("orders.all")
	if len(paths) != 5 || paths[4].Message != "m4" || paths[0].SequenceNumber == "" || paths[0].MessageGroupID != "g" {
		t.Fatalf("path got %+v", paths)
	}
}

// killable wraps the queue service of a node that can be killed: once dead
// every call fails, as if the process had stopped.
type killable struct {
	sqs.API
	dead     atomic.Bool
	batches  atomic.Int64
	killAt   int64
	delivery string
}

func (k *killable) check(ctx context.Context) error {
	if k.dead.Load() {
		return context.Canceled
	}
	return ctx.Err()
}

func (k *killable) SendMessageBatch(ctx context.Context, c sqs.Caller, in sqs.SendMessageBatchInput) (sqs.SendMessageBatchOutput, error) {
	if err := k.check(ctx); err != nil {
		return sqs.SendMessageBatchOutput{}, err
	}
	out, err := k.API.SendMessageBatch(ctx, c, in)
	if k.batches.Add(1) == k.killAt {
		k.dead.Store(true) // dies right after enqueuing this batch of chunks
	}
	return out, err
}

func (k *killable) SendMessage(ctx context.Context, c sqs.Caller, in sqs.SendMessageInput) (sqs.SendMessageOutput, error) {
	if err := k.check(ctx); err != nil {
		return sqs.SendMessageOutput{}, err
	}
	return k.API.SendMessage(ctx, c, in)
}

func (k *killable) ReceiveMessage(ctx context.Context, c sqs.Caller, in sqs.ReceiveMessageInput) (sqs.ReceiveMessageOutput, error) {
	if err := k.check(ctx); err != nil {
		return sqs.ReceiveMessageOutput{}, err
	}
	return k.API.ReceiveMessage(ctx, c, in)
}

func (k *killable) DeleteMessage(ctx context.Context, c sqs.Caller, in sqs.DeleteMessageInput) error {
	if err := k.check(ctx); err != nil {
		return err
	}
	return k.API.DeleteMessage(ctx, c, in)
}

func (k *killable) ChangeMessageVisibility(ctx context.Context, c sqs.Caller, in sqs.ChangeMessageVisibilityInput) error {
	if err := k.check(ctx); err != nil {
		return err
	}
	return k.API.ChangeMessageVisibility(ctx, c, in)
}

// TestWorkerKilledMidFanOut kills a node after it enqueued part of a
// publish's delivery jobs and before it deleted the publish job; another
// node takes the job over once its visibility times out, and every
// subscriber gets the message at least once.
func TestWorkerKilledMidFanOut(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "emergency", nil)
	const boxes = 60
	for i := 0; i < boxes; i++ {
		if i%2 == 0 {
			e.subscribe(t, topic, "sqs", e.createQueue(t, fmt.Sprint("box", i), nil), map[string]string{"RawMessageDelivery": "true"})
		} else {
			e.subscribe(t, topic, "path", fmt.Sprint("boxes.", i), nil)
		}
	}
	// Node A expands in chunks of 2 (10 chunks per batch) and dies after
	// its second batch: 40 of 60 subscriptions are enqueued.
	k := &killable{API: e.queues, killAt: 2}
	cfgA := e.cfg
	cfgA.Queues, cfgA.ChunkSize, cfgA.Workers = k, 2, 1
	nodeA := e.newNode(t, cfgA)
	run(t, nodeA)
	out := e.publish(t, sns.PublishInput{TopicARN: topic, Message: "evacuate"})
	eventually(t, 5*time.Second, "node A to die", func() bool { return k.dead.Load() })
	if p := nodeA.Stats().Published.Load(); p != 0 {
		t.Fatalf("node A finished %d publish jobs before dying", p)
	}
	// Node B (healthy) takes over after the visibility timeout.
	cfgB := e.cfg
	cfgB.ChunkSize = 7
	nodeB := e.newNode(t, cfgB)
	run(t, nodeB)

	got := map[int]int{}
	eventually(t, 20*time.Second, "every box to get the alert", func() bool {
		for i := 0; i < boxes; i += 2 {
			for _, m := range e.drain(t, fmt.Sprint("box", i)) {
				if m.Body != "evacuate" {
					t.Fatalf("box%d got %q", i, m.Body)
				}
				got[i]++
			}
		}
		for i := 1; i < boxes; i += 2 {
			if n := e.paths.get(fmt.Sprint("boxes.", i)); len(n) > 0 {
				if n[0].MessageID != out.MessageID {
					t.Fatalf("boxes.%d got message %s, want %s", i, n[0].MessageID, out.MessageID)
				}
				got[i] = len(n)
			}
		}
		return len(got) == boxes
	})
	if nodeB.Stats().Published.Load() != 1 {
		t.Fatalf("node B expanded %d publish jobs, want 1", nodeB.Stats().Published.Load())
	}
}

func TestQueueDeliveryToMissingQueueIsDeadLettered(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "t", nil)
	dlq := e.createQueue(t, "dlq", nil)
	e.subscribe(t, topic, "sqs", sqs.QueueARN("us-east-1", account, "never-created"), map[string]string{
		"RawMessageDelivery": "true", "RedrivePolicy": `{"deadLetterTargetArn": "` + dlq + `"}`})
	run(t, e.svc)
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "lost?"})
	var got []sqs.ReceivedMessage
	eventually(t, 5*time.Second, "the dead letter", func() bool { got = append(got, e.drain(t, "dlq")...); return len(got) > 0 })
	if got[0].Body != "lost?" || e.svc.Stats().Retried.Load() != 0 {
		t.Fatalf("dead letter %q, %d retries", got[0].Body, e.svc.Stats().Retried.Load())
	}
}

// A topic larger than one checkpoint is expanded by a chain of
// continuation jobs: every subscription gets the message exactly once, and
// keeps the original's MessageId.
func TestFanOutContinuations(t *testing.T) {
	e := newEnv(t, func(c *sns.Config) { c.ChunkSize = 2 })
	topic := e.createTopic(t, "large", nil)
	const subs = 125 // 63 chunks: 6 continuations
	for i := range subs {
		e.subscribe(t, topic, "path", fmt.Sprintf("large.%d", i), nil)
	}
	run(t, e.svc)
	out := e.publish(t, sns.PublishInput{TopicARN: topic, Message: "all of you"})
	eventually(t, 20*time.Second, "every delivery", func() bool { return e.svc.Stats().Delivered.Load() == subs })
	time.Sleep(200 * time.Millisecond) // room for a stray duplicate to show
	for i := range subs {
		n := e.paths.get(fmt.Sprintf("large.%d", i))
		if len(n) != 1 || n[0].MessageID != out.MessageID {
			t.Fatalf("large.%d got %d notifications (%v), want one with MessageId %s", i, len(n), n, out.MessageID)
		}
	}
	if c := e.svc.Stats().Continued.Load(); c != 6 {
		t.Fatalf("%d continuations, want 6", c)
	}
	if p := e.svc.Stats().Published.Load(); p != 1 {
		t.Fatalf("%d publish jobs counted as expanded, want 1", p)
	}
}

// A worker that dies mid-fan-out makes at most one checkpoint's worth of
// chunks deliver twice (before continuations, every chunk expanded so
// far), besides the delivery jobs it was running.
func TestFanOutDeathDuplicatesAtMostOneCheckpoint(t *testing.T) {
	e := newEnv(t)
	topic := e.createTopic(t, "bounded", nil)
	const subs = 100
	for i := range subs {
		e.subscribe(t, topic, "path", fmt.Sprintf("b.%d", i), nil)
	}
	// Node A expands 2 subscriptions a chunk and dies right after its
	// fourth batch of chunks (80 subscriptions enqueued).
	k := &killable{API: e.queues, killAt: 4}
	cfgA := e.cfg
	cfgA.Queues, cfgA.ChunkSize, cfgA.Workers = k, 2, 1
	nodeA := e.newNode(t, cfgA)
	run(t, nodeA)
	e.publish(t, sns.PublishInput{TopicARN: topic, Message: "once, mostly"})
	eventually(t, 5*time.Second, "node A to die", func() bool { return k.dead.Load() })
	cfgB := e.cfg
	cfgB.ChunkSize = 2
	run(t, e.newNode(t, cfgB))
	total := func() int {
		n := 0
		for i := range subs {
			n += len(e.paths.get(fmt.Sprintf("b.%d", i)))
		}
		return n
	}
	eventually(t, 20*time.Second, "every subscription served", func() bool {
		for i := range subs {
			if len(e.paths.get(fmt.Sprintf("b.%d", i))) == 0 {
				return false
			}
		}
		return true
	})
	time.Sleep(300 * time.Millisecond)
	// What may repeat: the chunks of one checkpoint (10 chunks of 2), and
	// the delivery jobs node A's one delivery worker had received (at most
	// 10 jobs of 2), delivered but not deleted when it died. Before
	// checkpoints, the first bound was every chunk expanded so far (80).
	if dups := total() - subs; dups > 10*2+10*2 {
		t.Fatalf("%d duplicate deliveries after one death; at most 40 may repeat", dups)
	}
}
