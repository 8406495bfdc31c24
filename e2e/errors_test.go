package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/api"
)

// rawRequest sends a request as written and returns the status and body.
func rawRequest(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

func TestBadInputGetsJSONErrorsAndChangesNothing(t *testing.T) {
	eachEngine(t, testBadInputGetsJSONErrorsAndChangesNothing)
}

func testBadInputGetsJSONErrorsAndChangesNothing(t *testing.T, e engine) {
	s := e.start(t, "", "--max-body-bytes", "1024", "--max-metadata-bytes", "256")
	c, ctx := s.client(), testContext(t)
	path := uniqueWord(t) + ".guarded"
	id := uuidAt(t, time.Now()).String()
	if _, _, err := c.Put(ctx, api.PutRequest{MessageUUID: id, Metadata: meta(path), Body: []byte("original")}); err != nil {
		t.Fatal(err)
	}
	v4 := uuid.NewString()
	big := strings.Repeat("x", 2000)
	cases := []struct {
		name, method, target, body string
		status                     int
		code                       string
	}{
		{"malformed JSON", "POST", "/v1/messages", `{"metadata":`, 400, "invalid_argument"},
		{"not an object", "POST", "/v1/messages", `[1,2]`, 400, "invalid_argument"},
		{"unknown field", "POST", "/v1/messages", `{"metadata":{"paths":["a.b"]},"bogus":1}`, 400, "invalid_argument"},
		{"trailing data", "POST", "/v1/messages", `{"metadata":{"paths":["a.b"]}} {}`, 400, "invalid_argument"},
		{"no metadata", "POST", "/v1/messages", `{}`, 400, "invalid_argument"},
		{"metadata not an object", "POST", "/v1/messages", `{"metadata":"x"}`, 400, "invalid_argument"},
		{"no paths", "POST", "/v1/messages", `{"metadata":{"k":1}}`, 400, "invalid_argument"},
		{"empty paths", "POST", "/v1/messages", `{"metadata":{"paths":[]}}`, 400, "invalid_argument"},
		{"wildcard path", "POST", "/v1/messages", `{"metadata":{"paths":["a.*"]}}`, 400, "invalid_argument"},
		{"bad path chars", "POST", "/v1/messages", `{"metadata":{"paths":["a b"]}}`, 400, "invalid_argument"},
		{"17 paths", "POST", "/v1/messages", `{"metadata":{"paths":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q"]}}`, 400, "invalid_argument"},
		{"v4 message_uuid", "POST", "/v1/messages", `{"message_uuid":"` + v4 + `","metadata":{"paths":["a.b"]}}`, 400, "invalid_argument"},
		{"garbage message_uuid", "POST", "/v1/messages", `{"message_uuid":"nope","metadata":{"paths":["a.b"]}}`, 400, "invalid_argument"},
		{"ttl zero", "POST", "/v1/messages", `{"metadata":{"paths":["a.b"]},"ttl":0}`, 400, "invalid_argument"},
		{"ttl over 30 days", "POST", "/v1/messages", `{"metadata":{"paths":["a.b"]},"ttl":2592001}`, 400, "invalid_argument"},
		{"ttl not a number", "POST", "/v1/messages", `{"metadata":{"paths":["a.b"]},"ttl":"60"}`, 400, "invalid_argument"},
		{"body not base64", "POST", "/v1/messages", `{"metadata":{"paths":["a.b"]},"body":"!!"}`, 400, "invalid_argument"},
		{"body over limit", "POST", "/v1/messages", `{"metadata":{"paths":["a.b"]},"body":"` + b64(big) + `"}`, 413, "too_large"},
		{"metadata over limit", "POST", "/v1/messages", `{"metadata":{"paths":["a.b"],"pad":"` + big[:300] + `"}}`, 413, "too_large"},
		{"request over limit", "POST", "/v1/messages", `{"metadata":{"paths":["a.b"]},"body":"` + strings.Repeat("A", 10000) + `"}`, 413, "too_large"},
		{"repeat id with bad metadata", "POST", "/v1/messages", `{"message_uuid":"` + id + `","metadata":{"paths":["bad..path"]}}`, 400, "invalid_argument"},
		{"empty batch", "POST", "/v1/messages:batch", `{"messages":[]}`, 400, "invalid_argument"},
		{"get bad uuid", "GET", "/v1/messages/xyz", ``, 400, "invalid_argument"},
		{"latest without pattern", "GET", "/v1/latest", ``, 400, "invalid_argument"},
		{"latest bad pattern", "GET", "/v1/latest?pattern=a..b", ``, 400, "invalid_argument"},
		{"latest mixed wildcard", "GET", "/v1/latest?pattern=a.b%2A", ``, 400, "invalid_argument"},
		{"limit over 1000", "GET", "/v1/latest?pattern=%23&limit=1001", ``, 400, "invalid_argument"},
		{"limit not a number", "GET", "/v1/all?path=a&limit=ten", ``, 400, "invalid_argument"},
		{"bad cursor", "GET", "/v1/all?path=a&cursor=%21%21", ``, 400, "invalid_argument"},
		{"cursor of another query", "GET", "/v1/journal?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&cursor=eyJrIjoidHJlZSIsInAiOiJhIn0", ``, 400, "invalid_argument"},
		{"all wildcard path", "GET", "/v1/all?path=a.%23", ``, 400, "invalid_argument"},
		{"journal bad time", "GET", "/v1/journal?from=yesterday&to=2026-01-01T00:00:00Z", ``, 400, "invalid_argument"},
		{"journal reversed", "GET", "/v1/journal?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", ``, 400, "invalid_argument"},
		{"paths bad prefix", "GET", "/v1/paths?prefix=a.%2A", ``, 400, "invalid_argument"},
		{"unknown route", "GET", "/v2/nothing", ``, 404, "not_found"},
		{"wrong method", "DELETE", "/v1/messages", ``, 405, "method_not_allowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := rawRequest(t, tc.method, s.URL+tc.target, tc.body)
			var e api.ErrorResponse
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
				t.Fatalf("%d %s: body %q is not a JSON error", status, tc.name, body)
			}
			if status != tc.status || e.Error.Code != tc.code {
				t.Fatalf("got %d %s (%s), want %d %s", status, e.Error.Code, e.Error.Message, tc.status, tc.code)
			}
		})
	}
	got, err := c.Get(ctx, id)
	if err != nil || string(got.Body) != "original" {
		t.Fatalf("after bad requests the stored message is %+v (err %v), want it unchanged", got, err)
	}
	all, err := c.All(ctx, path, pageAll())
	if err != nil || len(all.Messages) != 1 {
		t.Fatalf("after bad requests all(%s) has %d messages (err %v), want 1", path, len(all.Messages), err)
	}
}
