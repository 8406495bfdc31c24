package e2e

import (
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
)

// TestWebSocketProtocolTightened checks issue 16's rules of
// docs/websocket.md against herald serve with a real device: input is
// validated before permissions (invalid, with the request's id, even where
// the token would refuse), a publish's message is read as POST
// /v1/messages reads it (unknown members refused), and a latest
// subscription ends its stored messages with latest_end before live ones.
func TestWebSocketProtocolTightened(t *testing.T) {
	s := startServer(t, "", sharedArgs()...)
	word := "t" + uuid.NewString()[:8]
	own := "devices.7." + word
	tok := deviceToken(t, "", time.Hour, map[string]any{"subscribe": []string{"devices.7.#"}, "publish": []string{"devices.7.#"}})
	c, err := dialWSWith(t, s, "?token="+tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	byID := func(id string) func(map[string]any) bool {
		return func(f map[string]any) bool { return f["id"] == id }
	}
	refused := []struct {
		name  string
		frame map[string]any
		code  string
	}{
		{"body not base64 to a forbidden path", map[string]any{"type": "publish", "message": map[string]any{
			"metadata": map[string]any{"paths": []string{"devices.8.x"}}, "body": "not base64!"}}, "invalid"},
		{"unknown member", map[string]any{"type": "publish", "message": map[string]any{
			"metadata": map[string]any{"paths": []string{own}}, "body": "aGk=", "colour": "red"}}, "invalid"},
		{"invalid path", map[string]any{"type": "publish", "message": map[string]any{
			"metadata": map[string]any{"paths": []string{"devices..8"}}}}, "invalid"},
		{"invalid pattern", map[string]any{"type": "query", "query": "latest", "pattern": "#.x#"}, "invalid"},
		{"bad cursor on a forbidden pattern", map[string]any{"type": "query", "query": "latest", "pattern": "other.#", "cursor": "nope"}, "invalid"},
		{"forbidden and valid", map[string]any{"type": "query", "query": "latest", "pattern": "other.#"}, "forbidden"},
	}
	for _, r := range refused {
		id := c.request(r.frame)
		if f := c.next(10*time.Second, byID(id)); f["type"] != "error" || f["code"] != r.code {
			t.Errorf("%s: %v, want error %s with id %s", r.name, f, r.code, id)
		}
	}

	for _, p := range []string{own + ".a", own + ".b"} {
		id := c.request(map[string]any{"type": "publish", "message": map[string]any{"metadata": map[string]any{"paths": []string{p}}, "body": "aGk="}})
		if f := c.next(10*time.Second, byID(id)); f["type"] != "published" {
			t.Fatalf("publish %s: %v", p, f)
		}
	}
	c.request(map[string]any{"type": "subscribe", "pattern": own + ".*", "mode": "latest"})
	c.next(10*time.Second, ofType("subscribed"))
	for range 2 {
		if f := c.next(10*time.Second, func(map[string]any) bool { return true }); f["type"] != "message" || f["source"] != "latest" {
			t.Fatalf("got %v, want a latest message", f)
		}
	}
	if f := c.next(10*time.Second, func(map[string]any) bool { return true }); f["type"] != "latest_end" || f["count"] != 2.0 || f["truncated"] != false {
		t.Fatalf("got %v, want latest_end with count 2, not truncated", f)
	}
	putAs := c.request(map[string]any{"type": "publish", "message": map[string]any{"metadata": map[string]any{"paths": []string{own + ".c"}}}})
	live := c.next(10*time.Second, ofType("message"))
	if live["source"] != "live" || live["path"] != own+".c" {
		t.Fatalf("then %v, want the live message (publish %s)", live, putAs)
	}
	c.conn.Close(websocket.StatusNormalClosure, "")
}
