package amqp

import (
	"errors"
	"io"
	"log/slog"
	"time"
)

// Options configure a connection to RabbitMQ and the names Herald uses there.
// Zero fields take the defaults documented beside them.
type Options struct {
	URL  string // amqp://user:pass@host:port/vhost; required
	Name string // names this node's connections in the broker's UI; default "herald"

	IngestExchange string // topic exchange backends publish to; default "herald.ingest"
	RollupExchange string // topic exchange of rollup events (FeedRollup); default "herald.rollups"
	IngestQueue    string // durable queue bound to it with "#"; default "herald.ingest"
	DLX            string // fanout exchange for invalid messages; default "herald.ingest.dlx"
	DeadQueue      string // durable queue bound to the DLX; default "herald.ingest.dead"
	EventsExchange string // topic exchange of stored-message events; default "herald.events"

	Prefetch      int // unacknowledged ingest deliveries at a time; default 200
	IngestWorkers int // concurrent puts into the cache; default 64 (at most Prefetch)
	PublishBuffer int // events accepted but not yet confirmed; default 10000
	ConfirmWindow int // events published and awaiting confirmation; default 1000 (at most PublishBuffer)
	EventPrefetch int // unacknowledged event deliveries to this node; default 1000

	RedialMin time.Duration // first wait before dialling again; default 100ms
	RedialMax time.Duration // longest wait between dials; default 10s
	RetryMin  time.Duration // first wait before requeueing a put the store refused; default 100ms
	RetryMax  time.Duration // longest such wait; default 5s
	Heartbeat time.Duration // AMQP heartbeat; default 10s

	Logger *slog.Logger // default: discard
	// Links, when set, is told when each connection goes up or down.
	Links *Links
}

func (o Options) withDefaults() (Options, error) {
	if o.URL == "" {
		return o, errors.New("amqp: Options.URL is required")
	}
	str := func(p *string, d string) {
		if *p == "" {
			*p = d
		}
	}
	num := func(p *int, d int) {
		if *p <= 0 {
			*p = d
		}
	}
	dur := func(p *time.Duration, d time.Duration) {
		if *p <= 0 {
			*p = d
		}
	}
	str(&o.Name, "herald")
	str(&o.IngestExchange, "herald.ingest")
	str(&o.RollupExchange, "herald.rollups")
	str(&o.IngestQueue, "herald.ingest")
	str(&o.DLX, "herald.ingest.dlx")
	str(&o.DeadQueue, "herald.ingest.dead")
	str(&o.EventsExchange, "herald.events")
	num(&o.Prefetch, 200)
	num(&o.IngestWorkers, 64)
	o.IngestWorkers = min(o.IngestWorkers, o.Prefetch)
	num(&o.PublishBuffer, 10000)
	num(&o.ConfirmWindow, 1000)
	o.ConfirmWindow = min(o.ConfirmWindow, o.PublishBuffer)
	num(&o.EventPrefetch, 1000)
	dur(&o.RedialMin, 100*time.Millisecond)
	dur(&o.RedialMax, 10*time.Second)
	dur(&o.RetryMin, 100*time.Millisecond)
	dur(&o.RetryMax, 5*time.Second)
	dur(&o.Heartbeat, 10*time.Second)
	o.RedialMax = max(o.RedialMax, o.RedialMin)
	o.RetryMax = max(o.RetryMax, o.RetryMin)
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o, nil
}
