package ws

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/limits"
	"github.com/heraldmq/herald/rollup"
)

// anonymous is the identity of every client when Config.Authenticate is
// nil: every grant.
var anonymous = access.Identity{Subject: "anonymous", Grants: access.AllowAll()}

// QueuePush is one connection's push subscription to an SQS queue.
type QueuePush interface {
	// Ack deletes the message received with handle.
	Ack(handle string) error
	// Nack makes the message received with handle visible again at once.
	Nack(handle string) error
	// Close stops pushing; in-flight messages become visible again at once.
	Close()
}

// NewQueuePushFunc starts pushing the messages of queueName (a queue URL or
// name) to a connection: send writes one frame (a queue_message) to the
// client, blocking while the connection's send queue is full, and fails
// once the connection is gone. vt is the visibility timeout in seconds.
// id is the connection's identity: the queue is looked up, and consumed,
// in its account.
type NewQueuePushFunc func(ctx context.Context, id access.Identity, queueName string, vt, maxInFlight int, send func(frame any) error) (QueuePush, error)

// Defaults of Config's limits.
const (
	DefaultMaxFrameBytes    = 1 << 20
	DefaultSendQueueBytes   = 1 << 20
	DefaultMaxSubscriptions = 100
	DefaultMaxMalformed     = 5
	DefaultPingInterval     = 20 * time.Second
	DefaultRecoverLimit     = 1000
	DefaultMaxRecoverLimit  = 10000
	DefaultRecoverOverlap   = 2 * time.Second
	DefaultWriteTimeout     = 10 * time.Second
	DefaultVisibility       = 30
	DefaultMaxInFlight      = 10
)

// Config configures NewHandler. Zero limits take the defaults above.
type Config struct {
	Cache  *cache.Service
	Events cache.Events
	// Limits, when set, bounds the WebSockets an account holds open on
	// this node (the quota limits.QuotaWebSockets): one over it is closed
	// with 4010 right after the upgrade.
	Limits *limits.Limiter
	// Authenticate returns the identity of a connecting client; an error
	// closes the connection with 4501 right after the upgrade. Nil allows
	// everything. An identity that expires (a token's exp) is closed with
	// 4003 when it does.
	Authenticate func(r *http.Request) (access.Identity, error)
	// NewQueuePush serves subscribe_queue; nil answers it "unavailable".
	NewQueuePush NewQueuePushFunc
	// Rollups serves the rollup queries (rollup_series, rollup_totals,
	// rollup_top); nil answers them "unavailable".
	Rollups *rollup.Service

	MaxFrameBytes    int64         // largest client frame; larger closes with 1009
	SendQueueBytes   int           // bytes waiting for one client; more closes with 4008
	MaxSubscriptions int           // patterns plus queues per connection
	MaxMalformed     int           // malformed frames in a row before closing with 1008
	PingInterval     time.Duration // WebSocket pings; a missing pong closes the connection
	RecoverLimit     int           // default limit of a recover subscription
	MaxRecoverLimit  int           // largest limit of recover; most messages of latest
	RecoverOverlap   time.Duration // how far before a since position recover starts; negative: not at all
	WriteTimeout     time.Duration // longest wait for one batch of frame writes
	ReadBufferBytes  int           // read buffer of a connection (DefaultReadBufferBytes)
	WriteBufferBytes int           // frames gathered into one write call, in buffers shared through a pool (DefaultWriteBufferBytes); a larger frame is written alone
	OriginPatterns   []string      // extra allowed Origin hosts (websocket.AcceptOptions)
	Logger           *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.MaxFrameBytes <= 0 {
		c.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if c.SendQueueBytes <= 0 {
		c.SendQueueBytes = DefaultSendQueueBytes
	}
	if c.MaxSubscriptions <= 0 {
		c.MaxSubscriptions = DefaultMaxSubscriptions
	}
	if c.MaxMalformed <= 0 {
		c.MaxMalformed = DefaultMaxMalformed
	}
	if c.PingInterval <= 0 {
		c.PingInterval = DefaultPingInterval
	}
	if c.RecoverLimit <= 0 {
		c.RecoverLimit = DefaultRecoverLimit
	}
	if c.MaxRecoverLimit <= 0 {
		c.MaxRecoverLimit = DefaultMaxRecoverLimit
	}
	switch {
	case c.RecoverOverlap == 0:
		c.RecoverOverlap = DefaultRecoverOverlap
	case c.RecoverOverlap < 0:
		c.RecoverOverlap = 0
	}
	if c.RecoverLimit > c.MaxRecoverLimit {
		c.RecoverLimit = c.MaxRecoverLimit
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.ReadBufferBytes <= 0 {
		c.ReadBufferBytes = DefaultReadBufferBytes
	}
	if c.WriteBufferBytes <= 0 {
		c.WriteBufferBytes = DefaultWriteBufferBytes
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}
