package ws

import (
	"net/http"
	"strings"
	"testing"

	"github.com/heraldmq/herald/access"
)

// Input is validated before permissions (docs/websocket.md, error codes):
// a request that is invalid is answered "invalid" with its id even when
// the token would not allow what it names, and a publish's message is read
// as POST /v1/messages reads its body.
func TestInvalidBeforeForbidden(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Authenticate = func(*http.Request) (access.Identity, error) {
			return access.Identity{Grants: access.Grants{Subscribe: []string{"dev.42.#"}, Publish: []string{"dev.42.#"}}}, nil
		}
	})
	c := e.dial(t)
	tests := []struct {
		name, frame, code, says string
	}{
		{"publish invalid path", `{"type":"publish","id":"1","message":{"metadata":{"paths":["dev..43"]}}}`, codeInvalid, "empty word"},
		{"publish forbidden and invalid paths", `{"type":"publish","id":"1","message":{"metadata":{"paths":["dev.43.x","a..b"]}}}`, codeInvalid, "empty word"},
		{"publish body not base64", `{"type":"publish","id":"1","message":{"metadata":{"paths":["dev.43.x"]},"body":"!!not base64"}}`, codeInvalid, "body"},
		{"publish unknown member", `{"type":"publish","id":"1","message":{"metadata":{"paths":["dev.42.x"]},"bodyy":"aGk="}}`, codeInvalid, `unknown field "bodyy"`},
		{"publish message not an object", `{"type":"publish","id":"1","message":"hello"}`, codeInvalid, "malformed JSON"},
		{"publish bad ttl", `{"type":"publish","id":"1","message":{"metadata":{"paths":["dev.43.x"]},"ttl":-5}}`, codeInvalid, "ttl"},
		{"query latest invalid pattern", `{"type":"query","id":"1","query":"latest","pattern":"dev.#.#x"}`, codeInvalid, "pattern"},
		{"query latest bad cursor", `{"type":"query","id":"1","query":"latest","pattern":"x.#","cursor":"zzz"}`, codeInvalid, "cursor"},
		{"query latest limit too large", `{"type":"query","id":"1","query":"latest","pattern":"x.#","limit":100000}`, codeInvalid, "limit"},
		{"query all invalid path", `{"type":"query","id":"1","query":"all","path":"x..y"}`, codeInvalid, "path"},
		{"query all bad cursor", `{"type":"query","id":"1","query":"all","path":"x.y","cursor":"zzz"}`, codeInvalid, "cursor"},
		{"query get not a uuid", `{"type":"query","id":"1","query":"get","message_uuid":"nope"}`, codeInvalid, "UUID"},
		{"subscribe invalid pattern", `{"type":"subscribe","id":"1","pattern":"a..b"}`, codeInvalid, "pattern"},
		{"recover bad since", `{"type":"subscribe","id":"1","pattern":"x.#","mode":"recover","since":"yesterday"}`, codeInvalid, "since"},
		{"recover negative limit", `{"type":"subscribe","id":"1","pattern":"x.#","mode":"recover","since":"2024-01-01T00:00:00Z","limit":-1}`, codeInvalid, "limit"},
		{"member of the wrong type", `{"type":"query","id":"1","query":"latest","pattern":"x.#","limit":"ten"}`, codeInvalidFrame, "limit"},
		// Valid requests the token does not allow stay forbidden.
		{"publish forbidden", `{"type":"publish","id":"1","message":{"metadata":{"paths":["dev.43.x"]},"body":"aGk="}}`, codeForbidden, "dev.43.x"},
		{"query forbidden", `{"type":"query","id":"1","query":"all","path":"x.y"}`, codeForbidden, "x.y"},
		{"recover forbidden", `{"type":"subscribe","id":"1","pattern":"x.#","mode":"recover","since":"2024-01-01T00:00:00Z"}`, codeForbidden, "x.#"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c.t = t
			c.sendRaw(tc.frame)
			r := c.expect("error")
			if r.str("code") != tc.code || r.str("id") != "1" || !strings.Contains(r.str("message"), tc.says) {
				t.Fatalf("got %v, want %s with id 1 saying %q", r, tc.code, tc.says)
			}
		})
	}
}
