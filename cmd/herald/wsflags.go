package main

import (
	"flag"
	"time"

	"github.com/heraldmq/herald/ws"
)

// wsConfig configures the WebSocket gateway at /v1/ws.
type wsConfig struct {
	anonymous        string // auto, true or false
	hs256Secret      string
	publicKeyFiles   string
	maxSubscriptions int
	sendQueueBytes   int
	maxFrameBytes    int
	recoverLimit     int
	maxRecoverLimit  int
	recoverOverlap   time.Duration
	pingInterval     time.Duration
	writeTimeout     time.Duration
	readBufferBytes  int
	writeBufferBytes int
}

func (c *wsConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.anonymous, "ws-anonymous", "auto", "let WebSocket clients without a token subscribe and publish to everything: true, false, or auto (true on the embedded store when no token keys are configured, false otherwise)")
	fs.StringVar(&c.hs256Secret, "ws-jwt-secret", "", "HS256 secret WebSocket tokens may be signed with (prefer the environment variable)")
	fs.StringVar(&c.publicKeyFiles, "ws-jwt-public-keys", "", "PEM files (comma-separated) of RSA (RS256) or ECDSA (ES256) public keys WebSocket tokens may be signed with")
	fs.IntVar(&c.maxSubscriptions, "ws-max-subscriptions", 100, "subscriptions one WebSocket connection may hold")
	fs.IntVar(&c.sendQueueBytes, "ws-send-queue-bytes", 1<<20, "bytes waiting to be sent to one WebSocket client before it is disconnected as too slow (close code 4008)")
	fs.IntVar(&c.maxFrameBytes, "ws-max-frame-bytes", 1<<20, "largest frame a WebSocket client may send (close code 1009)")
	fs.IntVar(&c.recoverLimit, "ws-recover-limit", ws.DefaultRecoverLimit, "messages a recover subscription sends when it names no limit")
	fs.IntVar(&c.maxRecoverLimit, "ws-max-recover-limit", ws.DefaultMaxRecoverLimit, "most messages one recover or latest subscription sends")
	fs.DurationVar(&c.recoverOverlap, "ws-recover-overlap", ws.DefaultRecoverOverlap, "how far before a since position a recover starts, for messages of other nodes delivered out of order (0: none)")
	fs.DurationVar(&c.pingInterval, "ws-ping-interval", ws.DefaultPingInterval, "WebSocket ping interval; a pong missing by the next ping closes the connection (4004)")
	fs.DurationVar(&c.writeTimeout, "ws-write-timeout", ws.DefaultWriteTimeout, "longest a client may hold a write (its TCP window closed) before the connection is ended")
	fs.IntVar(&c.readBufferBytes, "ws-read-buffer-bytes", ws.DefaultReadBufferBytes, "read buffer of each WebSocket connection")
	fs.IntVar(&c.writeBufferBytes, "ws-write-buffer-bytes", ws.DefaultWriteBufferBytes, "bytes of frames a WebSocket connection's writer gathers into one write call, in buffers shared through a pool (not held by idle connections); a larger frame is written alone")
}

// overlap is ws.Config.RecoverOverlap: the flag's 0 (none) is negative
// there, where 0 takes the default.
func (c *wsConfig) overlap() time.Duration {
	if c.recoverOverlap <= 0 {
		return -1
	}
	return c.recoverOverlap
}
