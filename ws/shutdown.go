package ws

import (
	"context"
	"sync"

	"github.com/coder/websocket"
)

// conns tracks the open connections so that Shutdown can close them:
// http.Server.Shutdown does not close hijacked connections.
type conns struct {
	mu     sync.Mutex
	open   map[*conn]struct{}
	closed bool
	done   chan struct{} // closed by Shutdown; made by the first add
	empty  chan struct{} // closed once Shutdown has begun and no connection is left
}

// add registers c; it reports false once Shutdown has begun. The first
// add starts the handler's sweeper of stuck writes.
func (cs *conns) add(c *conn) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.closed {
		return false
	}
	if cs.open == nil {
		cs.open = map[*conn]struct{}{}
		cs.done = make(chan struct{})
		go c.h.sweepStuckWrites()
		c.h.writers.start()
	}
	cs.open[c] = struct{}{}
	c.h.stats.Accepted.Add(1)
	c.h.stats.Connections.Add(1)
	return true
}

func (cs *conns) remove(c *conn) {
	cs.mu.Lock()
	delete(cs.open, c)
	cs.closeIfEmpty()
	cs.mu.Unlock()
	c.h.stats.Connections.Add(-1)
}

// closeIfEmpty closes empty once Shutdown has begun and the last
// connection is gone; cs.mu is held.
func (cs *conns) closeIfEmpty() {
	if cs.closed && len(cs.open) == 0 {
		select {
		case <-cs.empty:
		default:
			close(cs.empty)
		}
	}
}

// Shutdown closes every connection with close code 1001 (going away) and
// refuses new ones; clients reconnect to another node (or to this one once
// it is back) and recover what they missed with `since`. It returns once
// every connection has ended (its close handshake done) or ctx ends.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.conns.mu.Lock()
	if !h.conns.closed {
		if h.conns.done != nil {
			close(h.conns.done)
		}
		h.conns.closed = true
		h.writers.stop() // what is ready is still written; later frames get goroutines of their own
		h.conns.empty = make(chan struct{})
		h.conns.closeIfEmpty()
	}
	empty := h.conns.empty
	open := make([]*conn, 0, len(h.conns.open))
	for c := range h.conns.open {
		open = append(open, c)
	}
	h.conns.mu.Unlock()
	for _, c := range open {
		c.closeWith(websocket.StatusGoingAway, "server shutting down")
	}
	select {
	case <-empty:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
