package snshook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snshook"
)

// TestPostSortsAnswers: a 2xx and a permanent 4xx return the answer's body
// (bounded to 64 KiB), a 4xx is permanent, 429 and 5xx are worth a retry.
func TestPostSortsAnswers(t *testing.T) {
	tests := []struct {
		status        int
		body          string
		wantBody      string
		wantErr       bool
		wantPermanent bool
	}{
		{200, `{"ok":true}`, `{"ok":true}`, false, false},
		{404, `{"invalidToken":true}`, `{"invalidToken":true}`, true, true},
		{200, strings.Repeat("x", 70<<10), strings.Repeat("x", 64<<10), false, false},
		{429, ``, ``, true, false},
		{502, `down`, ``, true, false},
	}
	for _, tc := range tests {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("User-Agent") != "Herald-Test" {
				t.Errorf("request headers %v", r.Header)
			}
			w.WriteHeader(tc.status)
			_, _ = w.Write([]byte(tc.body))
		}))
		h, err := snshook.New("test hook", "Herald-Test", snshook.Config{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		body, err := h.Post(context.Background(), map[string]string{"a": "b"})
		srv.Close()
		if string(body) != tc.wantBody || (err != nil) != tc.wantErr || sns.IsPermanent(err) != tc.wantPermanent {
			t.Errorf("status %d: body %d bytes, err %v; want %d bytes, error %v, permanent %v",
				tc.status, len(body), err, len(tc.wantBody), tc.wantErr, tc.wantPermanent)
		}
	}
	if _, err := snshook.New("test hook", "Herald-Test", snshook.Config{URL: "ftp://x/y"}); err == nil {
		t.Error("New accepted an ftp URL")
	}
}
