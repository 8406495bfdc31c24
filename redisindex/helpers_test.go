package redisindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald/sqs"
)

// The tests run against a real Redis: HERALD_TEST_REDIS names it
// (host:port; `scripts/services env` prints it), 127.0.0.1:6379 by default.
// Each test uses a key prefix of its own and deletes its keys at the end,
// so tests share the Redis (and its database 0) with anyone else.

const defaultTestAddr = "127.0.0.1:6379"

// redisAddr returns the address of the test Redis, skipping the test when
// none answers, unless one was named or this is CI: then the test fails.
// HERALD_TEST_REDIS may name several comma-separated addresses: the nodes
// of a Redis Cluster, which the tests then run against.
func redisAddr(t testing.TB) string {
	t.Helper()
	addr, named := os.LookupEnv("HERALD_TEST_REDIS")
	if addr == "" {
		addr, named = defaultTestAddr, false
	}
	first, _, _ := strings.Cut(addr, ",")
	c, err := net.DialTimeout("tcp", first, 3*time.Second)
	if err == nil {
		c.Close()
		return addr
	}
	msg := fmt.Sprintf("no Redis answers at %s (%v); start one with `scripts/services start redis` "+
		"(and `eval \"$(scripts/services env)\"`)", addr, err)
	if named || os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// newClient returns a client of the test Redis, closed when t ends.
func newClient(t testing.TB) redis.UniversalClient {
	t.Helper()
	c := redis.NewUniversalClient(ClientOptions(strings.Split(redisAddr(t), ",")...))
	t.Cleanup(func() { c.Close() })
	return c
}

// freshPrefix returns a key prefix of its own for t, whose keys are
// deleted when t ends.
func freshPrefix(t testing.TB, c redis.UniversalClient) string {
	t.Helper()
	prefix := fmt.Sprintf("herald:test:%012x:", rand.Uint64()>>16)
	t.Cleanup(func() { deletePrefix(t, c, prefix) })
	return prefix
}

// deletePrefix deletes every key starting with prefix, as a flush of the
// Redis would (without disturbing other tests).
func deletePrefix(t testing.TB, c redis.UniversalClient, prefix string) {
	t.Helper()
	ctx := context.Background()
	keys, err := keysMatching(ctx, c, prefix+"*")
	if err != nil {
		t.Logf("list keys %s*: %v", prefix, err)
		return
	}
	if len(keys) > 0 {
		if err := c.Del(ctx, keys...).Err(); err != nil {
			t.Logf("delete keys %s*: %v", prefix, err)
		}
	}
}

// testIndex is an Index on a private prefix with its client.
type testIndex struct {
	*Index
	client redis.UniversalClient
	prefix string
}

// newIndex returns an Index of the test Redis on a fresh prefix.
func newIndex(t testing.TB, opts Options) testIndex {
	t.Helper()
	c := newClient(t)
	opts.Prefix = freshPrefix(t, c)
	return testIndex{Index: New(c, opts), client: c, prefix: opts.Prefix}
}

// t0 is the tests' clock origin: times come from the requests, not Redis.
var t0 = time.UnixMilli(1_700_000_000_000).UTC()

// at returns t0 plus ms milliseconds.
func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func standardQueue() sqs.IndexQueue { return sqs.IndexQueue{ID: uuid.New()} }
func fifoQueue() sqs.IndexQueue     { return sqs.IndexQueue{ID: uuid.New(), FIFO: true} }

// builtQueue returns a built, empty queue.
func builtQueue(t testing.TB, ix testIndex, fifo bool) sqs.IndexQueue {
	t.Helper()
	q := sqs.IndexQueue{ID: uuid.New(), FIFO: fifo}
	if err := ix.MarkBuilt(context.Background(), q); err != nil {
		t.Fatalf("MarkBuilt: %v", err)
	}
	return q
}

// newIDs returns n new message ids, version 1 and in send order, as Herald
// makes them.
func newIDs(n int) []uuid.UUID {
	ids := make([]uuid.UUID, n)
	for i := range ids {
		ids[i] = uuid.Must(sqs.NewMessageID()) // in send order, as Herald makes them
	}
	return ids
}

// mustAdd adds entries visible at the given times (one per id) in group.
func mustAdd(t testing.TB, ix testIndex, q sqs.IndexQueue, group string, visibleAt time.Time, ids ...uuid.UUID) {
	t.Helper()
	entries := make([]sqs.Entry, len(ids))
	for i, id := range ids {
		entries[i] = sqs.Entry{ID: id, Group: group, VisibleAt: visibleAt}
	}
	if err := ix.Add(context.Background(), q, entries); err != nil {
		t.Fatalf("Add: %v", err)
	}
}

// mustReceive receives and returns the claimed ids.
func mustReceive(t testing.TB, ix testIndex, q sqs.IndexQueue, now time.Time, max int, until time.Time) ([]uuid.UUID, sqs.ReceiveResult) {
	t.Helper()
	res, err := ix.Receive(context.Background(), q, sqs.ReceiveRequest{Now: now, Max: max, Until: until})
	if err != nil {
		t.Fatalf("Receive at %v: %v", now, err)
	}
	ids := make([]uuid.UUID, len(res.Claims))
	for i, c := range res.Claims {
		ids[i] = c.ID
	}
	return ids, res
}

// mustCounts returns the queue's counts at now.
func mustCounts(t testing.TB, ix testIndex, q sqs.IndexQueue, now time.Time) sqs.Counts {
	t.Helper()
	c, err := ix.Counts(context.Background(), q, now)
	if err != nil {
		t.Fatalf("Counts: %v", err)
	}
	return c
}

// equalIDs fails unless got equals want, in order.
func equalIDs(t testing.TB, what string, got, want []uuid.UUID) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d ids %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: id %d is %v, want %v (got %v, want %v)", what, i, got[i], want[i], got, want)
		}
	}
}

// keysMatching lists the keys matching pattern: on every master of a Redis
// Cluster, where KEYS only sees the node it is sent to.
func keysMatching(ctx context.Context, c redis.UniversalClient, pattern string) ([]string, error) {
	cc, ok := c.(*redis.ClusterClient)
	if !ok {
		return c.Keys(ctx, pattern).Result()
	}
	var (
		mu  sync.Mutex
		all []string
	)
	err := cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		keys, err := node.Keys(ctx, pattern).Result()
		mu.Lock()
		all = append(all, keys...)
		mu.Unlock()
		return err
	})
	return all, err
}
