package ws

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/heraldmq/herald/cache"
)

// A client that does not read while more is sent than the socket buffers
// hold makes a pool writer hand its connection over to a goroutine of its
// own; once the client reads, every frame arrives, whole and in order.
func TestWriterHandsOverAFullSocket(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.SendQueueBytes, c.WriteTimeout = 256<<20, time.Minute })
	var handovers atomic.Int64
	e.h.hooks.handover = func() { handovers.Add(1) }
	slow := e.dial(t)
	slow.subscribe("s", "big", nil)

	// Frames of about 11 KB, each fitting in a batch: only a full socket
	// makes the writer hand over. 3,000 are about 33 MB.
	const messages = 3000
	body := []byte(strings.Repeat("x", 8<<10))
	ids := make([]string, messages)
	for i := range ids {
		m := &cache.Message{ID: uuid.Must(uuid.NewUUID()), Paths: []string{"big"}, Metadata: []byte(`{"paths":["big"]}`), Body: body}
		ids[i] = m.ID.String()
		if err := e.events.Publish(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "a writer to find the socket full", func() bool { return handovers.Load() > 0 })
	for i, id := range ids {
		f := slow.expect("message")
		if got := f.msgID(); got != id {
			t.Fatalf("message %d is %s, want %s", i, got, id)
		}
		if off, _ := f["offset"].(float64); int(off) != i+1 {
			t.Fatalf("message %d has offset %v, want %d", i, f["offset"], i+1)
		}
	}
	// The connection is whole afterwards: requests are still answered.
	slow.send(map[string]any{"type": "ping", "id": "after"})
	if r := slow.expect("pong"); r.str("id") != "after" {
		t.Fatalf("pong %v", r)
	}
}

// A connection whose frameWriter is busy (the library writing a control
// frame to a full socket) is handed over at once: the pool's writer never
// waits for it, and the connection gets its frame once the lock is free.
func TestBusyConnectionIsHandedOver(t *testing.T) {
	e := newEnv(t, nil)
	var handovers atomic.Int64
	e.h.hooks.handover = func() { handovers.Add(1) }
	busy, other := e.dial(t), e.dial(t)
	busy.subscribe("b", "x.*", nil)
	other.subscribe("o", "x.#", nil)
	var fw *frameWriter
	e.h.conns.mu.Lock()
	for c := range e.h.conns.open {
		c.mu.Lock()
		if _, ok := c.subs["x.*"]; ok {
			fw = c.fw
		}
		c.mu.Unlock()
	}
	e.h.conns.mu.Unlock()
	fw.mu.Lock() // as a control frame being written would hold it

	id := e.put(t, "x.y", "hello")
	eventually(t, "the busy connection to be handed over", func() bool { return handovers.Load() == 1 })
	if got := other.expect("message").msgID(); got != id {
		t.Fatalf("other connection got %s, want %s", got, id)
	}
	fw.mu.Unlock()
	if got := busy.expect("message").msgID(); got != id {
		t.Fatalf("busy connection got %s, want %s", got, id)
	}
}

// A TLS connection cannot be written beneath its encryption: its frames
// are written by a goroutine of its own, whole and in order.
func TestTLSConnectionWritesOnItsOwn(t *testing.T) {
	e := newEnv(t, nil)
	srv := httptest.NewTLSServer(unwrapOnly(e.h))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "wss"+strings.TrimPrefix(srv.URL, "https")+"/v1/ws", &websocket.DialOptions{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	ws.SetReadLimit(1 << 20)
	t.Cleanup(func() { ws.CloseNow() })
	c := &client{t: t, ws: ws}
	c.subscribe("s", "tls.*", nil)
	e.h.conns.mu.Lock()
	for conn := range e.h.conns.open {
		if conn.fw.rc != nil {
			t.Error("a TLS connection's frame writer has a raw connection")
		}
	}
	e.h.conns.mu.Unlock()

	ids := make([]string, 50)
	for i := range ids {
		ids[i] = e.put(t, "tls.a", strings.Repeat("z", 8<<10))
	}
	for i, id := range ids {
		if got := c.expect("message").msgID(); got != id {
			t.Fatalf("message %d is %s, want %s", i, got, id)
		}
	}
}

// A writer takes at most writerTake ready connections at once, oldest
// first, so that a writer descheduled mid-fan-out holds back only its
// chunk; the pool drains to its end and then reports a stop.
func TestWriterTakesAChunkAtATime(t *testing.T) {
	p := &writerPool{started: true}
	p.wake.L = &p.mu
	const n = 2*writerTake + 44
	conns := make([]*conn, n)
	for i := range conns {
		conns[i] = &conn{}
		if !p.submit(conns[i]) {
			t.Fatal("submit refused by a started pool")
		}
	}
	var got []*conn
	for _, want := range []int{writerTake, writerTake, 44} {
		batch, ok := p.take(nil)
		if !ok || len(batch) != want {
			t.Fatalf("took %d (ok %v), want %d", len(batch), ok, want)
		}
		got = append(got, batch...)
	}
	for i := range conns {
		if got[i] != conns[i] {
			t.Fatalf("connection %d taken out of order", i)
		}
	}
	if p.head != 0 || len(p.ready) != 0 {
		t.Fatalf("a drained pool keeps head %d, %d ready", p.head, len(p.ready))
	}

	// Submitted while a writer waits: it wakes and takes them.
	taken := make(chan int)
	go func() {
		batch, _ := p.take(nil)
		taken <- len(batch)
	}()
	eventually(t, "the writer to wait", func() bool { p.mu.Lock(); defer p.mu.Unlock(); return p.waiting == 1 })
	p.submit(&conn{})
	if got := <-taken; got != 1 {
		t.Fatalf("the woken writer took %d, want 1", got)
	}
	p.stop()
	if _, ok := p.take(nil); ok {
		t.Fatal("take on a stopped, empty pool reported ok")
	}
}

// Under a load that never lets the ready list drain, its taken front is
// reclaimed: the list stays bounded and keeps its order.
func TestWriterPoolReadyListStaysBounded(t *testing.T) {
	p := &writerPool{started: true}
	p.wake.L = &p.mu
	var submitted, taken []*conn
	submit := func(n int) {
		for range n {
			c := &conn{}
			submitted = append(submitted, c)
			p.submit(c)
		}
	}
	submit(500) // a backlog that is never worked off
	for range 1000 {
		submit(writerTake) // as much arrives as a writer takes
		batch, ok := p.take(nil)
		if !ok || len(batch) != writerTake {
			t.Fatalf("took %d (ok %v)", len(batch), ok)
		}
		taken = append(taken, batch...)
		if len(p.ready) > 2*compactAfter+500+writerTake {
			t.Fatalf("the ready list grew to %d with %d waiting", len(p.ready), len(p.ready)-p.head)
		}
	}
	for i := range taken {
		if taken[i] != submitted[i] {
			t.Fatalf("connection %d taken out of order", i)
		}
	}
	if waiting := len(p.ready) - p.head; waiting != 500 {
		t.Fatalf("%d left waiting, want 500", waiting)
	}
}
