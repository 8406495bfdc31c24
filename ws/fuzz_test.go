package ws

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// FuzzClientFrame sends arbitrary client frames over a real connection.
// Whatever the frame, the server answers in the protocol's shape: every
// frame it sends is a JSON object with a type, an error frame carries a
// documented code and never "internal", and the connection keeps serving
// (a ping that follows is answered) unless the server closed it with 1008
// (malformed frames in a row) or 1009 (too large).
//
//	go test -fuzz FuzzClientFrame ./ws/
func FuzzClientFrame(f *testing.F) {
	for _, s := range []string{
		`{"type":"ping","id":"1"}`,
		`{"type":"subscribe","id":"s","pattern":"a.#","mode":"recover","since":"2026-01-01T00:00:00Z","limit":3}`,
		`{"type":"subscribe","id":"s","pattern":"a.*","mode":"latest"}`,
		`{"type":"unsubscribe","id":"u","pattern":"a.#"}`,
		`{"type":"publish","id":"p","message":{"metadata":{"paths":["a.b"]},"body":"aGk="}}`,
		`{"type":"query","id":"q","query":"latest","pattern":"#"}`,
		`{"type":"query","id":"q","query":"get","message_uuid":"nope"}`,
		`{"type":"subscribe_queue","id":"sq","queue":"q1"}`,
		`{"type":"ack","id":"a","receipt":"x"}`,
		`{"type":"subscribe","id":"s","pattern":"a..b"}`,
		`{"type":"nope","id":"x"}`, `{}`, `[]`, `null`, `{"type":"ping","id":"1"} {}`, "\xff\xfe", ``,
	} {
		f.Add([]byte(s))
	}
	e := newEnvOver(f, nil, func(c *Config) { c.Logger = slog.New(slog.DiscardHandler) })
	var conn *websocket.Conn
	f.Fuzz(func(t *testing.T, frame []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if conn == nil {
			c, _, err := websocket.Dial(ctx, e.url, nil)
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			c.SetReadLimit(64 << 20)
			conn = c
		}
		probe := `{"type":"ping","id":"fuzz-probe"}`
		if conn.Write(ctx, websocket.MessageText, frame) != nil || conn.Write(ctx, websocket.MessageText, []byte(probe)) != nil {
			conn = nil // closed by the server after an earlier frame: seen below next time
			return
		}
		for {
			_, b, err := conn.Read(ctx)
			if err != nil {
				code := websocket.CloseStatus(err)
				conn.CloseNow()
				conn = nil
				if code == websocket.StatusPolicyViolation || code == websocket.StatusMessageTooBig {
					return
				}
				t.Fatalf("after frame %q the connection ended: %v", frame, err)
			}
			var reply struct {
				Type string `json:"type"`
				ID   string `json:"id"`
				Code string `json:"code"`
			}
			if err := json.Unmarshal(b, &reply); err != nil || reply.Type == "" {
				t.Fatalf("after frame %q the server sent %q, not a frame of the protocol", frame, b)
			}
			if reply.Type == "error" {
				switch reply.Code {
				case codeInvalidFrame, codeInvalid, codeForbidden, codeNotFound, codeTooMany, codeUnavailable:
				default:
					t.Fatalf("after frame %q: error frame %s with code %q", frame, b, reply.Code)
				}
			}
			if reply.Type == "pong" && reply.ID == "fuzz-probe" {
				return
			}
		}
	})
}
