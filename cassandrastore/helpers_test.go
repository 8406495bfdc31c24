package cassandrastore

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/cache/cachetest"
)

// The tests run against a real Cassandra: HERALD_TEST_CASSANDRA names it
// (host:port; `scripts/services env` prints it), 127.0.0.1:9042 by default.

const defaultTestAddr = "127.0.0.1:9042"

// cassandraAddr returns the address of the test Cassandra, skipping the
// test when none answers, unless one was named or this is CI: then the
// test fails.
func cassandraAddr(t testing.TB) string {
	t.Helper()
	addr, named := os.LookupEnv("HERALD_TEST_CASSANDRA")
	if addr == "" {
		addr, named = defaultTestAddr, false
	}
	c, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err == nil {
		c.Close()
		return addr
	}
	msg := fmt.Sprintf("no Cassandra answers at %s (%v); start one with `scripts/services start cassandra` "+
		"(and `eval \"$(scripts/services env)\"`)", addr, err)
	if named || os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// quietLogger drops the engine's and the driver's log output.
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testKeyspace returns a fresh keyspace name for this run.
func testKeyspace() string { return fmt.Sprintf("herald_test_%012x", rand.Uint64()>>16) }

// openTest opens a store on opts (hosts and logger filled in), waits for it
// to be ready and closes it when t ends.
func openTest(t testing.TB, addr string, opts Options) *Store {
	t.Helper()
	opts.Hosts = []string{addr}
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	st, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := st.Ready(ctx); err != nil {
		t.Fatalf("store on %s, keyspace %s, not ready: %v", addr, opts.Keyspace, err)
	}
	return st
}

// dropKeyspace drops ks with a session of its own (dropping takes longer
// than a query's timeout on a busy node).
func dropKeyspace(addr, ks string) error {
	c := gocql.NewCluster(addr)
	c.Timeout = time.Minute
	c.ConnectTimeout = 10 * time.Second
	s, err := c.CreateSession()
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
}

// freshKeyspace returns a new keyspace name, dropped when t ends.
func freshKeyspace(t testing.TB, addr string) string {
	t.Helper()
	ks := testKeyspace()
	t.Cleanup(func() {
		if err := dropKeyspace(addr, ks); err != nil {
			t.Logf("drop keyspace %s: %v", ks, err)
		}
	})
	return ks
}

// shared is one store on one keyspace for every test of the package that
// does not need a keyspace of its own; TestMain drops the keyspace.
var shared struct {
	once sync.Once
	addr string
	ks   string
	st   *Store
	err  error
}

// sharedStore returns the package's shared store, opening it on first use.
func sharedStore(t testing.TB) *Store {
	t.Helper()
	addr := cassandraAddr(t)
	shared.once.Do(func() {
		shared.addr, shared.ks = addr, testKeyspace()
		st, err := Open(context.Background(), Options{Hosts: []string{addr}, Keyspace: shared.ks, Logger: quietLogger()})
		if err != nil {
			shared.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := st.Ready(ctx); err != nil {
			st.Close()
			shared.err = err
			return
		}
		shared.st = st
	})
	if shared.err != nil {
		t.Fatalf("shared store: %v", shared.err)
	}
	return shared.st
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.st != nil {
		shared.st.Close()
		if err := dropKeyspace(shared.addr, shared.ks); err != nil {
			fmt.Fprintf(os.Stderr, "drop keyspace %s: %v\n", shared.ks, err)
		}
	}
	os.Exit(code)
}

// uuidAt returns a random version 1 UUID carrying the time at (to 100 ns).
func uuidAt(at time.Time) uuid.UUID { return cachetest.UUIDAt(at) }

// word returns a random path word of this test run.
func word() string { return fmt.Sprintf("t%016x", rand.Uint64()) }

// newMsg returns a message at message time at, received at recv, living
// for ttl, addressed to ps.
func newMsg(at, recv time.Time, ttl time.Duration, ps ...string) *cache.Message {
	meta, _ := json.Marshal(map[string]any{"paths": ps})
	recv = recv.UTC().Truncate(time.Millisecond)
	return &cache.Message{
		ID:         uuidAt(at),
		ReplicaID:  uuidAt(recv),
		Metadata:   meta,
		Paths:      ps,
		Body:       []byte("body"),
		ReceivedAt: recv,
		ExpiresAt:  recv.Add(ttl),
	}
}

// mustPut puts m and fails unless it was created.
func mustPut(t testing.TB, st cache.Store, m *cache.Message) {
	t.Helper()
	_, created, err := st.PutMessage(context.Background(), m)
	if err != nil {
		t.Fatalf("PutMessage(%s): %v", m.ID, err)
	}
	if !created {
		t.Fatalf("PutMessage(%s): created = false", m.ID)
	}
}

// checkFor polls f every interval until it returns nil, failing the test
// with f's last error after limit.
func checkFor(t testing.TB, limit, interval time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %v", limit, err)
		}
		time.Sleep(interval)
	}
}
