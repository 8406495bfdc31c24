package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/heraldmq/herald"
)

// TestHugeInputSmallErrors checks that an error answering a request with
// a huge parameter, path or member name stays small: its message repeats
// at most a clipped part of the input.
func TestHugeInputSmallErrors(t *testing.T) {
	h := newHandler(openStore(t))
	huge := strings.Repeat("x", 1<<20)
	esc := url.QueryEscape
	tests := []struct {
		name, method, target, body string
		status                     int
	}{
		{"bad pattern", http.MethodGet, "/v1/latest?pattern=" + esc(huge+"..b"), "", http.StatusBadRequest},
		{"bad limit", http.MethodGet, "/v1/paths?limit=" + huge, "", http.StatusBadRequest},
		{"bad time", http.MethodGet, "/v1/journal?from=" + huge + "&to=2027-01-01T00:00:00Z", "", http.StatusBadRequest},
		{"bad cursor", http.MethodGet, "/v1/paths?cursor=" + huge, "", http.StatusBadRequest},
		{"unknown endpoint", http.MethodGet, "/v2/" + huge, "", http.StatusNotFound},
		{"unknown member", http.MethodPost, "/v1/messages", `{"metadata":{"paths":["a"]},"` + huge + `":1}`, http.StatusBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(h, tc.method, tc.target, tc.body)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d; body %.300s", rec.Code, tc.status, rec.Body)
			}
			if n := rec.Body.Len(); n >= 2<<10 {
				t.Fatalf("error body is %d bytes: %.300s...", n, rec.Body)
			}
			e := errorBody(t, rec.Code, rec.Header(), rec.Body.Bytes())
			if len(e.Message) > herald.ClipMessageBytes+32 {
				t.Fatalf("message is %d bytes", len(e.Message))
			}
			for k, vs := range rec.Header() {
				for _, v := range vs {
					if len(v) > 256 {
						t.Fatalf("header %s is %d bytes", k, len(v))
					}
				}
			}
		})
	}
}
