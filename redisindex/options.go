package redisindex

import "time"

// Options tune an Index or a Notifier. The zero value means the defaults.
type Options struct {
	// Prefix starts every key and channel name; default "herald:sqs:".
	Prefix string
	// Timeout bounds each Redis operation (default 500 ms). The client
	// should enforce it too: build it with ContextTimeoutEnabled (see
	// ClientOptions), or its own read and write timeouts apply instead.
	Timeout time.Duration
	// IdleExpiry is how long the loaded marker of a queue without
	// messages outlives its last receive (default 15 minutes; negative:
	// forever).
	IdleExpiry time.Duration
	// GroupScan bounds the FIFO message groups one Receive skips because
	// their head is not visible yet, and the heads Remove and SetVisibleAt
	// inspect to recompute a group's block (default 64).
	GroupScan int
	// BlockLift bounds the FIFO groups whose block ended that one Receive
	// makes receivable again (default 1000); the rest follow on later calls.
	BlockLift int
	// Breaker, when set, guards every call to Redis (breaker.go); a node's
	// Index and Notifier share one. Nil: no breaker.
	Breaker *Breaker
	// AutoPipeline sends the scripts and publishes through the client's
	// automatic pipeline (pipeline.go): the commands of concurrent calls
	// share one write and one read.
	AutoPipeline bool
}

const (
	defaultPrefix     = "herald:sqs:"
	defaultTimeout    = 500 * time.Millisecond
	defaultIdleExpiry = 15 * time.Minute
	defaultGroupScan  = 64
	defaultBlockLift  = 1000
	// batchSize bounds the entries or ids of one script call, so that a
	// rebuild of a large queue never blocks Redis for long.
	batchSize = 500
)

func (o Options) withDefaults() Options {
	if o.Prefix == "" {
		o.Prefix = defaultPrefix
	}
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.IdleExpiry == 0 {
		o.IdleExpiry = defaultIdleExpiry
	}
	if o.GroupScan <= 0 {
		o.GroupScan = defaultGroupScan
	}
	if o.BlockLift <= 0 {
		o.BlockLift = defaultBlockLift
	}
	return o
}

// idleMillis is IdleExpiry for the scripts: 0 means never expire.
func (o Options) idleMillis() int64 {
	if o.IdleExpiry < 0 {
		return 0
	}
	return o.IdleExpiry.Milliseconds()
}
