package sns_test

import (
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
)

// A subscription's throttlePolicy paces its deliveries; the topic's other
// subscriptions are not slowed, and no delivery is lost or repeated.
func TestThrottlePolicyPacesDeliveries(t *testing.T) {
	e := newEnv(t)
	run(t, e.svc)
	topic := e.createTopic(t, "paced", nil)
	const paced, free = "http://paced.example/", "http://free.example/"
	e.confirmHTTP(t, topic, paced, map[string]string{"DeliveryPolicy": `{"throttlePolicy": {"maxReceivesPerSecond": 4}}`})
	e.confirmHTTP(t, topic, free, nil)
	const n = 8
	for range n {
		e.publish(t, sns.PublishInput{TopicARN: topic, Message: "m"})
	}
	eventually(t, 15*time.Second, "every delivery", func() bool {
		_, p := e.http.count(paced)
		_, f := e.http.count(free)
		return p == n && f == n
	})
	e.http.mu.Lock()
	pacedAt, freeAt := e.http.attempts[paced], e.http.attempts[free]
	e.http.mu.Unlock()
	if len(pacedAt) != n || len(freeAt) != n {
		t.Fatalf("%d attempts to the paced endpoint and %d to the free one, want %d each", len(pacedAt), len(freeAt), n)
	}
	// 4 a second with no burst: the 8th comes at least 7/4 s after the
	// first (less a little for timer rounding).
	pacedSpan, freeSpan := pacedAt[n-1].Sub(pacedAt[0]), freeAt[n-1].Sub(freeAt[0])
	if pacedSpan < 1600*time.Millisecond {
		t.Errorf("paced deliveries spanned %v, want at least 1.75 s at 4/s", pacedSpan)
	}
	if freeSpan > pacedSpan/2 {
		t.Errorf("the unthrottled subscription's deliveries spanned %v, the paced one's %v: the throttle slowed it too", freeSpan, pacedSpan)
	}
	if e.svc.Stats().Throttled.Load() == 0 {
		t.Error("no delivery was queued for a later turn")
	}
}
