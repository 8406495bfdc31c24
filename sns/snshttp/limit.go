package snshttp

import (
	"context"
	"sync"
	"time"
)

// hostLimiter bounds the requests in flight to each endpoint host. Slots
// of idle hosts are dropped, so the map holds only hosts in use.
type hostLimiter struct {
	per   int
	mu    sync.Mutex
	hosts map[string]*hostSlots
}

type hostSlots struct {
	ch   chan struct{}
	refs int // holders and waiters
}

func newHostLimiter(per int) *hostLimiter {
	return &hostLimiter{per: per, hosts: make(map[string]*hostSlots)}
}

// acquire takes a slot of host, waiting at most wait (0: as long as ctx
// allows). It returns ErrHostBusy when wait ran out, ctx's error when ctx
// ended.
func (l *hostLimiter) acquire(ctx context.Context, host string, wait time.Duration) (release func(), err error) {
	l.mu.Lock()
	h := l.hosts[host]
	if h == nil {
		h = &hostSlots{ch: make(chan struct{}, l.per)}
		l.hosts[host] = h
	}
	h.refs++
	l.mu.Unlock()

	release = func() {
		<-h.ch
		l.unref(host, h)
	}
	select {
	case h.ch <- struct{}{}:
		return release, nil
	default:
	}
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case h.ch <- struct{}{}:
		return release, nil
	case <-timeout:
		l.unref(host, h)
		return nil, ErrHostBusy
	case <-ctx.Done():
		l.unref(host, h)
		return nil, ctx.Err()
	}
}

func (l *hostLimiter) unref(host string, h *hostSlots) {
	l.mu.Lock()
	h.refs--
	if h.refs == 0 {
		delete(l.hosts, host)
	}
	l.mu.Unlock()
}

// inFlight is the number of holders and waiters of host (for tests).
func (l *hostLimiter) inFlight(host string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h := l.hosts[host]; h != nil {
		return h.refs
	}
	return 0
}
