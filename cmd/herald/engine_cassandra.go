package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald/cassandrastore"
	"github.com/heraldmq/herald/redisindex"
)

// openCassandra opens the Cassandra engine: the data in Cassandra, the SQS
// Index and long-poll wake-ups in Redis. It returns at once: Cassandra is
// connected in the background, and until it is (and whenever it is
// unreachable) requests get 503 while the engine keeps trying.
func openCassandra(ctx context.Context, c storeConfig, aws awsConfig, log *slog.Logger) (*engine, error) {
	repl, err := parseReplication(c.cassandraReplication)
	if err != nil {
		return nil, err
	}
	var hosts []string
	for _, h := range strings.Split(c.cassandraHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	st, err := cassandrastore.Open(ctx, cassandrastore.Options{
		Hosts: hosts, Keyspace: c.cassandraKeyspace, Replication: repl,
		Consistency: c.cassandraConsistency, WriteConsistency: c.writeConsistency(), LocalDC: c.cassandraLocalDC,
		Username: c.cassandraUsername, Password: c.cassandraPassword,
		Timeout: c.cassandraTimeout, Logger: log,
	})
	if err != nil {
		return nil, fmt.Errorf("cassandra store: %w", err)
	}
	// Short deadlines on every call: a Redis that stops answering sends
	// Herald to its degraded mode quickly instead of stalling requests.
	// Several addresses are the nodes of a Redis Cluster.
	ro := redisindex.ClientOptions(strings.Split(aws.redisAddr, ",")...)
	ro.Password, ro.DB = aws.redisPassword, aws.redisDB
	client := redis.NewUniversalClient(ro)
	// One circuit breaker for the Index and the Notifier: after a few
	// failures, calls to Redis fail at once instead of each waiting for
	// its timeout, until a probe finds Redis back.
	breaker := redisindex.NewBreaker(redisindex.BreakerOptions{Logger: log})
	opts := redisindex.Options{Prefix: aws.redisPrefix, Breaker: breaker}
	notifier := redisindex.NewNotifier(client, opts)
	return &engine{
		name:   "cassandra",
		cache:  st,
		queues: st.Queues(),
		index:  redisindex.New(client, opts),
		// The epoch every built marker in this data center's Redis must
		// carry: 'herald sqs-reindex' bumps it.
		indexEpochs: st.IndexEpochs(),
		notifier:    notifier,
		topics:      st.Topics(),
		rollups:     st.Rollups(),
		ready:       st.Ready,
		breaker:     breaker,
		collectors:  []prometheus.Collector{st.Collector()},
		close: func() {
			notifier.Close()
			client.Close()
			st.Close()
		},
	}, nil
}
