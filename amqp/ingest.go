package amqp

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/limits"

	rabbit "github.com/rabbitmq/amqp091-go"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// Putter stores one message; *cache.Service satisfies it.
type Putter interface {
	Put(ctx context.Context, in cache.PutInput) (*cache.Message, bool, error)
}

// Ingest consumes the ingest queue and puts each message into the cache. A
// delivery is acknowledged only after the put returned; one the store could
// not take (unavailable) is requeued after a backoff; one that can never be
// stored is published to the dead-letter exchange with the reason in the
// ErrorHeader, and acknowledged once RabbitMQ confirmed that.
type Ingest struct {
	o     Options
	put   Putter
	retry backoff
	dead  *deadLetters

	cancel context.CancelFunc
	done   chan struct{}
	ready  chan struct{}
	once   sync.Once

	stored, repeats, requeued, deadLettered, throttled atomic.Uint64
}

// IngestStats counts what Ingest did with the deliveries it received.
type IngestStats struct {
	Stored       uint64 // newly stored messages
	Repeats      uint64 // messages whose message_uuid was already stored
	Requeued     uint64 // deliveries returned to the queue for a later retry
	DeadLettered uint64 // invalid messages moved to the dead-letter exchange
	Throttled    uint64 // of those, the ones over the AMQP door's rate limit
}

// NewIngest starts consuming with the given options; Close stops it.
func NewIngest(o Options, p Putter) (*Ingest, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := &Ingest{
		o:      o,
		put:    p,
		retry:  backoff{min: o.RetryMin, max: o.RetryMax},
		dead:   &deadLetters{o: &o},
		cancel: cancel,
		done:   make(chan struct{}),
		ready:  make(chan struct{}),
	}
	go func() {
		defer close(g.done)
		keepConnected(ctx, &g.o, "ingest consumer", g.session)
	}()
	return g, nil
}

// Ready waits until the topology is declared and consuming has begun.
func (g *Ingest) Ready(ctx context.Context) error {
	select {
	case <-g.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stats returns counters for metrics.
func (g *Ingest) Stats() IngestStats {
	return IngestStats{
		Stored:       g.stored.Load(),
		Repeats:      g.repeats.Load(),
		Requeued:     g.requeued.Load(),
		DeadLettered: g.deadLettered.Load(),
		Throttled:    g.throttled.Load(),
	}
}

// Close stops consuming, lets the puts under way finish (their deliveries
// are acknowledged), returns the prefetched rest to the queue and closes
// the connections.
func (g *Ingest) Close() error {
	g.cancel()
	<-g.done
	g.dead.close()
	return nil
}

// session consumes on one connection until it closes or Close is called.
func (g *Ingest) session(ctx context.Context, conn *rabbit.Connection) error {
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	defer ch.Close()
	if err := declareIngest(ch, &g.o); err != nil {
		return err
	}
	if err := ch.Qos(g.o.Prefetch, 0, false); err != nil {
		return err
	}
	const tag = "herald-ingest"
	deliveries, err := ch.Consume(g.o.IngestQueue, tag, false, false, false, false, nil)
	if err != nil {
		return err
	}
	g.once.Do(func() { close(g.ready) })
	g.o.Logger.Info("consuming", "amqp", "ingest", "queue", g.o.IngestQueue)

	acks := newAcker(func(tag uint64) error { return ch.Ack(tag, true) }, g.o.Prefetch)
	var wg sync.WaitGroup
	for range g.o.IngestWorkers {
		wg.Go(func() {
			for d := range deliveries {
				if g.handle(ctx, &d) {
					acks.acked(d.DeliveryTag)
				} else {
					acks.finished(d.DeliveryTag)
				}
			}
		})
	}
	stopped := make(chan struct{})
	go func() {
		wg.Wait()
		acks.close()
		close(stopped)
	}()
	select {
	case <-stopped: // the channel or connection closed
		return errors.New("the ingest consumer stopped")
	case <-ctx.Done():
		ch.Cancel(tag, false) // the broker stops sending; deliveries closes
		<-stopped
		return ctx.Err()
	}
}

// ingestIdentity is the identity of every ingested message.
var ingestIdentity = access.Internal("amqp-ingest")

// handle puts one delivery. It reports true when d is to be acknowledged
// (the caller's acker does it); otherwise it has settled d itself (nack
// for a retry, or dead-lettered).
func (g *Ingest) handle(ctx context.Context, d *rabbit.Delivery) bool {
	if ctx.Err() != nil { // stopping: leave it to the next consumer
		d.Nack(false, true)
		return false
	}
	in, err := toPutInput(d)
	if err == nil {
		// A put under way is finished even when stopping, so that what it
		// stored is acknowledged.
		// Whoever the broker lets publish to the ingest exchange may write
		// any path (docs/security.md).
		pctx, cancel := context.WithTimeout(limits.WithDoor(access.WithIdentity(context.WithoutCancel(ctx), ingestIdentity), limits.DoorAMQP), time.Minute)
		var created bool
		_, created, err = g.put.Put(pctx, in)
		cancel()
		if err == nil {
			g.retry.reset()
			if created {
				g.stored.Add(1)
			} else {
				g.repeats.Add(1)
			}
			return true
		}
	}
	switch herald.ErrorCode(err) {
	case herald.EInvalid, herald.ETooLarge, herald.EConflict:
		g.deadLetter(ctx, d, err)
	case herald.EThrottled:
		// Over the AMQP door's rate limit (limits.DoorAMQP): to the DLX
		// with the reason, so that a flooding publisher cannot hold the
		// ingest queue; an operator may replay the DLX later.
		g.throttled.Add(1)
		g.deadLetter(ctx, d, err)
	default: // unavailable, or a failure that may pass: retry later
		g.requeueLater(ctx, d, err)
	}
	return false
}

// requeueLater waits for the shared, increasing backoff and returns d to
// the queue. Holding d meanwhile keeps the prefetch window occupied, which
// slows the consumer down while the store is failing.
func (g *Ingest) requeueLater(ctx context.Context, d *rabbit.Delivery, err error) {
	wait := g.retry.wait()
	g.o.Logger.Warn("cannot store an ingested message; requeueing it", "amqp", "ingest",
		"routing_key", d.RoutingKey, "err", err, "after", wait)
	sleep(ctx, wait)
	g.requeued.Add(1)
	d.Nack(false, true)
}

// deadLetter moves d to the DLX with the reason, then acknowledges it; if
// that fails, d is requeued to be tried again.
func (g *Ingest) deadLetter(ctx context.Context, d *rabbit.Delivery, reason error) {
	msg := herald.ErrorMessage(reason)
	if herald.ErrorCode(reason) == herald.EInternal {
		msg = reason.Error()
	}
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err := g.dead.publish(pctx, d, msg)
	cancel()
	if err != nil {
		g.requeueLater(ctx, d, err)
		return
	}
	g.deadLettered.Add(1)
	g.o.Logger.Info("dead-lettered an invalid message", "amqp", "ingest", "routing_key", d.RoutingKey, "reason", msg)
	d.Ack(false)
}
