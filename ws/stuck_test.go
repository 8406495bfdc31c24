package ws

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/cache"
)

func (cs *conns) count() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.open)
}

// A client that stops reading, with a send queue large enough never to
// overflow, is disconnected once a write has been blocked for WriteTimeout.
func TestStuckWriteTimesOut(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.SendQueueBytes, c.WriteTimeout = 256<<20, 300*time.Millisecond })
	stuck := e.dial(t)
	stuck.subscribe("s", "big", nil)
	if n := e.h.conns.count(); n != 1 {
		t.Fatalf("%d connections open, want 1", n)
	}
	body := []byte(strings.Repeat("x", 64<<10))
	for range 600 { // about 50 MB of frames: more than the socket buffers hold
		m := &cache.Message{ID: uuid.Must(uuid.NewUUID()), Paths: []string{"big"}, Metadata: []byte(`{"paths":["big"]}`), Body: body}
		if err := e.events.Publish(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the stuck connection to end (within 5 s of its write timeout)", func() bool { return e.h.conns.count() == 0 })
	if n := e.h.Stats().WriteTimeouts.Load(); n != 1 {
		t.Errorf("WriteTimeouts = %d, want 1", n)
	}
}
