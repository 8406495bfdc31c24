package sns_test

import (
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
)

// TestSubscriptionDeliveries: a subscription's deliveries are counted, and
// only its topic's readers see them.
func TestSubscriptionDeliveries(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc)
	topic := e.createTopic(t, "counted", nil)
	sub := e.subscribe(t, topic, "sqs", e.createQueue(t, "counted-q", nil), nil)
	for range 3 {
		e.publish(t, sns.PublishInput{TopicARN: topic, Message: "m"})
	}
	var got sns.SubscriptionDeliveries
	eventually(t, 10*time.Second, "3 deliveries", func() bool {
		var err error
		got, err = e.svc.SubscriptionDeliveries(e.ctx, caller, sub)
		wantCode(t, err, "")
		return got.Delivered == 3
	})
	if got.Failed != 0 || got.Retried != 0 {
		t.Fatalf("counts %+v, want 3 delivered only", got)
	}
	_, err := e.svc.SubscriptionDeliveries(e.ctx, other, sub)
	if err == nil {
		t.Fatal("another account read the subscription's counts")
	}
}
