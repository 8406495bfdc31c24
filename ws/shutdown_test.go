package ws

import (
	"testing"

	"github.com/coder/websocket"
)

// TestShutdownClosesEveryConnectionWithGoingAway: a node shutting down
// closes its clients with 1001 and refuses new ones the same way.
func TestShutdownClosesEveryConnectionWithGoingAway(t *testing.T) {
	e := newEnv(t, nil)
	a, b := e.dial(t), e.dial(t)
	a.subscribe("s1", "news.#", nil)
	b.send(map[string]any{"type": "ping", "id": "p1"})
	b.expect("pong")
	e.h.Shutdown()
	for name, c := range map[string]*client{"subscribed": a, "idle": b} {
		if code := c.closeCode(); code != websocket.StatusGoingAway {
			t.Errorf("%s client closed with %d, want 1001", name, code)
		}
	}
	late := e.dial(t)
	if code := late.closeCode(); code != websocket.StatusGoingAway {
		t.Errorf("a connection after shutdown closed with %d, want 1001", code)
	}
}
