package ws

import (
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
	}
	cs.open[c] = struct{}{}
	c.h.stats.Accepted.Add(1)
	c.h.stats.Connections.Add(1)
	return true
}

func (cs *conns) remove(c *conn) {
	cs.mu.Lock()
	delete(cs.open, c)
	cs.mu.Unlock()
	c.h.stats.Connections.Add(-1)
}

// Shutdown closes every connection with close code 1001 (going away) and
// refuses new ones; clients reconnect to another node (or to this one once
// it is back) and recover what they missed with `since`.
func (h *Handler) Shutdown() {
	h.conns.mu.Lock()
	if !h.conns.closed && h.conns.done != nil {
		close(h.conns.done)
	}
	h.conns.closed = true
	open := make([]*conn, 0, len(h.conns.open))
	for c := range h.conns.open {
		open = append(open, c)
	}
	h.conns.mu.Unlock()
	for _, c := range open {
		c.closeWith(websocket.StatusGoingAway, "server shutting down")
	}
}
