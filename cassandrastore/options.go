package cassandrastore

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Options configures a Store. The zero value connects to a single local
// node (127.0.0.1:9042) with keyspace "herald".
type Options struct {
	// Hosts are the contact points, "host" or "host:port" (port 9042 by
	// default). The driver discovers the rest of the cluster from them.
	// Empty means 127.0.0.1.
	Hosts []string

	// Keyspace holds Herald's tables; it is created when absent. Empty
	// means "herald".
	Keyspace string

	// Replication is used only when the keyspace is created.
	Replication Replication

	// Consistency is the consistency level of every read and write, by its
	// CQL name ("LOCAL_QUORUM", "QUORUM", "ONE", ...). Empty means
	// LOCAL_QUORUM, which with a replication factor of 1 is one replica.
	Consistency string

	// WriteConsistency is the consistency level of every write: inserts,
	// updates, deletes and the commit of lightweight transactions (whose
	// Paxos phase is SERIAL with LocalDC set, else LOCAL_SERIAL for a
	// LOCAL_ level and SERIAL otherwise). Empty means Consistency. In a cluster of several data
	// centers, EACH_QUORUM acknowledges a write once a quorum of the
	// replicas in every data center holds it, so that an acknowledged
	// message survives the loss of a whole data center; while a data
	// center is unreachable, writes then fail (docs/deploy.md,
	// "Consistency choices").
	WriteConsistency string

	// LocalDC, when set, routes queries to the replicas in this data
	// center first (needed for LOCAL_QUORUM to mean the application's data
	// center in a multi-DC cluster). Empty routes to any replica.
	LocalDC string

	// Username and Password authenticate with PasswordAuthenticator when
	// Username is set.
	Username, Password string

	// RollupCommitEach makes every node commit its own batches to a
	// rollup, as before rollups had one committer (rollup_fold.go): for
	// comparisons.
	RollupCommitEach bool

	// HistoryBucket is the width of a history partition in message time;
	// zero means one day. JournalBucket is the width of a journal
	// partition in time received; zero means 10 minutes. JournalShards is
	// how many partitions share one journal bucket; zero means 8.
	//
	// These three shape the stored data: the values a keyspace was created
	// with are kept in it (table layout) and win over these options from
	// then on, since other values would not find the data already written.
	HistoryBucket time.Duration
	JournalBucket time.Duration
	JournalShards int

	// Timeout bounds each query and ConnectTimeout each connection
	// attempt; zero means 5 seconds for both.
	Timeout        time.Duration
	ConnectTimeout time.Duration

	// Connections is the driver's connections to each Cassandra host
	// (zero: the driver's default, 2). Each connection writes the
	// statements queued on it together and reads their answers together,
	// so fewer connections carry more statements per system call.
	Connections int

	// Now is the clock for expiry decisions. Nil means time.Now.
	Now func() time.Time

	// Logger receives the engine's and the driver's messages. Nil means
	// slog.Default().
	Logger *slog.Logger

	// configure, when set, adjusts the driver configuration before each
	// connection attempt (tests use it to route through a proxy).
	configure func(*gocql.ClusterConfig)
}

// Replication is the replication of the keyspace when it is created.
type Replication struct {
	// Class is "SimpleStrategy" (the default when empty) or
	// "NetworkTopologyStrategy".
	Class string
	// Factor is SimpleStrategy's replication factor; zero means 1.
	Factor int
	// DataCenters holds NetworkTopologyStrategy's replication factor per
	// data center.
	DataCenters map[string]int
}

const (
	defaultKeyspace       = "herald"
	defaultHistoryBucket  = 24 * time.Hour
	defaultJournalBucket  = 10 * time.Minute
	defaultJournalShards  = 8
	defaultTimeout        = 5 * time.Second
	defaultConnectTimeout = 5 * time.Second
	maxJournalShards      = 1024
)

var (
	identRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,47}$`)
	dcRE    = regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,64}$`)
)

// withDefaults returns o with every zero field set to its default, or an
// error naming the first invalid field.
func (o Options) withDefaults() (Options, error) {
	o.Hosts = slices.Clone(o.Hosts)
	if len(o.Hosts) == 0 {
		o.Hosts = []string{"127.0.0.1"}
	}
	if o.Keyspace == "" {
		o.Keyspace = defaultKeyspace
	}
	if !identRE.MatchString(o.Keyspace) {
		return o, fmt.Errorf("keyspace %q: want a letter then up to 47 letters, digits or underscores", o.Keyspace)
	}
	if o.Consistency == "" {
		o.Consistency = "LOCAL_QUORUM"
	}
	if _, err := gocql.ParseConsistencyWrapper(o.Consistency); err != nil {
		return o, fmt.Errorf("consistency %q: %v", o.Consistency, err)
	}
	if o.WriteConsistency == "" {
		o.WriteConsistency = o.Consistency
	}
	if _, err := gocql.ParseConsistencyWrapper(o.WriteConsistency); err != nil {
		return o, fmt.Errorf("write consistency %q: %v", o.WriteConsistency, err)
	}
	if _, err := o.Replication.cql(); err != nil {
		return o, err
	}
	if o.HistoryBucket == 0 {
		o.HistoryBucket = defaultHistoryBucket
	}
	if o.JournalBucket == 0 {
		o.JournalBucket = defaultJournalBucket
	}
	if o.JournalShards == 0 {
		o.JournalShards = defaultJournalShards
	}
	if err := checkLayout(layout{o.HistoryBucket.Milliseconds(), o.JournalBucket.Milliseconds(), o.JournalShards}); err != nil {
		return o, err
	}
	if o.HistoryBucket%time.Millisecond != 0 || o.JournalBucket%time.Millisecond != 0 {
		return o, fmt.Errorf("history and journal buckets must be whole milliseconds")
	}
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = defaultConnectTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o, nil
}

// cql returns the replication map of CREATE KEYSPACE.
func (r Replication) cql() (string, error) {
	switch r.Class {
	case "", "SimpleStrategy":
		f := r.Factor
		if f == 0 {
			f = 1
		}
		if f < 1 || len(r.DataCenters) > 0 {
			return "", fmt.Errorf("replication: SimpleStrategy takes a factor of at least 1 and no data centers")
		}
		return fmt.Sprintf("{'class': 'SimpleStrategy', 'replication_factor': %d}", f), nil
	case "NetworkTopologyStrategy":
		if len(r.DataCenters) == 0 || r.Factor != 0 {
			return "", fmt.Errorf("replication: NetworkTopologyStrategy takes a factor per data center, not one factor")
		}
		parts := []string{"'class': 'NetworkTopologyStrategy'"}
		for _, dc := range slices.Sorted(maps.Keys(r.DataCenters)) {
			f := r.DataCenters[dc]
			if !dcRE.MatchString(dc) || f < 0 {
				return "", fmt.Errorf("replication: data center %q with factor %d", dc, f)
			}
			parts = append(parts, fmt.Sprintf("'%s': %d", dc, f))
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	default:
		return "", fmt.Errorf("replication class %q: want SimpleStrategy or NetworkTopologyStrategy", r.Class)
	}
}

// layout is what shapes the stored data; it is kept in the keyspace.
type layout struct {
	historyBucketMs int64
	journalBucketMs int64
	journalShards   int
}

func checkLayout(l layout) error {
	switch {
	case l.historyBucketMs < 1:
		return fmt.Errorf("history bucket of %d ms: want at least 1 ms", l.historyBucketMs)
	case l.journalBucketMs < 1:
		return fmt.Errorf("journal bucket of %d ms: want at least 1 ms", l.journalBucketMs)
	case l.journalShards < 1 || l.journalShards > maxJournalShards:
		return fmt.Errorf("journal shards %d: want 1 to %d", l.journalShards, maxJournalShards)
	}
	return nil
}

// writeConsistency is WriteConsistency parsed (checked by withDefaults).
func (o Options) writeConsistency() gocql.Consistency {
	c, _ := gocql.ParseConsistencyWrapper(o.WriteConsistency)
	return c
}

// clusterConfig returns the driver configuration for o.
func (o Options) clusterConfig() *gocql.ClusterConfig {
	c := gocql.NewCluster(o.Hosts...)
	c.Consistency, _ = gocql.ParseConsistencyWrapper(o.Consistency)
	c.Timeout = o.Timeout
	c.ConnectTimeout = o.ConnectTimeout
	c.WriteTimeout = o.Timeout
	// Route each statement to a replica of its partition (prepared
	// statements carry the partition key's position), spreading the load
	// over the replicas; prefer the local data center when one is named.
	fallback := gocql.RoundRobinHostPolicy()
	if o.LocalDC != "" {
		fallback = gocql.DCAwareRoundRobinPolicy(o.LocalDC)
	}
	c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(fallback, gocql.ShuffleReplicas())
	// A lost connection is retried quickly, then a host marked down is
	// retried every few seconds, so the store recovers soon after
	// Cassandra comes back; the retry sequence (about 4 s) is shorter than
	// the interval, as the driver's documentation advises.
	c.ReconnectionPolicy = &gocql.ExponentialReconnectionPolicy{
		MaxRetries:      4,
		InitialInterval: 250 * time.Millisecond,
		MaxInterval:     2 * time.Second,
	}
	c.ReconnectInterval = 5 * time.Second
	if o.Connections > 0 {
		c.NumConns = o.Connections
	}
	// Every statement of this engine is idempotent: writes carry fixed
	// values, TTLs and, where it matters, fixed timestamps.
	c.DefaultIdempotence = true
	c.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 1}
	c.MaxWaitSchemaAgreement = 30 * time.Second
	if o.Username != "" {
		c.Authenticator = gocql.PasswordAuthenticator{Username: o.Username, Password: o.Password}
	}
	c.Logger = driverLogger{o.Logger}
	if o.configure != nil {
		o.configure(c)
	}
	return c
}

// driverLogger sends the driver's messages to slog. The driver reports
// every failed reconnection attempt as an error; while Cassandra is down
// that is once a second, so errors and warnings become warnings, and its
// routine information is debug output.
type driverLogger struct{ l *slog.Logger }

func (d driverLogger) log(level slog.Level, msg string, fields []gocql.LogField) {
	attrs := make([]any, 0, 2+2*len(fields))
	attrs = append(attrs, "component", "gocql")
	for _, f := range fields {
		attrs = append(attrs, f.Name, f.Value.Any())
	}
	d.l.Log(context.Background(), level, msg, attrs...)
}

func (d driverLogger) Error(msg string, fields ...gocql.LogField) {
	d.log(slog.LevelWarn, msg, fields)
}

func (d driverLogger) Warning(msg string, fields ...gocql.LogField) {
	d.log(slog.LevelWarn, msg, fields)
}

func (d driverLogger) Info(msg string, fields ...gocql.LogField) {
	d.log(slog.LevelDebug, msg, fields)
}

func (d driverLogger) Debug(string, ...gocql.LogField) {}
