package client

import "net/http"

// BearerTransport adds "Authorization: Bearer Token" to every request, for
// a server that requires credentials (docs/security.md). Next nil means
// http.DefaultTransport.
type BearerTransport struct {
	Token string
	Next  http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t BearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	next := t.Next
	if next == nil {
		next = http.DefaultTransport
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.Token)
	return next.RoundTrip(r)
}
