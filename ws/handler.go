// Package ws serves Herald's WebSocket protocol (docs/websocket.md) at
// GET /v1/ws: live, latest and recover subscriptions to path patterns over
// the cache's Events, publishing and querying through the cache.Service,
// and push delivery of SQS queues through a QueuePush factory.
//
// Each connection has one reader goroutine, which handles the client's
// frames in order, and one writer goroutine, which drains a send queue
// bounded in bytes. Events callbacks only offer frames to that queue and
// never block; a client that lets it overflow is closed with 4008.
package ws

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// Close codes of the protocol beyond RFC 6455's.
const (
	CloseAuthFailed   websocket.StatusCode = 4001
	CloseSlowConsumer websocket.StatusCode = 4008
)

// Handler serves GET /v1/ws.
type Handler struct {
	cfg   Config
	enc   messageEncoder // live events' message JSON, shared by all connections
	conns conns          // open connections, for Shutdown
}

// NewHandler returns the WebSocket endpoint over cfg.Cache and cfg.Events.
func NewHandler(cfg Config) *Handler {
	return &Handler{cfg: cfg.withDefaults()}
}

// ServeHTTP upgrades the request and serves the connection until it ends.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var grants Grants = AllowAll{}
	var authErr error
	if h.cfg.Authenticate != nil {
		grants, authErr = h.cfg.Authenticate(r)
		if authErr == nil && grants == nil {
			authErr = errors.New("no grants")
		}
	}
	wsc, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: h.cfg.OriginPatterns})
	if err != nil {
		h.cfg.Logger.Debug("websocket upgrade failed", "err", err, "remote", r.RemoteAddr)
		return
	}
	if authErr != nil {
		wsc.Close(CloseAuthFailed, closeReason("authentication failed: "+authErr.Error()))
		return
	}
	wsc.SetReadLimit(h.cfg.MaxFrameBytes)
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	c := &conn{
		h:      h,
		ws:     wsc,
		grants: grants,
		ctx:    ctx,
		out:    newSendQueue(h.cfg.SendQueueBytes),
		subs:   map[string]*subscription{},
		queues: map[string]QueuePush{},
	}
	if !h.conns.add(c) {
		wsc.Close(websocket.StatusGoingAway, "server shutting down")
		cancel()
		return
	}
	defer h.conns.remove(c)
	var wg sync.WaitGroup
	wg.Go(c.writeLoop) // also sends the pings: one goroutine less per connection
	c.readLoop()
	c.shutdown()
	cancel()
	wg.Wait()
	wsc.CloseNow()
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
	grants Grants
	ctx    context.Context // ends when the connection is being torn down
	out    *sendQueue

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

// writeLoop sends queued frames until the connection ends or overflows,
// and a WebSocket ping every PingInterval.
func (c *conn) writeLoop() {
	ping := time.NewTicker(c.h.cfg.PingInterval)
	defer ping.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.out.over:
			c.h.cfg.Logger.Warn("websocket client too slow; disconnected")
			c.closeWith(CloseSlowConsumer, "slow consumer: send queue full")
			return
		case <-ping.C:
			// Ping waits for the pong: on a goroutine of its own, so
			// frames keep flowing meanwhile.
			go c.ping()
			continue
		case <-c.out.wake:
		}
		for _, it := range c.out.take() {
			select {
			case <-c.out.over:
			case <-c.ctx.Done():
				return
			default:
			}
			b := it.b
			if b == nil {
				var err error
				if b, err = marshal(it.v); err != nil {
					c.h.cfg.Logger.Error("websocket frame encoding failed", "err", err)
					continue
				}
			}
			wctx, cancel := context.WithTimeout(c.ctx, c.h.cfg.WriteTimeout)
			err := c.ws.Write(wctx, websocket.MessageText, b)
			cancel()
			if err != nil {
				c.closeWith(websocket.StatusGoingAway, "write failed")
				return
			}
		}
	}
}

// ping sends one WebSocket ping; no pong within PingInterval ends the
// connection.
func (c *conn) ping() {
	pctx, cancel := context.WithTimeout(c.ctx, c.h.cfg.PingInterval)
	err := c.ws.Ping(pctx)
	cancel()
	if err != nil && c.ctx.Err() == nil {
		c.closeWith(websocket.StatusGoingAway, "ping timeout")
	}
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

// sendError answers request id with an error frame.
func (c *conn) sendError(id, code, msg string) {
	c.send(errorFrame{Type: "error", ID: id, Code: code, Message: msg})
}

// sendErr answers request id with the error frame of a domain error.
func (c *conn) sendErr(id string, err error) {
	code := codeOf(err)
	if code == codeInternal {
		c.h.cfg.Logger.Error("websocket request failed", "id", id, "err", err)
	}
	c.sendError(id, code, messageOf(err))
}
