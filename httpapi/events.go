package httpapi

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/paths"
)

// Defaults of the event stream (GET /v1/events).
const (
	eventBuffer       = 1024             // events queued per connection before it counts as too slow
	eventKeepalive    = 15 * time.Second // comment line sent on an idle stream
	eventWriteTimeout = 10 * time.Second // longest wait for a client to take one write
	eventBatchBytes   = 64 << 10         // queued events joined into one write up to this size
)

// eventStream serves GET /v1/events from an Events.
type eventStream struct {
	src          cache.Events
	buffer       int
	keepalive    time.Duration
	writeTimeout time.Duration
	closing      chan struct{} // closed by CloseStreams
	closeOnce    sync.Once
}

// CloseStreams ends every GET /v1/events stream, as a server shutting down
// must: http.Server.Shutdown waits for running handlers, and a stream
// otherwise never ends by itself.
func (s *Server) CloseStreams() {
	if es := s.events; es != nil {
		es.closeOnce.Do(func() { close(es.closing) })
	}
}

// SetEvents enables GET /v1/events, a Server-Sent Events stream of the
// events of e matching a pattern. Call it before serving; without it the
// route answers 501.
func (s *Server) SetEvents(e cache.Events) {
	if e == nil {
		s.events = nil
		return
	}
	s.events = &eventStream{src: e, buffer: eventBuffer, keepalive: eventKeepalive, writeTimeout: eventWriteTimeout,
		closing: make(chan struct{})}
}

// streamedEvent is one event waiting for its connection's writer.
type streamedEvent struct {
	path string
	m    *cache.Message
}

// streamEvents serves GET /v1/events?pattern=P until the client leaves.
// Subscriber callbacks never block: each connection has a bounded queue,
// and a client that lets it overflow (or does not take a write within the
// write timeout) is disconnected rather than sent a stream with a gap.
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request) {
	es := s.events
	if es == nil {
		writeJSON(w, http.StatusNotImplemented, api.ErrorResponse{Error: api.ErrorBody{
			Code: "not_implemented", Message: "the event stream is not enabled on this server"}})
		return
	}
	pattern := r.URL.Query().Get("pattern")
	if _, err := paths.ParsePattern(pattern); err != nil {
		writeError(w, r, s.log, withHashHint(herald.Errorf(herald.EInvalid, "pattern: %v", err), r.URL.Query()))
		return
	}
	if err := s.cache.AuthorizeRead(r.Context(), pattern); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	queue := make(chan streamedEvent, es.buffer)
	overflow := make(chan struct{})
	var once sync.Once
	cancel, err := es.src.Subscribe(pattern, func(path string, m *cache.Message) {
		select {
		case queue <- streamedEvent{path, m}:
		default:
			once.Do(func() { close(overflow) })
		}
	})
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	defer cancel()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	if r.ProtoMajor == 1 {
		h.Set("Connection", "close") // a stream cut short must not leave a reusable connection
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	rc := http.NewResponseController(w)
	var deadlineMu sync.Mutex // orders the deadlines of write and of the watcher below
	write := func(b []byte) bool {
		deadlineMu.Lock()
		select {
		case <-overflow:
			deadlineMu.Unlock()
			return false
		default:
		}
		rc.SetWriteDeadline(time.Now().Add(es.writeTimeout)) // fails only where unsupported (recorders)
		deadlineMu.Unlock()
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	// On overflow, cut the connection at once, even while a write to the
	// client is blocked, rather than after the write timeout. The watcher
	// ends before the handler returns, after which w must not be used.
	done, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-overflow:
		case <-done:
			select {
			case <-overflow:
			default:
				return
			}
		}
		s.log.Warn("event stream client too slow; disconnected", "remote", r.RemoteAddr, "pattern", pattern)
		deadlineMu.Lock()
		rc.SetWriteDeadline(time.Now())
		deadlineMu.Unlock()
	}()
	defer func() { close(done); <-watched }()

	// The first line tells the client that the subscription is in place.
	if !write([]byte(": subscribed\n\n")) {
		return
	}
	keepalive := time.NewTicker(es.keepalive)
	defer keepalive.Stop()
	buf := make([]byte, 0, 4096)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-es.closing:
			return
		case <-overflow:
			return // events were lost: no stream with a gap
		case <-keepalive.C:
			if !write([]byte(": keepalive\n\n")) {
				return
			}
		case ev := <-queue:
			buf = appendEvent(buf[:0], ev)
			for len(queue) > 0 && len(buf) < eventBatchBytes {
				buf = appendEvent(buf, <-queue)
			}
			if !write(buf) {
				return
			}
			keepalive.Reset(es.keepalive)
		}
	}
}

// appendEvent appends ev to b as one Server-Sent Event of type "message"
// whose data is the api.Event JSON (one line: JSON encoding escapes line
// breaks inside strings).
func appendEvent(b []byte, ev streamedEvent) []byte {
	data, err := json.Marshal(api.Event{Path: ev.path, Message: toWire(ev.m)})
	if err != nil {
		return b // not for a stored message, whose metadata is valid JSON
	}
	b = append(b, "event: message\ndata: "...)
	b = append(b, data...)
	return append(b, '\n', '\n')
}
