package main

import "flag"

// amqpConfig configures the RabbitMQ bridge; it is off unless url is set.
type amqpConfig struct {
	url            string
	ingestExchange string
	ingestQueue    string
	dlx            string
	eventsExchange string
	rollupExchange string
	prefetch       int
	publishBuffer  int
}

func (c *amqpConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "amqp-url", "", "RabbitMQ URL (amqp://user:pass@host:5672/vhost); empty: no AMQP ingest or event stream, live fan-out stays in process (prefer the environment variable)")
	fs.StringVar(&c.ingestExchange, "amqp-ingest-exchange", "herald.ingest", "topic exchange backends publish messages to (routing key = path)")
	fs.StringVar(&c.ingestQueue, "amqp-ingest-queue", "herald.ingest", "durable queue Herald consumes the ingest exchange from")
	fs.StringVar(&c.dlx, "amqp-dlx", "herald.ingest.dlx", "exchange invalid ingested messages are dead-lettered to, with the reason in the x-herald-error header")
	fs.StringVar(&c.eventsExchange, "amqp-events-exchange", "herald.events", "topic exchange every stored message is published to, once per path (routing key = path)")
	fs.StringVar(&c.rollupExchange, "amqp-rollup-exchange", "herald.rollups", "topic exchange backends publish rollup events to; a rollup's sources.amqp_routing_key binds to it")
	fs.IntVar(&c.prefetch, "amqp-prefetch", 200, "unacknowledged ingest messages Herald holds at once")
	fs.IntVar(&c.publishBuffer, "amqp-publish-buffer", 10000, "events buffered for RabbitMQ before puts wait (back-pressure)")
}
