package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"
)

// engine is a storage setup `herald serve` runs on in these tests.
type engine struct {
	name string
	args func() []string // serve flags selecting it
}

var (
	embedded  = engine{name: "embedded", args: func() []string { return nil }}
	cassandra = engine{name: "cassandra", args: func() []string {
		return []string{"--store", "cassandra", "--cassandra-hosts", cassandraAddr(), "--cassandra-keyspace", cassandraKeyspace, "--redis-addr", redisAddr()}
	}}
	engines = []engine{embedded, cassandra}
)

// cassandraKeyspace is this test run's own keyspace, dropped at the end.
var cassandraKeyspace = "herald_e2e_" + uuid.NewString()[:8]

// cassandraAddr is the Cassandra the tests use: HERALD_TEST_CASSANDRA, as
// `scripts/services env` prints it, or the services script's default.
func cassandraAddr() string {
	if addr := os.Getenv("HERALD_TEST_CASSANDRA"); addr != "" {
		return addr
	}
	return "127.0.0.1:9042"
}

// eachEngine runs fn as a subtest per engine. An engine whose service is
// not running is skipped locally, and fails the test in CI (CI=true).
func eachEngine(t *testing.T, fn func(t *testing.T, e engine)) {
	t.Helper()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			if e.name == cassandra.name {
				requireCassandra(t)
			}
			fn(t, e)
		})
	}
}

var (
	cassandraOnce sync.Once
	cassandraErr  error
	cassandraUsed bool
)

// requireCassandra makes sure a real Cassandra answers CQL.
func requireCassandra(t *testing.T) {
	t.Helper()
	cassandraOnce.Do(func() {
		conn, err := net.DialTimeout("tcp", cassandraAddr(), 3*time.Second)
		if err != nil {
			cassandraErr = err
			return
		}
		conn.Close()
		cassandraUsed = true
	})
	if cassandraErr == nil {
		return
	}
	msg := fmt.Sprintf("Cassandra at %s does not answer (%v); start it with `scripts/services start cassandra`", cassandraAddr(), cassandraErr)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// dropCassandraKeyspace removes the keyspace the servers of this run made.
func dropCassandraKeyspace() {
	if !cassandraUsed {
		return
	}
	cluster := gocql.NewCluster(cassandraAddr())
	cluster.Timeout = 30 * time.Second
	session, err := cluster.CreateSession()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: cannot drop keyspace", cassandraKeyspace, err)
		return
	}
	defer session.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := session.Query("DROP KEYSPACE IF EXISTS " + cassandraKeyspace).WithContext(ctx).Exec(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: cannot drop keyspace", cassandraKeyspace, err)
	}
}
