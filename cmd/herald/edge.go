package main

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"github.com/heraldmq/herald/internal/http1"
)

// The values of --http-server.
const (
	httpServerLean = "lean"
	httpServerStd  = "net/http"
)

// edge serves the HTTP listener: net/http alone, or the lean HTTP/1.1
// server of internal/http1 in front of it (plain HTTP only).
type edge struct {
	srv  *http.Server
	lean *http1.Server
}

// validHTTPServer checks --http-server.
func validHTTPServer(v string) error {
	if v != httpServerLean && v != httpServerStd {
		return fmt.Errorf("--http-server %q: the choices are %s and %s", v, httpServerLean, httpServerStd)
	}
	return nil
}

// newEdge returns the edge of srv: with lean set and no TLS, the lean
// server answers what it can and hands the rest to srv.
func newEdge(srv *http.Server, lean bool) *edge {
	e := &edge{srv: srv}
	if lean && srv.TLSConfig == nil {
		e.lean = &http1.Server{Handler: srv.Handler, Fallback: srv, ReadHeaderTimeout: srv.ReadHeaderTimeout,
			IdleTimeout: srv.IdleTimeout, ErrorLog: srv.ErrorLog}
	}
	return e
}

func (e *edge) serve(ln net.Listener) error {
	if e.lean != nil {
		return e.lean.Serve(ln)
	}
	return serveHTTP(e.srv, ln)
}

func (e *edge) shutdown(ctx context.Context) error {
	if e.lean != nil {
		return e.lean.Shutdown(ctx)
	}
	return e.srv.Shutdown(ctx)
}
