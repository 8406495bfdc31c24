package main

import (
	"context"
	"fmt"
	"github.com/heraldmq/herald/limits"
	"github.com/heraldmq/herald/sns"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald/awsapi"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/redisindex"
	"github.com/heraldmq/herald/sqs"
)

// queueService is the SQS service wired to the engine's queue store,
// Index and Notifier.
type queueService struct {
	svc    *sqs.Service
	closer func()
}

// openQueues builds the SQS service on e: on the embedded engine its
// queues live in the same Pebble store with the Index in process; on
// Cassandra the Index and the long-poll wake-ups live in Redis.
func openQueues(e *engine, cfg awsConfig, log *slog.Logger) (*queueService, error) {
	if err := cfg.limits.Check(); err != nil {
		return nil, fmt.Errorf("--sqs-limit: %w", err)
	}
	secret := []byte(cfg.receiptSecret)
	switch {
	case len(secret) == 0 && e.receiptSecret != nil:
		secret = e.receiptSecret // the embedded store's own, kept in it
	case len(secret) == 0:
		log.Warn("SQS receipt handles are keyed without a secret: a client holding one handle can build others for its queue; set the same --sqs-receipt-secret on every node")
	}
	// The default account (--aws-account) is the operator's: its callers
	// may bump the index epoch (POST /v1/admin/sqs/reindex).
	sqsCfg := sqs.Config{Limits: cfg.limits.Limits, Region: cfg.region, Shards: int(cfg.shards), ReceiptHandleSecret: secret, Logger: log,
		IndexEpochs: e.indexEpochs, OperatorAccount: cfg.account, DC: e.dc}
	svc := sqs.NewService(e.queues, e.index, e.notifier, sqsCfg)
	return &queueService{svc: svc, closer: func() { svc.Close() }}, nil
}

// awsHandler is the AWS edge over the queue service, checking signatures
// when access keys are configured.
func awsHandler(q *queueService, t *topicService, creds credentials, cfg awsConfig, lim *limits.Limiter, m *metrics.Metrics, log *slog.Logger) (*awsapi.Handler, error) {
	regions, err := cfg.servedRegions()
	if err != nil {
		return nil, err
	}
	return awsapi.New(awsapi.Config{
		Regions: regions,
		SQS:     sqs.Limited(q.svc, lim), SNS: awsapi.NewSNSService(sns.Limited(t.svc, lim), log), Verifier: creds.verifier, KeyAccounts: creds.keyAccounts,
		DefaultAccount: cfg.account, Logger: log, Observe: m.ObserveAWS, Exhausted: lim.Exhausted,
	}), nil
}

// runQueues runs the queue service's background work until ctx ends.
func (q *queueService) run(ctx context.Context) { q.svc.Run(ctx) }

// registerQueueMetrics exposes the queue service's rebuilds, degraded
// receives and, on Cassandra, the Redis circuit breaker.
func registerQueueMetrics(reg prometheus.Registerer, q *queueService, b *redisindex.Breaker, dcNames []string) {
	st := q.svc.Stats()
	const reconciled = "herald_sqs_reconciled_total"
	const reconciledHelp = "Divergences between a queue's Index and its Store repaired, by kind: store_only (a stored message the Index lacked, added by the reconciler), index_only (an Index entry whose message was gone, removed)."
	const rebuilds = "herald_sqs_rebuilds_total"
	const rebuildsHelp = "Rebuilds of a queue's Index state from the Store, by outcome: committed, lease_lost (discarded: the lease ended meanwhile, and the queue is rebuilt again), failed."
	reg.MustRegister(
		metrics.Counter(rebuilds, rebuildsHelp, prometheus.Labels{"outcome": "committed"}, &st.RebuildsCommitted),
		metrics.Counter(rebuilds, rebuildsHelp, prometheus.Labels{"outcome": "lease_lost"}, &st.RebuildsLost),
		metrics.Counter(rebuilds, rebuildsHelp, prometheus.Labels{"outcome": "failed"}, &st.RebuildsFailed),
		metrics.Counter("herald_sqs_rebuilds_resumed_total", "Rebuilds that went on from the position an earlier, interrupted rebuild of the same Index state saved, instead of from the start.", nil, &st.RebuildsResumed),
		metrics.CounterOf("herald_sqs_rebuild_seconds_total", "Time spent rebuilding queues' Index state.", nil,
			func() float64 { return float64(st.RebuildNanos.Load()) / 1e9 }),
		metrics.Counter("herald_sqs_degraded_receives_total", "Receives served from the Store because the Index (Redis) was unavailable.", nil, &st.DegradedReceives),
		metrics.Counter("herald_sqs_unindexed_total", "Sends whose Index write failed; their queue is rebuilt from the Store.", nil, &st.Unindexed),
		metrics.Counter(reconciled, reconciledHelp, prometheus.Labels{"kind": "store_only"}, &st.ReconciledStoreOnly),
		metrics.Counter(reconciled, reconciledHelp, prometheus.Labels{"kind": "index_only"}, &st.ReconciledIndexOnly),
		metrics.GaugeOf("herald_sqs_reconcile_pending_queues", "Queues waiting for (or in) a reconciliation pass on this node.", nil,
			func() float64 { return float64(q.svc.ReconcilePending()) }),
		metrics.DCFenced(dcNames, q.svc.FencedDCs),
		metrics.Counter("herald_dc_takeovers_total", "Data centers fenced through this node (herald dc fence): their queues taken over by this node's data center.", nil, &st.Fences),
		metrics.Counter("herald_dc_unfences_total", "Data centers unfenced through this node (herald dc unfence): their queues given back.", nil, &st.Unfences),
		metrics.GaugeOf("herald_sqs_index_epoch", "The index epoch of this node's data center as the node last read it: its queues' Redis state must carry it (herald sqs-reindex bumps it). 0 on the embedded engine.", nil,
			func() float64 { return float64(q.svc.IndexEpoch()) }),
	)
	if b != nil {
		reg.MustRegister(
			metrics.Flag("herald_redis_degraded", "1 while the Redis circuit breaker is open (degraded mode: queues served from the Store).", nil, b.Degraded.Load),
			metrics.Counter("herald_redis_breaker_opens_total", "Times the Redis circuit breaker opened (entered degraded mode).", nil, &b.Opens),
			metrics.Counter("herald_redis_fast_failures_total", "Calls to Redis refused at once while the circuit breaker was open.", nil, &b.FastFails),
		)
	}
}
