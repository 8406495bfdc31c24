package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/heraldmq/herald"
)

// Health endpoints besides /healthz (kept as it was, for existing load
// balancer checks):
//
//	GET /livez   200 while the process serves HTTP at all (restart it when not)
//	GET /readyz  200 when it can serve requests, 503 when not (take it out of
//	             the load balancer), with each component's state
//
// Both answer JSON (docs/deploy.md).

// ComponentHealth is one component's state on /readyz.
type ComponentHealth struct {
	// Status is "ok", "degraded" (serving, with fewer guarantees: Redis's
	// circuit breaker open), "reconnecting" (RabbitMQ) or "unavailable".
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// Readiness is the body of /readyz.
type Readiness struct {
	// Status is "ok", "degraded" (ready, some component degraded) or
	// "unavailable" (not ready: the store cannot be reached).
	Status     string                     `json:"status"`
	Components map[string]ComponentHealth `json:"components"`
}

// SetStoreName names the storage engine on /readyz ("embedded",
// "cassandra").
func (s *Server) SetStoreName(name string) { s.storeName = name }

func (s *Server) livez(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	rd := s.readiness(r.Context())
	status := http.StatusOK
	if rd.Status == "unavailable" {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, rd)
}

// readiness checks the store and gathers the other components' states.
func (s *Server) readiness(ctx context.Context) Readiness {
	rd := Readiness{Status: "ok", Components: map[string]ComponentHealth{}}
	store := ComponentHealth{Status: "ok", Detail: s.storeName}
	if s.ready != nil {
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if err := s.ready(ctx); err != nil {
			store = ComponentHealth{Status: "unavailable", Detail: herald.ErrorMessage(err)}
			rd.Status = "unavailable"
		}
	}
	rd.Components["store"] = store
	for name, state := range s.components() {
		c := parseComponentState(state)
		rd.Components[name] = c
		if c.Status != "ok" && rd.Status == "ok" {
			rd.Status = "degraded"
		}
	}
	return rd
}

// parseComponentState reads the states AddComponents functions report,
// "ok", "degraded" or "reconnecting (events publisher, ...)", into a status
// and its detail.
func parseComponentState(state string) ComponentHealth {
	status, detail, _ := strings.Cut(state, " ")
	return ComponentHealth{Status: status, Detail: strings.TrimSuffix(strings.TrimPrefix(detail, "("), ")")}
}

// SetAccessLog logs every request answered (method, path, route, status,
// duration, remote address) at info level on log; nil turns it off.
func (s *Server) SetAccessLog(log *slog.Logger) { s.accessLog = log }

func (s *Server) logAccess(r *http.Request, route string, status int, d time.Duration) {
	s.accessLog.LogAttrs(r.Context(), slog.LevelInfo, "access",
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("route", route),
		slog.Int("status", status), slog.Duration("duration", d), slog.String("remote", r.RemoteAddr))
}
