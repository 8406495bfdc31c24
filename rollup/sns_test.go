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
