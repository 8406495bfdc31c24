package sns

import (
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"
)

// Throttling: a delivery policy's throttlePolicy.maxReceivesPerSecond
// paces the deliveries to an http/https subscription. Each node keeps a
// token bucket per subscription (golang.org/x/time/rate, burst 1) and
// reserves every delivery's turn in it. A delivery whose turn is near
// waits for it; one whose turn is further away goes back on the delivery
// queue to run then, marked as already paced, so that a backlog holds no
// worker. Nodes pace independently: N nodes may deliver up to N times the
// rate to one endpoint.

// maxThrottleWait is the longest a worker waits for a delivery's turn;
// later turns are queued.
const maxThrottleWait = 500 * time.Millisecond

// maxThrottles bounds the buckets kept; past it, idle ones are dropped.
const maxThrottles = 10000

type throttles struct {
	mu    sync.Mutex
	subs  map[uuid.UUID]*throttle
	rates map[[2]string]int // receives per second by (topic policy, subscription policy)
}

type throttle struct {
	lim  *rate.Limiter
	used time.Time
}

// rate returns the receives per second that policies allow a subscription
// with these topic and subscription delivery policies; 0 means no limit.
func (t *throttles) rate(policies DeliveryPolicies, topicPolicy, subPolicy string) int {
	if topicPolicy == "" && subPolicy == "" {
		return 0
	}
	key := [2]string{topicPolicy, subPolicy}
	t.mu.Lock()
	n, ok := t.rates[key]
	t.mu.Unlock()
	if ok {
		return n
	}
	if p, _, err := policies.Effective(topicPolicy, subPolicy); err == nil {
		if dp, ok := p.(DeliveryPolicy); ok {
			n = dp.MaxReceivesPerSecond
		}
	}
	t.mu.Lock()
	if t.rates == nil || len(t.rates) >= maxThrottles {
		t.rates = map[[2]string]int{}
	}
	t.rates[key] = n
	t.mu.Unlock()
	return n
}

// reserve takes the next turn of subscription sub at perSecond deliveries
// a second and returns how long from now it is.
func (t *throttles) reserve(sub uuid.UUID, perSecond int, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.subs == nil {
		t.subs = map[uuid.UUID]*throttle{}
	}
	th := t.subs[sub]
	if th == nil || th.lim.Limit() != rate.Limit(perSecond) {
		if len(t.subs) >= maxThrottles {
			for id, old := range t.subs {
				if now.Sub(old.used) > time.Minute {
					delete(t.subs, id)
				}
			}
		}
		th = &throttle{lim: rate.NewLimiter(rate.Limit(perSecond), 1)}
		t.subs[sub] = th
	}
	th.used = now
	return th.lim.ReserveN(now, 1).DelayFrom(now)
}

// throttleDelay is how long sub's delivery of dj must wait for its turn
// under its delivery policy's throttle; 0 for none.
func (s *Service) throttleDelay(dj *deliveryJob, sub jobSub) time.Duration {
	if dj.Paced || (sub.Protocol != ProtocolHTTP && sub.Protocol != ProtocolHTTPS) {
		return 0
	}
	n := s.throttles.rate(s.cfg.DeliveryPolicies, dj.TopicPolicy, sub.Attrs[AttrDeliveryPolicy])
	if n <= 0 {
		return 0
	}
	return s.throttles.reserve(sub.ID, n, s.now())
}
