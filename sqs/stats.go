package sqs

import "sync/atomic"

// Stats counts what a Service did that an operator watches: rebuilds of
// queues' Index state from the Store and the time they took, receives
// served from the Store while the Index was unavailable (degraded mode),
// and sends whose Index write failed (their queue marked unindexed, to be
// rebuilt).
type Stats struct {
	RebuildsCommitted atomic.Int64 // rebuilds that marked their queue built
	RebuildsLost      atomic.Int64 // rebuilds discarded: their lease ended meanwhile (ErrLeaseLost)
	RebuildsFailed    atomic.Int64 // rebuilds ended by an Index or Store error
	RebuildsResumed   atomic.Int64 // rebuilds that went on from an earlier one's saved position
	RebuildNanos      atomic.Int64 // time spent rebuilding, in all
	DegradedReceives  atomic.Int64 // receives served from the Store (Index unavailable)
	Unindexed         atomic.Int64 // sends whose Index write failed
	Fences            atomic.Int64 // data centers fenced through this node (FenceDC)
	Unfences          atomic.Int64 // data centers unfenced through this node (UnfenceDC)

	ReconciledStoreOnly atomic.Int64 // stored messages the reconciler found missing from the Index and added
	ReconciledIndexOnly atomic.Int64 // Index entries whose message was gone from the Store, removed on receive

	MessagesSent         atomic.Int64 // messages sent (not deduplicated away)
	MessagesReceived     atomic.Int64 // messages handed out by ReceiveMessage
	MessagesDeleted      atomic.Int64 // messages deleted by DeleteMessage(Batch)
	MessagesDeadLettered atomic.Int64 // messages moved to a dead-letter queue after maxReceiveCount
}

// ReconcilePending is how many queues wait for (or are in) a
// reconciliation pass on this node.
func (s *Service) ReconcilePending() int { return s.reconcile.pendingQueues() }

// Stats returns the Service's counters.
func (s *Service) Stats() *Stats { return &s.stats }
