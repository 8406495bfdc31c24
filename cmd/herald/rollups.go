package main

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald/amqp"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/rollup"
)

// openRollups returns the rollup service of the embedded engine; nil on
// Cassandra, where rollups are not built yet (issue 14).
// Its consumers of sources.queue read the queues through queues, as the
// rollup's account; its live tiles go to cacheSvc, and rollups naming a
// cache pattern count what events reports stored there.
func openRollups(db cache.Store, cacheSvc *cache.Service, events *eventsWiring, queues *queueService, account string, requireIdentity bool, log *slog.Logger) *rollup.Service {
	st, ok := db.(*pebblestore.DB)
	if !ok {
		return nil
	}
	svc := rollup.NewService(rollup.Config{Store: st.Rollups(), DefaultAccount: account, RequireIdentity: requireIdentity,
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
		h.HandleUnimplemented("rollups run on the embedded engine only for now (--store embedded)", "/v1/rollups", "/v1/rollups/")
		return
	}
	h.SetRollups(svc)
	st := &svc.Stats
	const events = "herald_rollup_events_total"
	const help = "Rollup events by outcome: accepted (counted), duplicate (already counted within the dedup window), malformed, late (older than the dedup window or ahead of the clock)."
	counter := func(name, help, outcome string, v *atomic.Int64) prometheus.Collector {
		opts := prometheus.CounterOpts{Name: name, Help: help}
		if outcome != "" {
			opts.ConstLabels = prometheus.Labels{"outcome": outcome}
		}
		return prometheus.NewCounterFunc(opts, func() float64 { return float64(v.Load()) })
	}
	reg.MustRegister(
		counter(events, help, "accepted", &st.Accepted),
		counter(events, help, "duplicate", &st.Duplicates),
		counter(events, help, "malformed", &st.Malformed),
		counter(events, help, "late", &st.Late),
		counter("herald_rollup_expired_buckets_total", "Rollup (event, scope, period) updates skipped because the bucket was past its retention.", "", &st.Expired),
		counter("herald_rollup_commits_total", "Rollup batches committed.", "", &st.Commits),
		counter("herald_rollup_tiles_total", "Live tiles written to the message cache.", "", &st.Tiles),
		counter("herald_rollup_firings_total", "Trigger firings published.", "", &st.Fired),
		counter("herald_rollup_firing_failures_total", "Attempts to publish a trigger firing that failed (retried).", "", &st.FiringsFailed),
		counter("herald_rollup_cache_dropped_total", "Cache messages not counted because a rollup's buffer was full.", "", &st.Dropped),
	)
}
