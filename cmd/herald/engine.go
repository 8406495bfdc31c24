package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/limits"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/redisindex"
	"github.com/heraldmq/herald/rollup"
	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

// engine is one storage engine's stores and what serve needs to know of
// it, built by openEngine (engine_embedded.go, engine_cassandra.go). The
// rest of serve wires the services over these fields and never looks at
// the engine's concrete types, so decorators (instrument) wrap every store
// alike.
type engine struct {
	name     string
	cache    cache.Store
	queues   sqs.Store
	index    sqs.Index
	notifier sqs.Notifier
	// indexEpochs is the data center's index epoch (Cassandra); nil on
	// the embedded engine, whose Index is in the process.
	indexEpochs sqs.IndexEpochs
	// dc places queues in data centers (--dc-peer-redis); zero in one.
	dc sqs.DCConfig
	// dcNames are the data centers this node knows (--cassandra-local-dc
	// and --dc-peer-redis), sorted; none in one data center.
	dcNames []string
	topics  sns.Store
	rollups rollup.Store
	// rollupShards is the commit shards of a new rollup whose
	// definition does not say (--rollup-commit-shards, or the engine's
	// default).
	rollupShards int

	ready     func(context.Context) error                 // nil: ready once open
	diskUsage func(context.Context) (uint64, error)       // nil: unknown (Cassandra)
	backup    func(ctx context.Context, dir string) error // nil: use the engine's own tools
	// collectors export the engine's own figures on /metrics (Pebble's
	// WAL fsyncs, flushes, compactions); none on Cassandra.
	collectors []prometheus.Collector
	// receiptSecret keys SQS receipt handles when --sqs-receipt-secret is
	// not set: made once and kept in the embedded store; nil on Cassandra,
	// whose nodes must be given one.
	receiptSecret []byte
	breaker       *redisindex.Breaker // nil without Redis
	// sharedLimits keeps the buckets of rate limits for every node of
	// the data center (Redis); nil on the embedded engine, one node.
	sharedLimits limits.Shared
	// settings keeps the rate limits set at run time for every node.
	settings limits.Store
	close    func() // after the services are closed
}

// openEngine opens the configured engine.
func openEngine(ctx context.Context, c storeConfig, aws awsConfig, log *slog.Logger) (*engine, error) {
	switch c.engine {
	case "embedded":
		return openEmbedded(c, log)
	case "cassandra":
		return openCassandra(ctx, c, aws, log)
	}
	return nil, fmt.Errorf("--store %q: the engines are embedded and cassandra", c.engine)
}

// instrument wraps the engine's cache store, queue store and SQS Index
// with metrics decorators that time every operation.
func (e *engine) instrument(m *metrics.Metrics) {
	e.cache = metrics.InstrumentCacheStore(e.cache, m)
	e.queues = metrics.InstrumentQueueStore(e.queues, m)
	e.index = metrics.InstrumentIndex(e.index, m)
}

// components is the engine's part of /healthz: Redis's state when queues
// use it.
func (e *engine) components() map[string]string {
	if e.breaker == nil {
		return nil
	}
	if e.breaker.Degraded.Load() {
		return map[string]string{"redis": "degraded"}
	}
	return map[string]string{"redis": "ok"}
}
