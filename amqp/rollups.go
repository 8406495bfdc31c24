package amqp

import (
	"context"
	"errors"
	"time"

	rabbit "github.com/rabbitmq/amqp091-go"

	"github.com/heraldmq/herald"
)

// FeedRollup feeds one rollup from the rollup exchange
// (Options.RollupExchange, a topic exchange apart from the cache's ingest)
// until ctx ends: a durable queue of its own (queue), bound to it with
// routing key key, consumed by every node; each delivery's body is handed
// to ingest, and acknowledged once ingest returned (the events are
// committed). A body ingest refuses as invalid, or for a rollup gone, is
// rejected to the dead-letter exchange; one it could not commit now is
// requeued after a backoff. A redelivery after a crash between the commit
// and the ack only repeats events already counted, which count once.
// The queue expires a day after its last consumer left (x-expires), so a
// deleted rollup's queue does not stay.
func FeedRollup(ctx context.Context, o Options, queue, key string, ingest func(ctx context.Context, body []byte) error) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	retry := backoff{min: o.RetryMin, max: o.RetryMax}
	role := "rollup " + queue
	keepConnected(ctx, &o, role, func(ctx context.Context, conn *rabbit.Connection) error {
		ch, err := conn.Channel()
		if err != nil {
			return err
		}
		defer ch.Close()
		if err := ch.ExchangeDeclare(o.RollupExchange, rabbit.ExchangeTopic, true, false, false, false, nil); err != nil {
			return err
		}
		if err := declareDead(ch, &o); err != nil {
			return err
		}
		args := rabbit.Table{"x-dead-letter-exchange": o.DLX, "x-expires": int64((24 * time.Hour).Milliseconds())}
		if _, err := ch.QueueDeclare(queue, true, false, false, false, args); err != nil {
			return err
		}
		if err := ch.QueueBind(queue, key, o.RollupExchange, false, nil); err != nil {
			return err
		}
		if err := ch.Qos(o.Prefetch, 0, false); err != nil {
			return err
		}
		deliveries, err := ch.Consume(queue, "herald-rollup", false, false, false, false, nil)
		if err != nil {
			return err
		}
		o.Logger.Info("consuming", "amqp", "rollup", "queue", queue, "routing_key", key)
		for {
			var d rabbit.Delivery
			var ok bool
			select {
			case <-ctx.Done():
				return ctx.Err()
			case d, ok = <-deliveries:
				if !ok {
					return errors.New("the rollup consumer stopped")
				}
			}
			// A commit under way is finished even when stopping.
			err := ingest(context.WithoutCancel(ctx), d.Body)
			switch herald.ErrorCode(err) {
			case "":
				retry.reset()
				_ = d.Ack(false)
			case herald.EInvalid, herald.ETooLarge, herald.ENotFound:
				o.Logger.Warn("rejecting a message a rollup cannot count", "amqp", "rollup", "queue", queue, "err", err)
				_ = d.Reject(false) // to the dead-letter exchange
			default:
				wait := retry.wait()
				o.Logger.Warn("cannot count a message in a rollup; requeueing it", "amqp", "rollup", "queue", queue, "err", err, "after", wait)
				sleep(ctx, wait)
				_ = d.Nack(false, true)
			}
		}
	})
	return nil
}
