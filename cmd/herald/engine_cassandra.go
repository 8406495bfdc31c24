package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald/cassandrastore"
	"github.com/heraldmq/herald/redisindex"
	"github.com/heraldmq/herald/rollup"
	"github.com/heraldmq/herald/sqs"
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
	if c.cassandraConns < 1 || c.cassandraConns > 16 {
		return nil, fmt.Errorf("--cassandra-connections %d: want 1 to 16", c.cassandraConns)
	}
	if c.rollupShards < 0 || c.rollupShards > rollup.MaxCommitShards {
		return nil, fmt.Errorf("--rollup-commit-shards %d: want 1 to %d", c.rollupShards, rollup.MaxCommitShards)
	}
	if c.rollupCommit != "one" && c.rollupCommit != "each" {
		return nil, fmt.Errorf("--cassandra-rollup-commit %q: want one or each", c.rollupCommit)
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
		Timeout: c.cassandraTimeout, Connections: c.cassandraConns, Logger: log,
		RollupCommitEach: c.rollupCommit == "each",
	})
	if err != nil {
		return nil, fmt.Errorf("cassandra store: %w", err)
	}
	peers, err := dcPeers(aws.dcPeerRedis, c.cassandraLocalDC)
	if err != nil {
		st.Close()
		return nil, err
	}
	// Short deadlines on every call: a Redis that stops answering sends
	// Herald to its degraded mode quickly instead of stalling requests.
	// Several addresses are the nodes of a Redis Cluster. One circuit
	// breaker per Redis, for its Index and Notifier: after a few failures,
	// calls to it fail at once instead of each waiting for its timeout,
	// until a probe finds it back.
	openRedis := func(addrs []string, breaker *redisindex.Breaker) (redis.UniversalClient, sqs.Index, *redisindex.Notifier) {
		ro := redisindex.ClientOptions(addrs...)
		ro.Password, ro.DB = aws.redisPassword, aws.redisDB
		client := redis.NewUniversalClient(ro)
		opts := redisindex.Options{Prefix: aws.redisPrefix, Breaker: breaker, AutoPipeline: aws.redisPipeline}
		return client, redisindex.New(client, opts), redisindex.NewNotifier(client, opts)
	}
	breaker := redisindex.NewBreaker(redisindex.BreakerOptions{Logger: log})
	client, index, localNotifier := openRedis(strings.Split(aws.redisAddr, ","), breaker)
	var notifier sqs.Notifier = localNotifier
	closers := []func(){func() { localNotifier.Close(); client.Close() }}
	var dc sqs.DCConfig
	if len(peers) > 0 {
		// Several data centers: each queue is served by the Redis of its
		// home data center, from every data center (sqs/dc.go).
		byDC := map[string]sqs.Index{c.cassandraLocalDC: index}
		var peerNotifiers []sqs.Notifier
		for name, addrs := range peers {
			pc, pi, pn := openRedis(addrs, redisindex.NewBreaker(redisindex.BreakerOptions{Logger: log.With("dc", name)}))
			byDC[name] = pi
			peerNotifiers = append(peerNotifiers, pn)
			closers = append(closers, func() { pn.Close(); pc.Close() })
		}
		index = sqs.NewDCIndex(c.cassandraLocalDC, byDC)
		dcn := sqs.NewDCNotifier(localNotifier, peerNotifiers)
		notifier = dcn
		closers = append([]func(){dcn.Close}, closers...)
		dc = sqs.DCConfig{Local: c.cassandraLocalDC, LegacyHome: legacyHome(aws.dcLegacyHome, c.cassandraLocalDC, peers),
			Fences: st.Fences(), Epochs: st.IndexEpochsOf}
	}
	var dcNames []string
	if c.cassandraLocalDC != "" {
		dcNames = append(slices.Sorted(maps.Keys(peers)), c.cassandraLocalDC)
		slices.Sort(dcNames)
	}
	return &engine{
		name:    "cassandra",
		dcNames: dcNames,
		cache:   st,
		queues:  st.Queues(),
		index:   index,
		// The epoch every built marker in this data center's Redis must
		// carry: 'herald sqs-reindex' bumps it.
		indexEpochs:  st.IndexEpochs(),
		dc:           dc,
		notifier:     notifier,
		topics:       st.Topics(),
		rollups:      st.Rollups(),
		rollupShards: cmp.Or(c.rollupShards, 1),
		ready:        st.Ready,
		breaker:      breaker,
		settings:     st,
		sharedLimits: redisindex.NewLimits(client, redisindex.Options{Prefix: aws.redisPrefix, Breaker: breaker}),
		collectors:   append([]prometheus.Collector{st.Collector()}, st.RollupCollectors()...),
		close: func() {
			for _, f := range closers {
				f()
			}
			st.Close()
		},
	}, nil
}
