package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald/awsapi"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/cassandrastore"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/redisindex"
	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

// queueService is the SQS service wired to the chosen engine, and what must
// be closed after it.
type queueService struct {
	svc    *sqs.Service
	closer func()
}

// openQueues builds the SQS service on db: on the embedded engine its
// queues live in the same Pebble store with the Index in process; on
// Cassandra the Index and the long-poll wake-ups live in Redis.
func openQueues(db cache.Store, cfg awsConfig, log *slog.Logger) (*queueService, error) {
	sqsCfg := sqs.Config{Limits: cfg.limits.Limits, Region: cfg.region, ReceiptHandleSecret: []byte(cfg.receiptSecret)}
	switch st := db.(type) {
	case *pebblestore.DB:
		svc := sqs.NewService(st.Queues(), sqsmem.NewIndex(sqsmem.IndexOptions{}), sqsmem.NewNotifier(), sqsCfg)
		return &queueService{svc: svc, closer: func() { svc.Close() }}, nil
	case *cassandrastore.Store:
		// Short deadlines on every call: a Redis that stops answering sends
		// Herald to its degraded mode quickly instead of stalling requests.
		// Several addresses are the nodes of a Redis Cluster.
		ro := redisindex.ClientOptions(strings.Split(cfg.redisAddr, ",")...)
		ro.Password, ro.DB = cfg.redisPassword, cfg.redisDB
		client := redis.NewUniversalClient(ro)
		opts := redisindex.Options{Prefix: cfg.redisPrefix}
		notifier := redisindex.NewNotifier(client, opts)
		svc := sqs.NewService(st.Queues(), redisindex.New(client, opts), notifier, sqsCfg)
		return &queueService{svc: svc, closer: func() {
			svc.Close()
			notifier.Close()
			client.Close()
		}}, nil
	}
	return nil, fmt.Errorf("no queue service for store %T", db)
}

// awsHandler is the AWS edge over the queue service, checking signatures
// when access keys are configured.
func awsHandler(q *queueService, t *topicService, creds credentials, cfg awsConfig, m *metrics.Metrics, log *slog.Logger) (*awsapi.Handler, error) {
	regions, err := cfg.servedRegions()
	if err != nil {
		return nil, err
	}
	return awsapi.New(awsapi.Config{
		Regions: regions,
		SQS:     q.svc, SNS: awsapi.NewSNSService(t.svc, log), Verifier: creds.verifier, KeyAccounts: creds.keyAccounts,
		DefaultAccount: cfg.account, Logger: log, Observe: m.ObserveAWS,
	}), nil
}

// runQueues runs the queue service's background work until ctx ends.
func (q *queueService) run(ctx context.Context) { q.svc.Run(ctx) }
