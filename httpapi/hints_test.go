package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/heraldmq/herald/api"
)

// TestErrorsGiveHints: a body that is not base64 is said to be so (not
// malformed JSON), and a pattern cut short where a bare # began the URL's
// fragment gets a hint to write %23.
func TestErrorsGiveHints(t *testing.T) {
	h := newHandler(openStore(t))
	const notBase64 = `field "body" is not base64`
	tests := []struct {
		name, method, target, body string
		want, notWant              string
	}{
		{"body not base64", http.MethodPost, "/v1/messages", `{"metadata":{"paths":["a"]},"body":"!!"}`, notBase64, "malformed JSON"},
		{"body not base64, escaped", http.MethodPost, "/v1/messages", `{"metadata":{"paths":["a"]},"body":"aGVs\u0021"}`, notBase64, "malformed JSON"},
		{"body plain text", http.MethodPost, "/v1/messages", `{"metadata":{"paths":["a"]},"body":"hello world"}`, notBase64, "malformed JSON"},
		{"body a number", http.MethodPost, "/v1/messages", `{"metadata":{"paths":["a"]},"body":12}`, "malformed JSON", notBase64},
		{"truly malformed", http.MethodPost, "/v1/messages", `{"metadata":`, "malformed JSON", notBase64},
		{"pattern cut at #", http.MethodGet, "/v1/latest?pattern=feeds.", "", "write # as %23", ""},
		{"pattern only #", http.MethodGet, "/v1/latest?pattern=", "", "write # as %23", ""},
		{"pattern otherwise bad", http.MethodGet, "/v1/latest?pattern=a..b", "", "pattern", "%23"},
		{"no pattern at all", http.MethodGet, "/v1/latest", "", "required", "%23"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(h, tc.method, tc.target, tc.body)
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400; body %.300s", rec.Code, rec.Body)
			}
			e := errorBody(t, rec.Code, rec.Header(), rec.Body.Bytes())
			if !strings.Contains(e.Message, tc.want) || (tc.notWant != "" && strings.Contains(e.Message, tc.notWant)) {
				t.Errorf("message %q, want it to say %q and not %q", e.Message, tc.want, tc.notWant)
			}
		})
	}

	t.Run("batch entry not base64", func(t *testing.T) {
		rec := serve(h, http.MethodPost, "/v1/messages:batch", `{"messages":[{"metadata":{"paths":["a"]},"body":"!!"}]}`)
		var res api.BatchResponse
		if err := decodeStrict(rec.Body.Bytes(), &res); err != nil || len(res.Results) != 1 || res.Results[0].Error == nil {
			t.Fatalf("batch answered %d %s (%v)", rec.Code, rec.Body, err)
		}
		if msg := res.Results[0].Error.Message; !strings.Contains(msg, notBase64) || strings.Contains(msg, "malformed JSON") {
			t.Errorf("entry error %q, want it to say %q", msg, notBase64)
		}
	})
}
