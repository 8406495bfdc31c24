package amqp

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	rabbit "github.com/rabbitmq/amqp091-go"

	"github.com/heraldmq/herald/cache"
)

// countingPutter stores nothing and counts puts.
type countingPutter struct{ n atomic.Int64 }

func (c *countingPutter) Put(context.Context, cache.PutInput) (*cache.Message, bool, error) {
	c.n.Add(1)
	return &cache.Message{}, true, nil
}

// BenchmarkIngest measures deliveries from RabbitMQ put into the cache (a
// putter that does nothing, so RabbitMQ and this package are measured):
// b.N messages published, then consumed, put and acknowledged.
func BenchmarkIngest(b *testing.B) {
	url := amqpURL(b)
	o := testOptions(b, url)
	p := &countingPutter{}
	startIngest(b, o, p)
	ch := testChannel(b, url)
	if err := ch.Confirm(false); err != nil {
		b.Fatal(err)
	}
	body := make([]byte, 200)
	b.ResetTimer()
	start := time.Now()
	go func() {
		for i := range b.N {
			ch.PublishWithContext(context.Background(), o.IngestExchange, fmt.Sprintf("bench.ingest.%d", i%1000), false, false,
				rabbit.Publishing{Body: body, Headers: rabbit.Table{"source": "bench"}})
		}
	}()
	for p.n.Load() < int64(b.N) {
		time.Sleep(time.Millisecond)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}

// BenchmarkEventsPublish measures events published to RabbitMQ and
// confirmed: b.N one-path messages handed to Publish, until all confirmed.
func BenchmarkEventsPublish(b *testing.B) {
	url := amqpURL(b)
	o := testOptions(b, url)
	e := startEvents(b, o, true) // declares the exchange
	ch := testChannel(b, url)
	// Routed into a queue, as in production, that the benchmark leaves unread.
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err == nil {
		err = ch.QueueBind(q.Name, "bench.#", o.EventsExchange, false, nil)
	}
	if err != nil {
		b.Fatal(err)
	}
	ms := make([]*cache.Message, 1000)
	for i := range ms {
		ms[i] = testMessage(b, string(make([]byte, 200)), fmt.Sprintf("bench.events.%d", i))
	}
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		if err := e.Publish(context.Background(), ms[i%len(ms)]); err != nil {
			b.Fatal(err)
		}
	}
	for e.Stats().Confirmed < uint64(b.N) {
		time.Sleep(time.Millisecond)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}
