package amqp

import (
	rabbit "github.com/rabbitmq/amqp091-go"
)

// declareIngest declares the ingest exchange and queue, bound with "#",
// and the dead-letter exchange with its queue. Declaring is idempotent, so
// it runs on every (re)connection.
func declareIngest(ch *rabbit.Channel, o *Options) error {
	if err := ch.ExchangeDeclare(o.IngestExchange, rabbit.ExchangeTopic, true, false, false, false, nil); err != nil {
		return err
	}
	if _, err := ch.QueueDeclare(o.IngestQueue, true, false, false, false, nil); err != nil {
		return err
	}
	if err := ch.QueueBind(o.IngestQueue, "#", o.IngestExchange, false, nil); err != nil {
		return err
	}
	return declareDead(ch, o)
}

// declareDead declares the dead-letter fanout exchange and its queue.
func declareDead(ch *rabbit.Channel, o *Options) error {
	if err := ch.ExchangeDeclare(o.DLX, rabbit.ExchangeFanout, true, false, false, false, nil); err != nil {
		return err
	}
	if _, err := ch.QueueDeclare(o.DeadQueue, true, false, false, false, nil); err != nil {
		return err
	}
	return ch.QueueBind(o.DeadQueue, "", o.DLX, false, nil)
}

// declareEvents declares the events topic exchange.
func declareEvents(ch *rabbit.Channel, o *Options) error {
	return ch.ExchangeDeclare(o.EventsExchange, rabbit.ExchangeTopic, true, false, false, false, nil)
}
