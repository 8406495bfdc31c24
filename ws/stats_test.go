package ws

import (
	"testing"
	"time"
)

// eventually polls cond for up to 5 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The counters follow connections, subscriptions and frames.
func TestStatsCount(t *testing.T) {
	e := newEnv(t, nil)
	st := e.h.Stats()
	sub, pub := e.dial(t), e.dial(t)
	sub.subscribe("s", "feeds.*", nil) // 1 frame: subscribed
	pub.send(publishFrame("p", "feeds.a", "x"))
	pub.expect("published") // 1 frame
	sub.expect("message")   // 1 frame
	if n := st.Connections.Load(); n != 2 {
		t.Errorf("Connections = %d, want 2", n)
	}
	if n := st.Subscriptions.Load(); n != 1 {
		t.Errorf("Subscriptions = %d, want 1", n)
	}
	eventually(t, "3 frames sent", func() bool { return st.FramesSent.Load() == 3 })
	sub.send(map[string]any{"type": "unsubscribe", "id": "u", "pattern": "feeds.*"})
	sub.expect("unsubscribed")
	if n := st.Subscriptions.Load(); n != 0 {
		t.Errorf("Subscriptions = %d after unsubscribing, want 0", n)
	}
	sub.ws.CloseNow()
	eventually(t, "one connection left", func() bool { return st.Connections.Load() == 1 })
	if n := st.Accepted.Load(); n != 2 {
		t.Errorf("Accepted = %d, want 2", n)
	}
}
