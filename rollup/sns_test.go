package rollup_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/heraldmq/herald/rollup"
	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snsmem"
	"github.com/heraldmq/herald/sqs"
)

var _ sns.RollupIngester = (*rollup.Service)(nil)

// TestTopicFeedsARollup: a topic's subscription with protocol "rollup"
// counts the events of every message published, each once, though every
// message is published twice.
func TestTopicFeedsARollup(t *testing.T) {
	e := newQueueEnv(t)
	topics := sns.NewService(snsmem.NewStore(), sns.Config{Queues: e.queues, Rollups: e.svc, Workers: 2, PollWait: time.Second,
		PublishVisibility: 2 * time.Second, DeliveryVisibility: 2 * time.Second})
	t.Cleanup(func() { topics.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { topics.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	if _, _, err := e.svc.Put(e.ctx, "plays", []byte(`{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]],
		"metrics": ["plays"], "periods": [{"unit": "all"}]}`)); err != nil {
		t.Fatal(err)
	}
	snsCaller := sns.Caller{Account: account}
	topic, err := topics.CreateTopic(e.ctx, snsCaller, sns.CreateTopicInput{Name: "views"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := topics.Subscribe(e.ctx, snsCaller, sns.SubscribeInput{TopicARN: topic, Protocol: sns.ProtocolRollup, Endpoint: "plays"}); err != nil {
		t.Fatal(err)
	}
	if _, err := topics.Subscribe(e.ctx, snsCaller, sns.SubscribeInput{TopicARN: topic, Protocol: sns.ProtocolRollup, Endpoint: "999999999999/plays"}); err == nil {
		t.Fatal("subscribed another account's rollup")
	}
	var want int64
	for i := range 20 {
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprint(i), "time": time.Now().UTC().Format(time.RFC3339), "channel": "c", "plays": i})
		want += int64(i)
		for range 2 {
			if _, err := topics.Publish(e.ctx, snsCaller, sns.PublishInput{TopicARN: topic, Message: string(b)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.waitTotal(t, "c", want)
}

// TestTriggerReachesAQueue: a trigger's firing is published to its topic
// once, and reaches an SQS queue subscribed to it, with the rollup, row,
// bucket, value, threshold and a stable firing ID.
func TestTriggerReachesAQueue(t *testing.T) {
	e := newQueueEnv(t)
	topics := sns.NewService(snsmem.NewStore(), sns.Config{Queues: e.queues, Rollups: e.svc, Workers: 2, PollWait: time.Second,
		PublishVisibility: 2 * time.Second, DeliveryVisibility: 2 * time.Second})
	t.Cleanup(func() { topics.Close() })
	e.svc.SetPublisher(topics)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { topics.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	e.run(t)

	snsCaller := sns.Caller{Account: account}
	topic, err := topics.CreateTopic(e.ctx, snsCaller, sns.CreateTopicInput{Name: "alerts"})
	if err != nil {
		t.Fatal(err)
	}
	url := e.createQueue(t, "alerts", nil)
	attrs, err := e.queues.GetQueueAttributes(e.ctx, owner, sqs.GetQueueAttributesInput{QueueURL: url, AttributeNames: []string{"QueueArn"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := topics.Subscribe(e.ctx, snsCaller, sns.SubscribeInput{TopicARN: topic, Protocol: sns.ProtocolSQS, Endpoint: attrs["QueueArn"],
		Attributes: map[string]string{"RawMessageDelivery": "true"}}); err != nil {
		t.Fatal(err)
	}
	def := fmt.Sprintf(`{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]], "metrics": ["plays"],
		"periods": [{"unit": "day"}, {"unit": "all"}],
		"triggers": [{"id": "ten", "metric": "plays", "scope": {"channel": "*"}, "unit": "all", "threshold": 10, "topic_arn": %q}]}`, topic)
	if _, _, err := e.svc.Put(e.ctx, "plays", []byte(def)); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		b := fmt.Sprintf(`{"id": "%d", "time": %q, "channel": "c", "plays": 3}`, i, time.Now().UTC().Format(time.RFC3339))
		for range 2 { // every event twice
			if _, err := e.svc.Ingest(e.ctx, "plays", []byte(b)); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []string
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && (len(got) == 0 || time.Until(deadline) > 12*time.Second) {
		maxN, wait := 10, 1
		out, err := e.queues.ReceiveMessage(e.ctx, owner, sqs.ReceiveMessageInput{QueueURL: url, MaxNumberOfMessages: &maxN, WaitTimeSeconds: &wait})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			got = append(got, m.Body)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d notifications, want 1: %q", len(got), got)
	}
	var f rollup.Firing
	if err := json.Unmarshal([]byte(got[0]), &f); err != nil {
		t.Fatalf("notification %q: %v", got[0], err)
	}
	if f.Rollup != "plays" || f.Trigger != "ten" || f.Total != 12 || f.Threshold != 10 || f.Scope[0] != "c" || f.Unit != rollup.All || f.ID == "" {
		t.Fatalf("firing = %+v", f)
	}
	if e.svc.Stats.Fired.Load() != 1 {
		t.Fatalf("Fired = %d", e.svc.Stats.Fired.Load())
	}
}
