package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/heraldmq/herald/cassandrastore"
)

// storeConfig selects and configures the storage engine.
type storeConfig struct {
	engine       string
	dataDir      string
	reapInterval time.Duration
	cacheBytes   int64

	cassandraHosts       string
	cassandraKeyspace    string
	cassandraConsistency string
	cassandraWrites      string
	cassandraReplication string
	cassandraLocalDC     string
	cassandraUsername    string
	cassandraPassword    string
	cassandraTimeout     time.Duration
	cassandraConns       int
	rollupCommit         string
	rollupShards         int
}

func (c *storeConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.engine, "store", "embedded", "storage engine: embedded (Pebble in --data-dir, no other process) or cassandra (Apache Cassandra, see --cassandra-*)")
	fs.StringVar(&c.dataDir, "data-dir", "./herald-data", "directory of the embedded store")
	fs.Int64Var(&c.cacheBytes, "block-cache-bytes", 256<<20, "memory the embedded store keeps for recently read blocks, in bytes")
	fs.DurationVar(&c.reapInterval, "reap-interval", 10*time.Second, "how often expired messages are reclaimed from the embedded store (Cassandra expires them by TTL)")
	fs.StringVar(&c.cassandraHosts, "cassandra-hosts", "127.0.0.1:9042", "Cassandra contact points, comma-separated host:port")
	fs.StringVar(&c.cassandraKeyspace, "cassandra-keyspace", "herald", "Cassandra keyspace, created with its tables when absent")
	fs.StringVar(&c.cassandraConsistency, "cassandra-consistency", "LOCAL_QUORUM", "consistency level of every Cassandra read and write (LOCAL_QUORUM, QUORUM, ONE, ...)")
	fs.StringVar(&c.cassandraWrites, "cassandra-write-consistency", "", "consistency level of every Cassandra write; empty: EACH_QUORUM when --cassandra-local-dc is set (several data centers: an acknowledged write survives the loss of a data center, and writes fail while the other is unreachable), else --cassandra-consistency. LOCAL_QUORUM keeps writing through a partition, at the price of losing what the lost data center had not yet replicated (docs/deploy.md)")
	fs.StringVar(&c.cassandraReplication, "cassandra-replication", "1", "replication of a keyspace Herald creates: a factor (SimpleStrategy), or DC:FACTOR,DC:FACTOR (NetworkTopologyStrategy)")
	fs.StringVar(&c.cassandraLocalDC, "cassandra-local-dc", "", "this node's Cassandra data center: queries go to its replicas first (set it in multi-DC clusters)")
	fs.StringVar(&c.cassandraUsername, "cassandra-username", "", "Cassandra user (PasswordAuthenticator); empty for none")
	fs.StringVar(&c.cassandraPassword, "cassandra-password", "", "Cassandra password (prefer the environment variable)")
	fs.DurationVar(&c.cassandraTimeout, "cassandra-timeout", 5*time.Second, "timeout of each Cassandra query")
	fs.IntVar(&c.cassandraConns, "cassandra-connections", 2, "connections to each Cassandra host (1 to 16): fewer carry more statements per system call")
	fs.IntVar(&c.rollupShards, "rollup-commit-shards", 1, "commit shards of a rollup whose definition does not say (commit_shards, fixed when it is created; docs/rollups.md): 1 to 64. On Cassandra different shards of one rollup commit on different nodes: worth it for rollups whose events update many rows (LoopLogic's shape) fed from more nodes than one committer keeps up with; each shard costs a record of every event")
	fs.StringVar(&c.rollupCommit, "cassandra-rollup-commit", "one", "who commits a rollup's batches on Cassandra: one (the node holding the rollup's lease, for every node; docs/rollups.md) or each (every node its own, contending for the commit sequence; for comparisons)")
}

// parseReplication reads --cassandra-replication.
func parseReplication(text string) (cassandrastore.Replication, error) {
	if n, err := strconv.Atoi(text); err == nil {
		return cassandrastore.Replication{Class: "SimpleStrategy", Factor: n}, nil
	}
	dcs := map[string]int{}
	for _, part := range strings.Split(text, ",") {
		dc, factor, ok := strings.Cut(strings.TrimSpace(part), ":")
		n, err := strconv.Atoi(factor)
		if !ok || dc == "" || err != nil {
			return cassandrastore.Replication{}, fmt.Errorf("--cassandra-replication %q: want a factor or DC:FACTOR,DC:FACTOR", text)
		}
		dcs[dc] = n
	}
	return cassandrastore.Replication{Class: "NetworkTopologyStrategy", DataCenters: dcs}, nil
}

// writeConsistency is --cassandra-write-consistency with its default.
func (c storeConfig) writeConsistency() string {
	switch {
	case c.cassandraWrites != "":
		return c.cassandraWrites
	case c.cassandraLocalDC != "":
		return "EACH_QUORUM"
	}
	return c.cassandraConsistency
}

// describe names the store for the start-up log line.
func (c storeConfig) describe() []any {
	if c.engine == "cassandra" {
		return []any{"store", c.engine, "cassandra_hosts", c.cassandraHosts, "keyspace", c.cassandraKeyspace,
			"local_dc", c.cassandraLocalDC, "consistency", c.cassandraConsistency, "write_consistency", c.writeConsistency()}
	}
	return []any{"store", c.engine, "data_dir", c.dataDir}
}
