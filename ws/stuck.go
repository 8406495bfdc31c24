package ws

import (
	"time"
)

// A frame write blocks while the client's socket buffer is full. Rather
// than arm a deadline for every frame (a timer per frame in a 10,000-way
// fan-out), each connection notes when its writer started a batch, and one
// sweeper per Handler closes the connections whose batch has taken longer
// than WriteTimeout.

// sweepInterval is how often the sweeper looks: a tenth of WriteTimeout,
// so a stuck write ends within 1.1 WriteTimeouts.
func (h *Handler) sweepInterval() time.Duration {
	return max(h.cfg.WriteTimeout/10, 10*time.Millisecond)
}

// sweepStuckWrites runs until Shutdown.
func (h *Handler) sweepStuckWrites() {
	t := time.NewTicker(h.sweepInterval())
	defer t.Stop()
	for {
		select {
		case <-h.conns.done:
			return
		case now := <-t.C:
			for _, c := range h.conns.stuck(now.Add(-h.cfg.WriteTimeout).UnixNano()) {
				h.stats.WriteTimeouts.Add(1)
				h.cfg.Logger.Warn("websocket write timed out; disconnected", "timeout", h.cfg.WriteTimeout)
				// The write holds the connection: no close frame can
				// follow it. Closing the socket ends the write.
				c.ws.CloseNow()
			}
		}
	}
}

// stuck returns the connections writing since before limit (UnixNano).
func (cs *conns) stuck(limit int64) []*conn {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var out []*conn
	for c := range cs.open {
		if since := c.writingSince.Load(); since != 0 && since < limit {
			out = append(out, c)
		}
	}
	return out
}
