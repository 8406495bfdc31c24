package ws

import (
	"github.com/heraldmq/herald/cache"
)

// watchResumes arranges for eventsResumed to run whenever the node's
// event feed resumes after an interruption (cache.Interruptible); Events
// that are never interrupted need nothing.
func (h *Handler) watchResumes() {
	if ev, ok := h.cfg.Events.(cache.Interruptible); ok {
		ev.OnResume(h.eventsResumed)
	}
}

// eventsResumed closes, with CloseEventsInterrupted, every connection
// that holds a pattern subscription: its live messages have a gap the
// server cannot fill in order, and the client's reconnect with recover
// from its last position fills it. Connections holding only queue
// subscriptions are unaffected (queues keep their messages).
func (h *Handler) eventsResumed() {
	h.conns.mu.Lock()
	var hit []*conn
	for c := range h.conns.open {
		c.mu.Lock()
		if len(c.subs) > 0 {
			hit = append(hit, c)
		}
		c.mu.Unlock()
	}
	h.conns.mu.Unlock()
	if len(hit) == 0 {
		return
	}
	h.stats.EventsInterrupted.Add(int64(len(hit)))
	h.cfg.Logger.Warn("live events were interrupted; closing the connections that subscribe so that they recover",
		"connections", len(hit))
	for _, c := range hit {
		c.closeWith(CloseEventsInterrupted, "live events interrupted: reconnect with recover")
	}
}
