package ws

import "sync/atomic"

// Stats are the gateway's counters, for /metrics.
type Stats struct {
	Connections       atomic.Int64 // open now
	Accepted          atomic.Int64 // upgraded since start
	Subscriptions     atomic.Int64 // pattern subscriptions open now
	FramesSent        atomic.Int64 // frames written to clients
	AuthFailures      atomic.Int64 // connections closed with 4501
	OverQuota         atomic.Int64 // connections closed with 4010
	SlowConsumers     atomic.Int64 // connections closed with 4008
	MissedPongs       atomic.Int64 // connections closed with 4004
	EventsInterrupted atomic.Int64 // connections closed with 4009
	WriteTimeouts     atomic.Int64 // connections ended by a write stuck for WriteTimeout
}

// Stats returns the Handler's counters.
func (h *Handler) Stats() *Stats { return &h.stats }
