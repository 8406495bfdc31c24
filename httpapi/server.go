// Package httpapi serves Herald's JSON HTTP API (docs/http-api.md), its
// health check and its metrics on Herald's one listener. It is the edge where
// domain errors become HTTP statuses and JSON error bodies.
package httpapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/limits"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/rollup"
)

// Server routes Herald's HTTP requests.
type Server struct {
	cache   *cache.Service
	metrics *metrics.Metrics
	log     *slog.Logger
	mux     *http.ServeMux
	ready   func(context.Context) error // nil: always ready
	aws     AWSHandler                  // nil: no AWS APIs
	events  *eventStream                // nil: GET /v1/events answers 501
	ident   *Identifier                 // nil: requests carry no identity (the cache decides)
	rollups *rollup.Service             // nil: no rollup API (SetRollups)

	componentsFns []func() map[string]string // extra /healthz detail
	storeName     string                     // the engine, on /readyz
	accessLog     *slog.Logger               // nil: no access log (SetAccessLog)
}

// SetIdentifier makes every request to the API's /v1/ routes (the
// WebSocket gateway authenticates its own) establish its identity with x
// first, refused with 401 when it has none; the cache service checks the
// identity for each action.
func (s *Server) SetIdentifier(x *Identifier) { s.ident = x }

// withIdentity establishes r's identity; false when r was refused.
// The request is marked as come through the cache's door (limits.DoorCache),
// for the rate limits the cache and rollup services apply.
func (s *Server) withIdentity(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	ctx := limits.WithDoor(r.Context(), limits.DoorCache)
	if s.ident == nil {
		return r.WithContext(ctx), true
	}
	id, err := s.ident.Identify(r, s.maxRequestBytes(true))
	if err != nil {
		writeError(w, r, s.log, err)
		return r, false
	}
	return r.WithContext(access.WithIdentity(ctx, id)), true
}

// New returns the HTTP handler for Herald's API over the cache service.
func New(c *cache.Service, m *metrics.Metrics, log *slog.Logger) *Server {
	s := &Server{cache: c, metrics: m, log: log, mux: http.NewServeMux()}
	s.route("/v1/messages", methods{http.MethodPost: s.putMessage})
	s.route("/v1/messages:batch", methods{http.MethodPost: s.putBatch})
	s.route("/v1/messages/{uuid}", methods{http.MethodGet: s.getMessage})
	s.route("/v1/latest", methods{http.MethodGet: s.latest})
	s.route("/v1/all", methods{http.MethodGet: s.all})
	s.route("/v1/journal", methods{http.MethodGet: s.journal})
	s.route("/v1/paths", methods{http.MethodGet: s.paths})
	s.route("/v1/events", methods{http.MethodGet: s.streamEvents})
	s.route("/healthz", methods{http.MethodGet: s.healthz})
	s.route("/livez", methods{http.MethodGet: s.livez})
	s.route("/readyz", methods{http.MethodGet: s.readyz})
	s.route("/metrics", methods{http.MethodGet: m.Handler().ServeHTTP})
	s.route("/", methods{}) // anything else: a JSON 404
	return s
}

// methods maps HTTP methods to the handlers of one route.
type methods map[string]http.HandlerFunc

// route registers a path whose unknown methods get a JSON 405 and whose
// requests are measured under the route's pattern.
func (s *Server) route(pattern string, ms methods) {
	identify := strings.HasPrefix(pattern, "/v1/") && pattern != wsPattern
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		h, ok := ms[r.Method]
		if !ok && r.Method == http.MethodHead {
			h, ok = ms[http.MethodGet]
		}
		switch {
		case ok:
			if identify {
				if r, ok = s.withIdentity(w, r); !ok {
					return
				}
			}
			h(w, r)
		case len(ms) == 0:
			writeError(w, r, s.log, herald.Errorf(herald.ENotFound, "no such endpoint: %s %s", r.Method, r.URL.Path))
		default:
			writeJSON(w, http.StatusMethodNotAllowed, api.ErrorResponse{Error: api.ErrorBody{
				Code: "method_not_allowed", Message: herald.Clip(r.Method) + " is not allowed on " + pattern}})
		}
	})
}

// ServeHTTP measures every request and turns panics into 500s.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	aws := s.isAWS(r)
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("handler panic", "method", r.Method, "path", r.URL.Path, "panic", p)
			if !rec.wrote {
				writeJSON(rec, http.StatusInternalServerError, api.ErrorResponse{Error: api.ErrorBody{Code: herald.EInternal, Message: "internal error"}})
			}
		}
		route := r.Pattern
		switch {
		case aws:
			route = routeLabelAWS
		case route == "" || route == "/":
			route = "unmatched"
		}
		s.metrics.ObserveRequest(route, r.Method, rec.status, time.Since(start))
		if s.accessLog != nil {
			s.logAccess(r, route, rec.status, time.Since(start))
		}
	}()
	if aws {
		s.aws.ServeHTTP(rec, r)
		return
	}
	s.mux.ServeHTTP(rec, r)
}

// statusRecorder remembers the status code a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"error":{"code":"internal","message":"cannot encode the response"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// SetReadinessCheck makes /healthz answer 503 while check fails (for
// example while a remote store is still connecting).
func (s *Server) SetReadinessCheck(check func(context.Context) error) { s.ready = check }

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	if s.ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), time.Second)
		defer cancel()
		if err := s.ready(ctx); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": herald.ErrorMessage(err)})
			return
		}
	}
	body := map[string]string{"status": "ok"}
	for name, state := range s.components() {
		body[name] = state
	}
	writeJSON(w, http.StatusOK, body)
}

// AddComponents adds to /healthz the state of each component f names
// ("redis": "ok" or "degraded"): a degraded component leaves the server
// serving (ready), more slowly or with fewer guarantees of order.
func (s *Server) AddComponents(f func() map[string]string) {
	s.componentsFns = append(s.componentsFns, f)
}

func (s *Server) components() map[string]string {
	out := map[string]string{}
	for _, f := range s.componentsFns {
		for k, v := range f() {
			out[k] = v
		}
	}
	return out
}
