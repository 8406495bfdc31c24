package amqp

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	rabbit "github.com/rabbitmq/amqp091-go"

	"github.com/heraldmq/herald/cache"
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
