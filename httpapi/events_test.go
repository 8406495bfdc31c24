package httpapi

// These tests are internal to the package so that they can shorten the
// event stream's buffer, keepalive and write timeout.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/pebblestore"
)

// eventsEnv is a real HTTP server with the event stream on LocalEvents.
type eventsEnv struct {
	srv    *Server
	http   *httptest.Server
	events *cache.LocalEvents
	log    *lockedBuffer // the server's log lines
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newEventsEnv starts a server over a fresh pebblestore whose puts are
// published to LocalEvents streamed by GET /v1/events.
func newEventsEnv(t *testing.T) *eventsEnv {
	t.Helper()
	logged := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logged, nil))
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{ReapInterval: -1, Logger: log})
	if err != nil {
		t.Fatalf("pebblestore.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	events := cache.NewLocalEvents(cache.LocalEventsOptions{})
	t.Cleanup(func() { events.Close() })
	svc := cache.NewService(db, cache.DefaultConfig())
	svc.SetEvents(events)
	srv := New(svc, metrics.New(), log)
	srv.SetEvents(events)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close) // runs before the closes above
	return &eventsEnv{srv: srv, http: hs, events: events, log: logged}
}

// sseEvent is one parsed Server-Sent Event, or a comment line when
// comment is set.
type sseEvent struct {
	typ, data, comment string
}

// stream is an open GET /v1/events.
type stream struct {
	resp   *http.Response
	events chan sseEvent // closed at the end of the stream
	cancel context.CancelFunc
}

// openStream subscribes to pattern and waits until the subscription is in
// place (the server's first comment line).
func (e *eventsEnv) openStream(t *testing.T, pattern string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.http.URL+"/v1/events?pattern="+urlQueryEscape(pattern), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatalf("GET /v1/events: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /v1/events?pattern=%s: %d %s", pattern, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q, want text/event-stream", ct)
	}
	s := &stream{resp: resp, events: make(chan sseEvent, 100), cancel: cancel}
	go readSSE(resp.Body, s.events)
	if ev := s.next(t); ev.comment == "" {
		t.Fatalf("first item of the stream is %+v, want a comment", ev)
	}
	return s
}

func urlQueryEscape(s string) string {
	return strings.NewReplacer("#", "%23", "*", "%2A").Replace(s)
}

// readSSE parses an event stream (the subset Herald sends: comments,
// "event" and "data" fields) into out until it ends.
func readSSE(r io.Reader, out chan<- sseEvent) {
	defer close(out)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 4<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev != (sseEvent{}) {
				out <- ev
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, ":"):
			out <- sseEvent{comment: strings.TrimSpace(line[1:])}
		case strings.HasPrefix(line, "event: "):
			ev.typ = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			ev.data += line[len("data: "):]
		default:
			out <- sseEvent{typ: "unexpected line", data: line}
		}
	}
}

// next returns the next item of the stream, failing after 10 s.
func (s *stream) next(t *testing.T) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
		return sseEvent{}
	}
}

// nextEvent returns the next event, skipping comments, decoded strictly.
func (s *stream) nextEvent(t *testing.T) api.Event {
	t.Helper()
	for {
		ev := s.next(t)
		if ev.comment != "" {
			continue
		}
		if ev.typ != "message" {
			t.Fatalf("event type %q (data %q), want message", ev.typ, ev.data)
		}
		var out api.Event
		dec := json.NewDecoder(strings.NewReader(ev.data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&out); err != nil {
			t.Fatalf("event data %q: %v", ev.data, err)
		}
		return out
	}
}

// put stores a message under ps through the API and returns its id.
func (e *eventsEnv) put(t *testing.T, body string, ps ...string) string {
	t.Helper()
	meta, _ := json.Marshal(map[string]any{"paths": ps})
	req, _ := json.Marshal(api.PutRequest{Metadata: meta, Body: []byte(body)})
	resp, err := e.http.Client().Post(e.http.URL+"/v1/messages", "application/json", bytes.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out api.PutResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("put %v: %d, %v", ps, resp.StatusCode, err)
	}
	return out.MessageUUID
}

func TestEventsStreamCarriesPutMessages(t *testing.T) {
	env := newEventsEnv(t)
	s := env.openStream(t, "feeds.#")
	id := env.put(t, "hello", "feeds.news.1", "other.x", "feeds.sport.2")

	for _, want := range []string{"feeds.news.1", "feeds.sport.2"} {
		ev := s.nextEvent(t)
		if ev.Path != want || ev.MessageUUID != id || string(ev.Body) != "hello" {
			t.Errorf("event %s %s body %q, want %s %s body hello", ev.Path, ev.MessageUUID, ev.Body, want, id)
		}
		var meta struct{ Paths []string }
		if err := json.Unmarshal(ev.Metadata, &meta); err != nil || !slices.Equal(meta.Paths, []string{"feeds.news.1", "other.x", "feeds.sport.2"}) {
			t.Errorf("event metadata %s (%v), want the message's", ev.Metadata, err)
		}
		if _, err := time.Parse(api.TimeFormat, ev.ReceivedAt); err != nil || ev.ReplicaUUID == "" || ev.ExpiresAt <= ev.ReceivedAt {
			t.Errorf("event times/replica %q %q %q", ev.ReceivedAt, ev.ExpiresAt, ev.ReplicaUUID)
		}
	}
	// The same message under the same id again stores nothing and sends nothing.
	body := fmt.Sprintf(`{"message_uuid":%q,"metadata":{"paths":["feeds.news.1"]}}`, id)
	resp, err := env.http.Client().Post(env.http.URL+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("repeat put: %d, want 200", resp.StatusCode)
	}
	next := env.put(t, "", "feeds.last")
	if ev := s.nextEvent(t); ev.MessageUUID != next {
		t.Errorf("after a repeat put, the next event is %s %s, want the next message %s", ev.Path, ev.MessageUUID, next)
	}
}

func TestEventsStreamFiltersByPattern(t *testing.T) {
	env := newEventsEnv(t)
	tests := []struct {
		pattern string
		want    []string
	}{
		{"feeds.*.1", []string{"feeds.news.1", "feeds.sport.1", "feeds.end.1"}},
		{"other.#", []string{"other", "other.a.b", "other.end"}},
		{"#.end.#", []string{"feeds.end.1", "other.end"}},
	}
	streams := make([]*stream, len(tests))
	for i, tc := range tests {
		streams[i] = env.openStream(t, tc.pattern)
	}
	env.put(t, "", "feeds.news.1", "feeds.news.2")
	env.put(t, "", "other", "feeds.sport.1", "feeds.sport.1.x")
	env.put(t, "", "other.a.b", "nothing.here")
	env.put(t, "", "feeds.end.1", "other.end") // the last event of every stream
	for i, tc := range tests {
		var got []string
		for len(got) < len(tc.want) {
			got = append(got, streams[i].nextEvent(t).Path)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q streamed %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

func TestEventsStreamRefusals(t *testing.T) {
	env := newEventsEnv(t)
	plain := New(cache.NewService(nil, cache.DefaultConfig()), metrics.New(), slog.New(slog.DiscardHandler))
	tests := []struct {
		name   string
		h      http.Handler
		method string
		target string
		status int
		code   string
	}{
		{"no pattern", env.srv, "GET", "/v1/events", 400, "invalid_argument"},
		{"empty pattern", env.srv, "GET", "/v1/events?pattern=", 400, "invalid_argument"},
		{"empty word", env.srv, "GET", "/v1/events?pattern=feeds..x", 400, "invalid_argument"},
		{"wildcard inside a word", env.srv, "GET", "/v1/events?pattern=feeds.a%23", 400, "invalid_argument"},
		{"bad byte", env.srv, "GET", "/v1/events?pattern=feeds.a%20b", 400, "invalid_argument"},
		{"POST", env.srv, "POST", "/v1/events?pattern=%23", 405, "method_not_allowed"},
		{"no events configured", plain, "GET", "/v1/events?pattern=%23", 501, "not_implemented"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			tc.h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.target, nil))
			var body api.ErrorResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", rec.Body, err)
			}
			if rec.Code != tc.status || body.Error.Code != tc.code || body.Error.Message == "" {
				t.Errorf("%d %+v, want %d %s", rec.Code, body.Error, tc.status, tc.code)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
		})
	}
	if n := env.events.Subscriptions(); n != 0 {
		t.Errorf("%d subscriptions after refused requests, want 0", n)
	}
}

// waitSubscriptions waits until events has n subscriptions.
func waitSubscriptions(t *testing.T, events *cache.LocalEvents, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for events.Subscriptions() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions after 10 s, want %d", events.Subscriptions(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestEventsStreamClientDisconnectReleasesTheSubscription(t *testing.T) {
	env := newEventsEnv(t)
	a := env.openStream(t, "feeds.#")
	b := env.openStream(t, "feeds.#")
	if n := env.events.Subscriptions(); n != 2 {
		t.Fatalf("%d subscriptions with two streams open, want 2", n)
	}
	a.cancel()
	waitSubscriptions(t, env.events, 1)
	id := env.put(t, "", "feeds.after")
	if ev := b.nextEvent(t); ev.MessageUUID != id {
		t.Errorf("the remaining stream got %s, want %s", ev.MessageUUID, id)
	}
}

func TestEventsStreamKeepalive(t *testing.T) {
	env := newEventsEnv(t)
	env.srv.events.keepalive = 20 * time.Millisecond
	s := env.openStream(t, "quiet.#")
	for range 2 {
		if ev := s.next(t); ev.comment != "keepalive" {
			t.Fatalf("idle stream sent %+v, want a keepalive comment", ev)
		}
	}
}

func TestEventsStreamDisconnectsASlowClient(t *testing.T) {
	env := newEventsEnv(t)
	env.srv.events.buffer = 4
	env.srv.events.writeTimeout = time.Minute // the overflow alone must cut the client

	// A client that sends the request and then reads nothing.
	conn, err := net.Dial("tcp", env.http.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /v1/events?pattern=slow.%%23 HTTP/1.1\r\nHost: herald\r\n\r\n")
	waitSubscriptions(t, env.events, 1)

	// Far more than socket buffers hold: Publish must still never wait for
	// the client, only for the dispatcher.
	body := bytes.Repeat([]byte("x"), 64<<10)
	start := time.Now()
	for i := range 2000 {
		m := &cache.Message{ID: uuid.Must(uuid.NewUUID()), Metadata: json.RawMessage(`{"paths":["slow.x"]}`), Paths: []string{fmt.Sprintf("slow.m%d", i)}, Body: body}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := env.events.Publish(ctx, m)
		cancel()
		if err != nil {
			t.Fatalf("Publish %d blocked on a slow client: %v", i, err)
		}
		if env.events.Subscriptions() == 0 {
			break
		}
	}
	waitSubscriptions(t, env.events, 0)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the slow client was cut after %v", d)
	}
	if !strings.Contains(env.log.String(), "too slow") {
		t.Errorf("the server did not log the slow client; log:\n%s", env.log)
	}
	// The server closed the connection: reading drains what was sent, then ends.
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("the server kept the slow client's connection open: %v", err)
	}
}
