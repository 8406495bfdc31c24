package ws

import (
	"context"
	"testing"
	"time"

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
	// The clients read, as devices do, so the close handshakes complete.
	codes := map[string]chan websocket.StatusCode{"subscribed": make(chan websocket.StatusCode, 1), "idle": make(chan websocket.StatusCode, 1)}
	for name, c := range map[string]*client{"subscribed": a, "idle": b} {
		go func() { codes[name] <- c.closeCode() }()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := e.h.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if n := e.h.conns.count(); n != 0 {
		t.Fatalf("Shutdown returned with %d connections open", n)
	}
	if took := time.Since(start); took > 4*time.Second { // the library gives up on a handshake after 5 s
		t.Errorf("Shutdown took %v with clients that answer the close at once", took)
	}
	for name, ch := range codes {
		if code := <-ch; code != websocket.StatusGoingAway {
			t.Errorf("%s client closed with %d, want 1001", name, code)
		}
	}
	late := e.dial(t)
	if code := late.closeCode(); code != websocket.StatusGoingAway {
		t.Errorf("a connection after shutdown closed with %d, want 1001", code)
	}
}

// A client that answers no ping is closed with 4004 (missed pong, a code
// of the reconnect range), not with shutdown's 1001.
func TestMissedPongCloses4004(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.PingInterval = 50 * time.Millisecond })
	c := e.dial(t)
	// Not reading: the client's pongs are never written. Read only once
	// the server has given up on them.
	for deadline := time.Now().Add(10 * time.Second); e.h.Stats().MissedPongs.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no missed pong counted")
		}
	}
	if code := c.closeCode(); code != CloseMissedPong {
		t.Fatalf("closed with %d, want %d", code, CloseMissedPong)
	}
}
