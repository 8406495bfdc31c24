package cassandrastore

import (
	"testing"
	"time"

	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/cache/cachetest"
)

// keepOpen shares one Store between the suite's subtests: the suite closes
// what open returns after each subtest, and this Close does nothing.
type keepOpen struct{ *Store }

func (keepOpen) Close() error { return nil }

// TestConformance runs the storage contract's suite with every subtest on
// the package's shared keyspace (default layout).
func TestConformance(t *testing.T) {
	st := sharedStore(t)
	cachetest.Run(t, func(t *testing.T) cache.Store { return keepOpen{st} })
}

// TestConformanceSmallBuckets runs the suite on a keyspace with tiny
// buckets (1 s of message time per history partition, 100 ms of received
// time per journal bucket, 3 shards), so that its histories and journal
// windows span many buckets and shards.
func TestConformanceSmallBuckets(t *testing.T) {
	addr := cassandraAddr(t)
	st := openTest(t, addr, Options{
		Keyspace:      freshKeyspace(t, addr),
		HistoryBucket: time.Second,
		JournalBucket: 100 * time.Millisecond,
		JournalShards: 3,
	})
	cachetest.Run(t, func(t *testing.T) cache.Store { return keepOpen{st} })
}
