package main

import (
	"context"
	"github.com/heraldmq/herald/limits"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald/amqp"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/rollup"
)

// openRollups returns the rollup service on the engine's rollup store (both
// engines have one); nil for an engine without.
// Its consumers of sources.queue read the queues through queues, as the
// rollup's account; its live tiles go to cacheSvc, and rollups naming a
// cache pattern count what events reports stored there.
func openRollups(e *engine, cacheSvc *cache.Service, events *eventsWiring, queues *queueService, account string, requireIdentity bool, lim *limits.Limiter, log *slog.Logger) *rollup.Service {
	if e.rollups == nil {
		return nil
	}
	svc := rollup.NewService(rollup.Config{Store: e.rollups, DefaultAccount: account, RequireIdentity: requireIdentity, Limits: lim, CommitShards: e.rollupShards,
		Queues: queues.svc, Cache: cacheSvc, Events: events.events, CacheReader: cacheSvc, Logger: log})
	if events.amqp != nil {
		opts := *events.amqp
		opts.Links = nil // a rollup's feed is not one of the node's RabbitMQ links on /healthz
		svc.SetAMQPFeed(func(ctx context.Context, d *rollup.Definition) error {
			return amqp.FeedRollup(ctx, opts, "herald.rollup."+d.ID.String(), d.Sources.AMQPRoutingKey,
				func(ctx context.Context, body []byte) error {
					return svc.IngestNotification(ctx, d.Account, d.Name, string(body))
				})
		})
	}
	return svc
}

// serveRollups routes the rollup API to svc, or answers 501 on every
// rollup route when there is none.
func serveRollups(h *httpapi.Server, svc *rollup.Service, reg prometheus.Registerer) {
	if svc == nil {
		h.HandleUnimplemented("this store keeps no rollups", "/v1/rollups", "/v1/rollups/")
		return
	}
	h.SetRollups(svc)
	st := &svc.Stats
	const events = "herald_rollup_events_total"
	const help = "Rollup events by outcome: accepted (counted), duplicate (already counted within the dedup window), malformed, late (older than the dedup window or ahead of the clock)."
	reg.MustRegister(
		metrics.Outcome(events, help, "accepted", &st.Accepted),
		metrics.Outcome(events, help, "duplicate", &st.Duplicates),
		metrics.Outcome(events, help, "malformed", &st.Malformed),
		metrics.Outcome(events, help, "late", &st.Late),
		metrics.Counter("herald_rollup_expired_buckets_total", "Rollup (event, scope, period) updates skipped because the bucket was past its retention.", nil, &st.Expired),
		metrics.Counter("herald_rollup_commits_total", "Rollup batches committed.", nil, &st.Commits),
		metrics.Counter("herald_rollup_raced_events_total", "Rollup events another writer committed while a batch holding them was being committed (dropped as duplicates; the rest of the batch committed again).", nil, &st.Raced),
		metrics.Counter("herald_rollup_tiles_total", "Live tiles written to the message cache.", nil, &st.Tiles),
		metrics.Counter("herald_rollup_firings_total", "Trigger firings published.", nil, &st.Fired),
		metrics.Counter("herald_rollup_firing_failures_total", "Attempts to publish a trigger firing that failed (retried).", nil, &st.FiringsFailed),
		metrics.Counter("herald_rollup_cache_dropped_total", "Cache messages not counted because a rollup's buffer was full.", nil, &st.Dropped),
	)
}
