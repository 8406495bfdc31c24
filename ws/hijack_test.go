package ws

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// Frames far larger than the connection's read and write buffers pass
// whole in both directions.
func TestFramesLargerThanBuffers(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.ReadBufferBytes, c.WriteBufferBytes = 64, 128 })
	sub, pub := e.dial(t), e.dial(t)
	sub.subscribe("s", "big.*", nil)
	body := bytes.Repeat([]byte("0123456789abcdef"), 16<<10) // 256 KiB
	pub.send(publishFrame("p", "big.a", string(body)))
	pub.expect("published")
	m := sub.expect("message")
	msg, _ := m["message"].(map[string]any)
	got, _ := msg["body"].(string)
	if want := base64.StdEncoding.EncodeToString(body); got != want {
		t.Fatalf("body of %d base64 bytes, want %d", len(got), len(want))
	}
	pub.send(map[string]any{"type": "ping", "id": "after"})
	if r := pub.expect("pong"); r.str("id") != "after" {
		t.Fatalf("pong %v", r)
	}
}
