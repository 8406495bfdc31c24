// Package reqscheme tells the scheme a client used for a request, for the
// URLs Herald hands back (queue URLs, subscription URLs): https on a TLS
// connection (herald serve --tls-cert), else what a TLS-terminating proxy
// says in X-Forwarded-Proto (its first value, in any case), else http.
package reqscheme

import (
	"net/http"
	"strings"
)

// Of returns "https" or "http" for r.
func Of(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	if strings.EqualFold(strings.TrimSpace(proto), "https") {
		return "https"
	}
	return "http"
}
