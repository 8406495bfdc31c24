package httpapi

import "net/http"

// AWSHandler serves the AWS-compatible APIs on Herald's listener (see
// package awsapi). Accepts tells AWS requests apart by their protocol
// markers; it is asked only about paths none of Herald's routes match, so
// /v1/..., /healthz and /metrics always stay Herald's.
type AWSHandler interface {
	http.Handler
	Accepts(r *http.Request) bool
}

// SetAWSHandler routes AWS requests to h (nil: none, the default).
func (s *Server) SetAWSHandler(h AWSHandler) { s.aws = h }

// routeLabelAWS is the metrics route of requests served by the AWS handler.
const routeLabelAWS = "aws"

// isAWS reports whether r is for the AWS handler.
func (s *Server) isAWS(r *http.Request) bool {
	if s.aws == nil {
		return false
	}
	// The SDKs post to "/" (JSON and query protocols) or to a queue URL.
	// "/" is never one of Herald's own routes (only the browser page, which
	// is served to non-AWS requests), so only other paths need the mux.
	if r.URL.Path != "/" {
		if _, pattern := s.mux.Handler(r); pattern != "/" && pattern != rootPattern {
			return false // one of Herald's own routes (the page at "/" only for non-AWS requests)
		}
	}
	return s.aws.Accepts(r)
}

// HandleGET serves GET (and HEAD) requests for path with h, measured under
// that path: for documents other packages serve on Herald's listener, such
// as the certificate SNS signs notifications with.
func (s *Server) HandleGET(path string, h http.Handler) {
	s.route(path, methods{http.MethodGet: h.ServeHTTP})
}
