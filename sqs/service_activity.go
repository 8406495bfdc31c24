package sqs

import (
	"context"
	"time"
)

// QueueActivity is what the console shows of a queue beyond its
// attributes: the age of its oldest stored message and what this node
// counted since it started (a cluster's other nodes count their own).
type QueueActivity struct {
	OldestAge                             time.Duration // 0 when the queue is empty
	Sent, Received, Deleted, DeadLettered int64
}

// QueueActivity reads the queue's activity, authorized as
// GetQueueAttributes: one Store read per shard for the oldest message (the
// counts are GetQueueAttributes' to read).
func (s *Service) QueueActivity(ctx context.Context, c Caller, queueURL string) (QueueActivity, error) {
	q, err := s.queueFor(ctx, c, ActGetQueueAttributes, queueURL)
	if err != nil {
		return QueueActivity{}, err
	}
	oldest, err := s.oldestSentAt(ctx, q)
	if err != nil {
		return QueueActivity{}, AsError(err)
	}
	a := s.track(q)
	now := s.now()
	out := QueueActivity{Sent: a.sent.Load(), Received: a.received.Load(), Deleted: a.deleted.Load(), DeadLettered: a.deadLettered.Load()}
	if !oldest.IsZero() {
		out.OldestAge = max(now.Sub(oldest), 0)
	}
	return out, nil
}
