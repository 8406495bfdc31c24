package main

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald/amqp"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/metrics"
)

// eventsWiring is the fan-out of stored messages this node uses: in
// process without --amqp-url; through RabbitMQ with it, plus the ingest
// consumer.
type eventsWiring struct {
	events cache.Events
	links  *amqp.Links   // nil without RabbitMQ
	amqp   *amqp.Options // nil without RabbitMQ
	close  func()
}

// components is the events' part of /healthz: RabbitMQ's connections when
// it is used ("ok", or "reconnecting" while one of them is down; events
// are buffered meanwhile).
func (w *eventsWiring) components() map[string]string {
	if w.links == nil {
		return nil
	}
	if down := w.links.Down(); len(down) > 0 {
		return map[string]string{"rabbitmq": "reconnecting (" + strings.Join(down, ", ") + ")"}
	}
	return map[string]string{"rabbitmq": "ok"}
}

// openEvents builds the Events and, with AMQP, starts ingesting into svc.
func openEvents(cfg amqpConfig, svc *cache.Service, reg prometheus.Registerer, log *slog.Logger) (*eventsWiring, error) {
	if cfg.url == "" {
		local := cache.NewLocalEvents(cache.LocalEventsOptions{Logger: log})
		return &eventsWiring{events: local, close: func() { local.Close() }}, nil
	}
	opts := amqp.Options{
		URL: cfg.url, IngestExchange: cfg.ingestExchange, IngestQueue: cfg.ingestQueue,
		DLX: cfg.dlx, DeadQueue: strings.TrimSuffix(cfg.dlx, ".dlx") + ".dead",
		EventsExchange: cfg.eventsExchange, RollupExchange: cfg.rollupExchange, Prefetch: cfg.prefetch, PublishBuffer: cfg.publishBuffer,
		Logger: log, Links: &amqp.Links{},
	}
	ev, err := amqp.NewEvents(opts)
	if err != nil {
		return nil, err
	}
	ingest, err := amqp.NewIngest(opts, svc)
	if err != nil {
		closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ev.Close(closeCtx)
		return nil, err
	}
	registerAMQPMetrics(reg, ev, ingest, opts.Links)
	return &eventsWiring{events: ev, links: opts.Links, amqp: &opts, close: func() {
		ingest.Close()
		// Give buffered events a few seconds to be confirmed by RabbitMQ.
		closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := ev.Close(closeCtx); err != nil {
			log.Warn("closing the event stream", "err", err)
		}
	}}, nil
}

// registerAMQPMetrics exposes the bridge's counters and its event buffer.
func registerAMQPMetrics(reg prometheus.Registerer, ev *amqp.Events, in *amqp.Ingest, links *amqp.Links) {
	for _, role := range []string{"events publisher", "events consumer", "ingest consumer"} {
		reg.MustRegister(metrics.Flag("herald_amqp_connected", "1 while this node's RabbitMQ connection of the role is up.",
			prometheus.Labels{"role": strings.ReplaceAll(role, " ", "_")}, func() bool { return links.Up()[role] }))
	}
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return metrics.GaugeOf(name, help, nil, f)
	}
	counter := func(name, help string, f func() float64) prometheus.Collector {
		return metrics.CounterOf(name, help, nil, f)
	}
	reg.MustRegister(
		gauge("herald_amqp_events_buffered", "Events accepted but not yet confirmed by RabbitMQ.", func() float64 { return float64(ev.Stats().Buffered) }),
		gauge("herald_amqp_events_buffer_capacity", "Events that may be buffered before puts wait.", func() float64 { return float64(ev.Stats().Capacity) }),
		counter("herald_amqp_events_confirmed_total", "Events RabbitMQ confirmed.", func() float64 { return float64(ev.Stats().Confirmed) }),
		counter("herald_amqp_events_republished_total", "Events published again after a connection loss.", func() float64 { return float64(ev.Stats().Republished) }),
		counter("herald_amqp_events_resumes_total", "Times this node's event feed resumed after an interruption its live subscribers missed events in (WebSocket connections holding subscriptions are then closed with 4009).", func() float64 { return float64(ev.Stats().Resumes) }),
		counter("herald_amqp_events_blocked_total", "Publishes that waited for room in the event buffer (back-pressure).", func() float64 { return float64(ev.Stats().Blocked) }),
		counter("herald_amqp_ingest_stored_total", "Ingested messages newly stored.", func() float64 { return float64(in.Stats().Stored) }),
		counter("herald_amqp_ingest_requeued_total", "Ingest deliveries requeued for a later retry.", func() float64 { return float64(in.Stats().Requeued) }),
		counter("herald_amqp_ingest_dead_lettered_total", "Invalid ingested messages sent to the dead-letter exchange.", func() float64 { return float64(in.Stats().DeadLettered) }),
		counter("herald_amqp_ingest_throttled_total", "Ingested messages sent to the dead-letter exchange for being over the AMQP door's rate limit (also counted as dead-lettered).", func() float64 { return float64(in.Stats().Throttled) }),
	)
}
