package snspush_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snspush"
)

func TestNewWantsAnHTTPURL(t *testing.T) {
	for _, u := range []string{"", "ftp://gw/x", "https://", "::"} {
		if _, err := snspush.New(snspush.Config{URL: u}); err == nil {
			t.Errorf("New(%q) = nil error", u)
		}
	}
}

func TestSendPush(t *testing.T) {
	tests := []struct {
		name          string
		status        int
		answer        string
		wantInvalid   bool
		wantErr       bool
		wantPermanent bool
	}{
		{"delivered", 200, ``, false, false, false},
		{"delivered, the answer is ignored", 202, `{"invalidToken": true}`, false, false, false},
		{"refused", 400, `bad payload`, false, true, true},
		{"an invalid token", 410, `{"invalidToken": true}`, true, true, true},
		{"refused, not for the token", 400, `{"invalidToken": false}`, false, true, true},
		{"rate limited", 429, `{"invalidToken": true}`, false, true, false},
		{"gateway down", 502, ``, false, true, false},
		{"a redirect is not followed", 307, ``, false, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got sns.Push
			var contentType string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				contentType = r.Header.Get("Content-Type")
				b, _ := io.ReadAll(r.Body)
				_ = json.Unmarshal(b, &got)
				if tc.status == 307 {
					w.Header().Set("Location", "/elsewhere")
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.answer)
			}))
			t.Cleanup(srv.Close)
			g, err := snspush.New(snspush.Config{URL: srv.URL + "/push"})
			if err != nil {
				t.Fatal(err)
			}
			p := sns.Push{MessageID: "m-1", Platform: "GCM", Token: "tok-1", Payload: `{"data":{"a":1}}`,
				EndpointARN:            "arn:aws:sns:us-east-1:000000000000:endpoint/GCM/app/6f1c1a4e-1d2b-4c3a-9e8f-0123456789ab",
				PlatformApplicationARN: "arn:aws:sns:us-east-1:000000000000:app/GCM/app", Timestamp: "2025-01-01T00:00:00.000Z"}
			invalid, err := g.SendPush(t.Context(), p)
			if invalid != tc.wantInvalid || (err != nil) != tc.wantErr || sns.IsPermanent(err) != tc.wantPermanent {
				t.Errorf("SendPush = %v, %v; want invalid token %v, error %v (permanent %v)", invalid, err, tc.wantInvalid, tc.wantErr, tc.wantPermanent)
			}
			if got != p || contentType != "application/json" {
				t.Errorf("the gateway got %+v as %q, want %+v as JSON", got, contentType, p)
			}
		})
	}
}
