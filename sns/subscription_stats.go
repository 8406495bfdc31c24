package sns

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
)

// subscriptionStats are this node's delivery counts per subscription,
// since it started, for the console (a cluster's other nodes count their
// own deliveries). A subscription is counted from its first attempt.
type subscriptionStats struct {
	m sync.Map // uuid.UUID -> *deliveryCounts
}

// deliveryCounts are one subscription's counts.
type deliveryCounts struct {
	delivered, failed, retried atomic.Int64
}

func (s *subscriptionStats) of(id uuid.UUID) *deliveryCounts {
	if v, ok := s.m.Load(id); ok {
		return v.(*deliveryCounts)
	}
	v, _ := s.m.LoadOrStore(id, &deliveryCounts{})
	return v.(*deliveryCounts)
}

// SubscriptionDeliveries are a subscription's delivery counts on this node
// since it started: delivered, retries scheduled, and given up (failed:
// dropped or sent to its dead-letter queue).
type SubscriptionDeliveries struct {
	Delivered, Retried, Failed int64
}

// SubscriptionDeliveries reads the counts of the subscription arn, whose
// topic c may read (as GetSubscriptionAttributes).
func (s *Service) SubscriptionDeliveries(ctx context.Context, c Caller, arn string) (SubscriptionDeliveries, error) {
	_, sub, e := s.lookupSubscription(ctx, c, arn, "GetSubscriptionAttributes")
	if e != nil {
		return SubscriptionDeliveries{}, e
	}
	n := s.subStats.of(sub.ID)
	return SubscriptionDeliveries{Delivered: n.delivered.Load(), Retried: n.retried.Load(), Failed: n.failed.Load()}, nil
}
