package httpapi

import "net/http"

// rootPattern is the exact-path route of the browser page.
const rootPattern = "/{$}"

// wsPattern is the WebSocket gateway's route; the gateway establishes its
// clients' identities itself (they may present them after connecting).
const wsPattern = "/v1/ws"

// SetPage serves the browser page: h answers GET of "/" and of each of
// files (its own assets, e.g. "/app.js"). AWS requests to "/" (a form with
// an Action, a SigV4 signature, an X-Amz-Target; SubscribeURL GETs) still
// go to the AWS handler.
func (s *Server) SetPage(h http.Handler, files ...string) {
	s.route(rootPattern, methods{http.MethodGet: h.ServeHTTP})
	for _, f := range files {
		s.route(f, methods{http.MethodGet: h.ServeHTTP})
	}
}

// SetWebSocket serves the WebSocket endpoint at /v1/ws with h.
func (s *Server) SetWebSocket(h http.Handler) {
	s.route(wsPattern, methods{http.MethodGet: h.ServeHTTP})
}
