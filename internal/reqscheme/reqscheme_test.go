package reqscheme

import (
	"crypto/tls"
	"net/http/httptest"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct {
		name  string
		tls   bool
		proto string
		want  string
	}{
		{"plain", false, "", "http"},
		{"TLS connection", true, "", "https"},
		{"TLS connection, proxy says http", true, "http", "https"},
		{"proxy says https", false, "https", "https"},
		{"proxy says HTTPS", false, " HTTPS ", "https"},
		{"first of a list", false, "https, http", "https"},
		{"first of a list is http", false, "http,https", "http"},
		{"something else", false, "wss", "http"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			}
			if tc.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			if got := Of(r); got != tc.want {
				t.Errorf("Of = %q, want %q", got, tc.want)
			}
		})
	}
}
