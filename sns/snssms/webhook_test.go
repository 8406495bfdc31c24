package snssms_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snssms"
)

func TestNewWantsAnHTTPURL(t *testing.T) {
	for _, u := range []string{"", "ftp://gw/x", "http://", "not a url"} {
		if _, err := snssms.New(snssms.Config{URL: u}); err == nil {
			t.Errorf("New(%q) = nil error", u)
		}
	}
}

func TestSendSMS(t *testing.T) {
	tests := []struct {
		name          string
		status        int
		answer        string
		wantOptedOut  bool
		wantErr       bool
		wantPermanent bool
	}{
		{"accepted", 200, ``, false, false, false},
		{"accepted with a JSON answer", 202, `{"id": "gw-1"}`, false, false, false},
		{"the recipient opted out", 200, `{"optedOut": true}`, true, false, false},
		{"refused", 400, `bad number`, false, true, true},
		{"rate limited", 429, ``, false, true, false},
		{"gateway down", 503, ``, false, true, false},
		{"a redirect is not followed", 302, ``, false, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got sns.SMS
			var contentType string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				contentType = r.Header.Get("Content-Type")
				b, _ := io.ReadAll(r.Body)
				_ = json.Unmarshal(b, &got)
				if tc.status == 302 {
					w.Header().Set("Location", "/elsewhere")
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.answer)
			}))
			t.Cleanup(srv.Close)
			w, err := snssms.New(snssms.Config{URL: srv.URL + "/sms"})
			if err != nil {
				t.Fatal(err)
			}
			m := sns.SMS{MessageID: "m-1", PhoneNumber: "+15555550100", Message: "hi", SMSType: "Transactional", Account: "000000000000", Timestamp: "2025-01-01T00:00:00.000Z"}
			optedOut, err := w.SendSMS(t.Context(), m)
			if optedOut != tc.wantOptedOut || (err != nil) != tc.wantErr || sns.IsPermanent(err) != tc.wantPermanent {
				t.Errorf("SendSMS = %v, %v; want opted out %v, error %v (permanent %v)", optedOut, err, tc.wantOptedOut, tc.wantErr, tc.wantPermanent)
			}
			if got != m || contentType != "application/json" {
				t.Errorf("the webhook got %+v as %q, want %+v as JSON", got, contentType, m)
			}
		})
	}
}
