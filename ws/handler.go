// Package ws serves Herald's WebSocket protocol (docs/websocket.md) at
// GET /v1/ws: live, latest and recover subscriptions to path patterns over
// the cache's Events, publishing and querying through the cache.Service,
// and push delivery of SQS queues through a QueuePush factory.
//
// Each connection has one reader goroutine, which handles the client's
// frames in order, and a send queue bounded in bytes. Events callbacks
// only offer frames to that queue and never block; a client that lets it
// overflow is closed with 4008. Queued frames are written by a small pool
// of writers, without waiting for the socket; a connection whose socket is
// full (or that uses TLS) gets a writer goroutine of its own until its
// queue is empty (writerpool.go). Writers write text frames beneath the
// WebSocket library, gathered into pooled buffers; the library keeps the
// handshake, the reading and the control frames (framewriter.go).
package ws

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/limits"
)

// Close codes of the protocol beyond RFC 6455's (docs/websocket.md, "Close
// codes"). Their range tells a client what to do: 4000–4499 (and
// 3000–3499) reconnect, with backoff; 4500–4999 (and 3500–3999) do not
// reconnect until something changes (a credential, the client's code).
const (
	CloseTokenExpired      websocket.StatusCode = 4003 // the credential expired while connected: reconnect with a new one
	CloseMissedPong        websocket.StatusCode = 4004 // no pong to the server's ping in time: reconnect
	CloseSlowConsumer      websocket.StatusCode = 4008 // the send queue overflowed: reconnect with recover
	CloseEventsInterrupted websocket.StatusCode = 4009 // the node's live feed was interrupted: reconnect with recover
	CloseOverQuota         websocket.StatusCode = 4010 // the account holds its quota of WebSockets on this node: reconnect after closing another
	CloseAuthFailed        websocket.StatusCode = 4501 // authentication failed at connect (4001 before issue 16): do not retry the same credential
)

// Handler serves GET /v1/ws.
type Handler struct {
	cfg   Config
	enc   messageEncoder // live events' message JSON, shared by all connections
	conns conns          // open connections, for Shutdown
	stats Stats
	// holdings counts each account's open connections, for its quota.
	holdings limits.Holdings
	// batches are the buffers writers gather frames in (framewriter.go).
	batches batchPool
	writers writerPool // writers of connections that need not wait (writerpool.go)
	hooks   testHooks  // nil functions outside tests
}

// testHooks let tests pin down interleavings; each is nil in production
// and set before the first connection.
type testHooks struct {
	phaseFrame func() // a latest or recover frame is about to be queued (the phase lock is held)
	stopping   func() // a subscription's stop has cancelled it and is about to take the phase lock
	handover   func() // a pool writer hands a connection whose socket is full to a goroutine of its own
}

// NewHandler returns the WebSocket endpoint over cfg.Cache and cfg.Events.
func NewHandler(cfg Config) *Handler {
	h := &Handler{cfg: cfg.withDefaults()}
	h.batches.size = h.cfg.WriteBufferBytes
	h.watchResumes()
	return h
}

// ServeHTTP upgrades the request and serves the connection until it ends.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	id := anonymous
	var authErr error
	if h.cfg.Authenticate != nil {
		id, authErr = h.cfg.Authenticate(r)
	}
	uw := &upgradeWriter{ResponseWriter: w, readSize: h.cfg.ReadBufferBytes}
	wsc, err := websocket.Accept(uw, r, &websocket.AcceptOptions{OriginPatterns: h.cfg.OriginPatterns})
	if err != nil {
		h.cfg.Logger.Debug("websocket upgrade failed", "err", err, "remote", r.RemoteAddr)
		return
	}
	if authErr != nil {
		h.stats.AuthFailures.Add(1)
		wsc.Close(CloseAuthFailed, closeReason("authentication failed: "+authErr.Error()))
		return
	}
	release := func() {}
	if quota, ok := h.cfg.Limits.Quota(id.Account, limits.QuotaWebSockets); ok {
		var err error
		if release, err = h.holdings.Take(id.Account, limits.QuotaWebSockets, quota); err != nil {
			h.stats.OverQuota.Add(1)
			wsc.Close(CloseOverQuota, closeReason(herald.ErrorMessage(err)))
			return
		}
	}
	wsc.SetReadLimit(h.cfg.MaxFrameBytes)
	// The identity rides in the context, so that the cache service checks
	// every query and publish against it too.
	// The door marks what the client sends as WebSocket traffic for the
	// rate limits (limits.DoorWS).
	ctx, cancel := context.WithCancel(limits.WithDoor(access.WithIdentity(context.WithoutCancel(r.Context()), id), limits.DoorWS))
	c := &conn{
		h:      h,
		ws:     wsc,
		fw:     uw.fw,
		id:     id,
		ctx:    ctx,
		cancel: cancel,
		subs:   map[string]*subscription{},
		queues: map[string]QueuePush{},
	}
	c.out = newSendQueue(h.cfg.SendQueueBytes, c.startWriter, c.slowConsumer)
	context.AfterFunc(ctx, release) // the connection's end frees its place
	if !h.conns.add(c) {
		wsc.Close(websocket.StatusGoingAway, "server shutting down")
		cancel()
		return
	}
	if !id.Expires.IsZero() {
		expiry := time.AfterFunc(time.Until(id.Expires), func() {
			c.closeWith(CloseTokenExpired, "token expired")
		})
		context.AfterFunc(ctx, func() { expiry.Stop() })
	}
	// The reader runs on a goroutine of its own so that this one, and
	// with it net/http's request and connection state, ends now.
	go c.serve()
}

// serve reads the client's frames until the connection ends, then tears
// the connection down. Besides this reader, a connection has a goroutine
// only while frames wait to be written (writeFrames) or a ping waits for
// its pong.
func (c *conn) serve() {
	defer c.h.conns.remove(c)
	c.mu.Lock()
	c.pinger = time.AfterFunc(c.h.cfg.PingInterval, c.ping)
	c.mu.Unlock()
	c.readLoop()
	c.mu.Lock()
	c.pinger.Stop()
	c.mu.Unlock()
	c.shutdown()
	c.cancel()
	c.ws.CloseNow()
}

// closeReason fits a close reason into a close frame (123 bytes).
func closeReason(s string) string {
	if len(s) > 123 {
		s = s[:123]
	}
	return s
}

// conn is one client connection.
type conn struct {
	h      *Handler
	ws     *websocket.Conn
	fw     *frameWriter // writes the text frames (framewriter.go)
	id     access.Identity
	ctx    context.Context // ends when the connection is being torn down
	cancel context.CancelFunc
	out    *sendQueue
	pinger *time.Timer // under mu

	writingSince atomic.Int64 // UnixNano when the writer's batch began; 0: not writing

	mu     sync.Mutex
	subs   map[string]*subscription // by pattern
	queues map[string]QueuePush     // by queue as the client named it

	closeOnce sync.Once
	closing   atomic.Bool // closeWith was called: frames are no longer handled
}

// closeWith closes the connection with code, once; the reader then ends.
func (c *conn) closeWith(code websocket.StatusCode, reason string) {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		c.out.close()
		go func() {
			err := c.ws.Close(code, closeReason(reason))
			c.h.cfg.Logger.Debug("websocket closed", "code", code, "err", err)
		}()
	})
}

// slowConsumer closes a connection whose send queue overflowed.
func (c *conn) slowConsumer() {
	c.h.stats.SlowConsumers.Add(1)
	c.h.cfg.Logger.Warn("websocket client too slow; disconnected")
	c.closeWith(CloseSlowConsumer, "slow consumer: send queue full")
}

// ping sends one WebSocket ping and schedules the next; no pong within
// PingInterval ends the connection. It runs on the pinger timer's
// goroutine.
func (c *conn) ping() {
	if c.ctx.Err() != nil {
		return
	}
	pctx, cancel := context.WithTimeout(c.ctx, c.h.cfg.PingInterval)
	err := c.ws.Ping(pctx)
	cancel()
	if err != nil {
		if c.ctx.Err() == nil {
			c.h.stats.MissedPongs.Add(1)
			c.closeWith(CloseMissedPong, "no pong to the server's ping")
		}
		return
	}
	c.mu.Lock()
	c.pinger.Reset(c.h.cfg.PingInterval)
	c.mu.Unlock()
}

// shutdown releases the connection's subscriptions and queue pushes.
func (c *conn) shutdown() {
	c.out.close()
	c.mu.Lock()
	subs, queues := c.subs, c.queues
	c.subs, c.queues = map[string]*subscription{}, map[string]QueuePush{}
	c.mu.Unlock()
	for _, s := range subs {
		s.stop()
	}
	for _, q := range queues {
		q.Close()
	}
}

// send queues a frame produced on the reader goroutine (a reply), waiting
// for room.
func (c *conn) send(v any) bool {
	b, err := marshal(v)
	if err != nil {
		c.h.cfg.Logger.Error("websocket frame encoding failed", "err", err)
		return false
	}
	return c.out.put(c.ctx, outItem{b: b, n: len(b)})
}

// sendError answers request id with an error frame. Messages repeat
// client input only through herald.Clip; the whole message is bounded by
// herald.ClipMessage all the same.
func (c *conn) sendError(id, code, msg string) {
	c.send(errorFrame{Type: "error", ID: id, Code: code, Message: herald.ClipMessage(msg)})
}

// sendErr answers request id with the error frame of a domain error.
func (c *conn) sendErr(id string, err error) {
	c.send(c.errFrame(id, err))
}

// errFrame is the error frame of a domain error answering request id.
func (c *conn) errFrame(id string, err error) errorFrame {
	code := codeOf(err)
	if code == codeInternal {
		c.h.cfg.Logger.Error("websocket request failed", "id", id, "err", err)
	}
	f := errorFrame{Type: "error", ID: id, Code: code, Message: herald.ClipMessage(messageOf(err))}
	if d, ok := herald.RetryAfter(err); ok {
		f.RetryAfterMS = max(d.Milliseconds(), 1)
	}
	return f
}
