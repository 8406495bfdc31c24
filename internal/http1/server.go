package http1

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Server serves the lean subset of HTTP/1.1 with Handler and hands every
// other connection to Fallback. Set the fields before Serve.
type Server struct {
	// Handler answers the lean requests; Fallback.Handler is usually the
	// same handler.
	Handler http.Handler
	// Fallback serves the connections handed over. Its Serve runs on a
	// listener of those connections; its timeouts and limits apply to them.
	Fallback *http.Server
	// ReadHeaderTimeout bounds the time from a request's first byte to the
	// end of its header block; IdleTimeout the wait for the next request.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	// SlowRequest is how long a handler runs before its connection is
	// watched for the client leaving (zero: one second).
	SlowRequest time.Duration
	// ErrorLog receives handler panics; nil means the log package's logger.
	ErrorLog *log.Logger

	mu       sync.Mutex
	conns    map[*conn]struct{}
	ln       net.Listener
	handoff  *handoffListener
	shutdown atomic.Bool
}

// ErrServerClosed is what Serve returns after Shutdown.
var ErrServerClosed = http.ErrServerClosed

// Serve accepts connections on ln until Shutdown or an error of ln.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	s.ln = ln
	s.conns = map[*conn]struct{}{}
	s.handoff = newHandoffListener(ln.Addr())
	s.mu.Unlock()
	// Fallback.Serve ends when the handoff listener closes (Shutdown, or
	// an error of ln); its error says no more than that.
	go s.Fallback.Serve(s.handoff)
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.shutdown.Load() {
				return ErrServerClosed
			}
			if isTimeout(err) || errors.Is(err, syscall.EMFILE) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			s.handoff.Close()
			return err
		}
		delay = 0
		c := s.newConn(nc)
		if c == nil {
			nc.Close()
			continue
		}
		go c.serve()
	}
}

// Shutdown stops accepting, closes idle connections, waits for the others
// to finish their request (or for ctx, then closes them) while the Fallback
// shuts down alongside, and returns when both are done.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutdown.Store(true)
	s.mu.Lock()
	ln, handoff := s.ln, s.handoff
	s.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	fallback := make(chan error, 1)
	go func() { fallback <- s.Fallback.Shutdown(ctx) }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var err error
	for !s.closeIdle() && err == nil {
		select {
		case <-ctx.Done():
			s.closeAll()
			err = ctx.Err()
		case <-tick.C:
		}
	}
	if handoff != nil {
		handoff.Close()
	}
	if ferr := <-fallback; err == nil {
		err = ferr
	}
	return err
}

// closeIdle closes the idle connections and reports whether none is left.
func (s *Server) closeIdle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if c.state.CompareAndSwap(stateIdle, stateClosed) {
			c.nc.Close()
		}
	}
	return len(s.conns) == 0
}

func (s *Server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.nc.Close()
	}
}

func (s *Server) newConn(nc net.Conn) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown.Load() {
		return nil
	}
	c := newConn(s, nc)
	s.conns[c] = struct{}{}
	return c
}

func (s *Server) forget(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

func (s *Server) logf(format string, args ...any) {
	if s.ErrorLog != nil {
		s.ErrorLog.Printf(format, args...)
		return
	}
	log.Printf(format, args...)
}

func (s *Server) slowRequest() time.Duration {
	if s.SlowRequest > 0 {
		return s.SlowRequest
	}
	return time.Second
}
