package amqp

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	rabbit "github.com/rabbitmq/amqp091-go"

	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/cassandrastore"
	"github.com/heraldmq/herald/pebblestore"
)

// BenchmarkIngestIntoEmbeddedStore measures ingest end to end into the
// embedded default: b.N messages of 1 KiB published to the ingest
// exchange, consumed, stored durably in Pebble through cache.Service
// (fsynced, group-committed) and acknowledged.
func BenchmarkIngestIntoEmbeddedStore(b *testing.B) {
	url := amqpURL(b)
	o := testOptions(b, url)
	if v := os.Getenv("BENCH_PREFETCH"); v != "" {
		o.Prefetch, _ = strconv.Atoi(v)
		o.IngestWorkers = o.Prefetch
	}
	db, err := pebblestore.Open(b.TempDir(), pebblestore.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	svc := cache.NewService(db, cache.DefaultConfig())
	in := startIngest(b, o, svc)
	ch := testChannel(b, url)
	body := make([]byte, 1024)
	b.ResetTimer()
	start := time.Now()
	go func() {
		for i := range b.N {
			ch.PublishWithContext(context.Background(), o.IngestExchange, fmt.Sprintf("bench.ingest.p%d", i%10000), false, false,
				rabbit.Publishing{Body: body, DeliveryMode: rabbit.Persistent})
		}
	}()
	for in.Stats().Stored < uint64(b.N) {
		time.Sleep(time.Millisecond)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}

// BenchmarkIngestIntoCassandra is the same into the Cassandra engine
// (HERALD_TEST_CASSANDRA, a keyspace of its own, dropped afterwards).
func BenchmarkIngestIntoCassandra(b *testing.B) {
	addr := os.Getenv("HERALD_TEST_CASSANDRA")
	if addr == "" {
		b.Skip("HERALD_TEST_CASSANDRA is not set")
	}
	url := amqpURL(b)
	o := testOptions(b, url)
	keyspace := fmt.Sprintf("herald_bench_%08x", time.Now().UnixNano()&0xffffffff)
	ctx := context.Background()
	st, err := cassandrastore.Open(ctx, cassandrastore.Options{Hosts: []string{addr}, Keyspace: keyspace,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	readyCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := st.Ready(readyCtx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		st.Close()
		if session, err := gocql.NewCluster(addr).CreateSession(); err == nil {
			session.Query("DROP KEYSPACE IF EXISTS " + keyspace).Exec()
			session.Close()
		}
	})
	svc := cache.NewService(st, cache.DefaultConfig())
	in := startIngest(b, o, svc)
	ch := testChannel(b, url)
	body := make([]byte, 1024)
	b.ResetTimer()
	start := time.Now()
	go func() {
		for i := range b.N {
			ch.PublishWithContext(context.Background(), o.IngestExchange, fmt.Sprintf("bench.ingest.p%d", i%10000), false, false,
				rabbit.Publishing{Body: body, DeliveryMode: rabbit.Persistent})
		}
	}()
	for in.Stats().Stored < uint64(b.N) {
		time.Sleep(time.Millisecond)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}
