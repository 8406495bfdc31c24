package ws

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/pebblestore"
)

// env is a test server over a real pebble store and local events.
type env struct {
	svc    *cache.Service
	events *cache.LocalEvents
	srv    *httptest.Server
	url    string
	h      *Handler
}

func newEnv(t *testing.T, mod func(*Config)) *env {
	t.Helper()
	return newEnvOver(t, nil, mod)
}

// newEnvOver is newEnv with the store wrapped by wrap (nil: as it is).
func newEnvOver(t testing.TB, wrap func(cache.Store) cache.Store, mod func(*Config)) *env {
	t.Helper()
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{ReapInterval: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("pebblestore.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	var store cache.Store = db
	if wrap != nil {
		store = wrap(db)
	}
	svc := cache.NewService(store, cache.DefaultConfig())
	ev := cache.NewLocalEvents(cache.LocalEventsOptions{})
	t.Cleanup(func() { ev.Close() })
	svc.SetEvents(ev)
	cfg := Config{Cache: svc, Events: ev, Logger: slog.New(slog.NewTextHandler(newTestWriter(t), &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if mod != nil {
		mod(&cfg)
	}
	h := NewHandler(cfg)
	srv := httptest.NewServer(unwrapOnly(h))
	t.Cleanup(srv.Close)
	return &env{svc: svc, events: ev, srv: srv, url: "ws" + strings.TrimPrefix(srv.URL, "http") + "/v1/ws", h: h}
}

// client is a test WebSocket client.
type client struct {
	t  *testing.T
	ws *websocket.Conn
}

func (e *env) dial(t *testing.T) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, e.url, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	c.SetReadLimit(64 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return &client{t: t, ws: c}
}

func (c *client) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(string(b))
}

func (c *client) sendRaw(s string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// frame is a decoded server frame.
type frame map[string]any

func (f frame) str(k string) string { s, _ := f[k].(string); return s }

func (f frame) msgID() string {
	m, _ := f["message"].(map[string]any)
	s, _ := m["message_uuid"].(string)
	return s
}

// read returns the next frame, or the read error.
func (c *client) read(timeout time.Duration) (frame, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, b, err := c.ws.Read(ctx)
	if err != nil {
		return nil, err
	}
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("server frame %q: %v", b, err)
	}
	return f, nil
}

func (c *client) next() frame {
	c.t.Helper()
	f, err := c.read(5 * time.Second)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return f
}

// expect reads the next frame and checks its type.
func (c *client) expect(typ string) frame {
	c.t.Helper()
	f := c.next()
	if f.str("type") != typ {
		c.t.Fatalf("got frame %v, want type %q", f, typ)
	}
	return f
}

// quiet checks that no frame arrives within d.
func (c *client) quiet(d time.Duration) {
	c.t.Helper()
	if f, err := c.read(d); err == nil {
		c.t.Fatalf("unexpected frame %v", f)
	}
}

// closeCode reads until the connection ends and returns its close code.
func (c *client) closeCode() websocket.StatusCode {
	c.t.Helper()
	for {
		_, err := c.read(15 * time.Second)
		if err != nil {
			return websocket.CloseStatus(err)
		}
	}
}

func (c *client) subscribe(id, pattern string, extra map[string]any) {
	c.t.Helper()
	f := map[string]any{"type": "subscribe", "id": id, "pattern": pattern}
	for k, v := range extra {
		f[k] = v
	}
	c.send(f)
	r := c.expect("subscribed")
	if r.str("id") != id || r.str("pattern") != pattern {
		c.t.Fatalf("subscribed reply %v", r)
	}
}

// put stores a message directly through the cache and returns its id.
func (e *env) put(t *testing.T, path, body string) string {
	t.Helper()
	m, _, err := e.svc.Put(context.Background(), cache.PutInput{
		Metadata: json.RawMessage(`{"paths":["` + path + `"]}`), Body: []byte(body)})
	if err != nil {
		t.Fatalf("put: %v", err)
	}
	return m.ID.String()
}

func publishFrame(id, path, body string) map[string]any {
	return map[string]any{"type": "publish", "id": id, "message": map[string]any{
		"metadata": map[string]any{"paths": []string{path}}, "body": []byte(body)}}
}

// unwrapOnly serves h through a ResponseWriter wrapper that hides
// http.Hijacker and only Unwraps, as Herald's own HTTP middleware does.
func unwrapOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(wrappedWriter{w}, r)
	})
}

type wrappedWriter struct{ http.ResponseWriter }

func (w wrappedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// testWriter sends log output to t.Log until the test ends, and drops it
// after: a connection's closing goroutine may log once the test is over,
// which t.Log forbids.
type testWriter struct {
	t    testing.TB
	mu   sync.Mutex
	done bool
}

func newTestWriter(t testing.TB) *testWriter {
	w := &testWriter{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.done = true
	})
	return w
}

func (w *testWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimSpace(string(b)))
	}
	return len(b), nil
}
