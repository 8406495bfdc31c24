// Package amqp connects Herald to RabbitMQ (AMQP 0-9-1): it ingests messages
// that backend systems publish to a topic exchange into the cache (Ingest),
// and it carries every stored message as events through another topic
// exchange, for backends bound to it and for live subscribers on every
// Herald node (Events, an implementation of cache.Events).
//
// Each part keeps its own connections (one for consuming, one for
// publishing) and one channel per goroutine. When a connection is lost it
// is dialled again with a bounded, increasing backoff and the topology
// (exchanges, queues, bindings) is declared again before work resumes;
// nothing is acknowledged to RabbitMQ before the cache stored it, and no
// event leaves the publish buffer before RabbitMQ confirmed it.
//
// AMQP topic wildcards ("*" one word, "#" zero or more words) are exactly
// Herald's pattern syntax (package paths), so routing keys are paths and
// binding keys are patterns.
package amqp
