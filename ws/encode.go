package ws

import (
	"encoding/json"
	"sync"

	"github.com/heraldmq/herald/cache"
)

// messageEncoder encodes a message's JSON once for all the connections a
// live event goes to. Events are dispatched one at a time, each to every
// matching subscriber in turn (in process and from RabbitMQ alike), so
// remembering the last message encoded turns a 10,000-subscriber fan-out
// into one encoding instead of 10,000.
type messageEncoder struct {
	mu   sync.Mutex
	last *cache.Message
	json []byte
}

// encode returns m's JSON as the HTTP API shows it; callers must not
// modify it.
func (e *messageEncoder) encode(m *cache.Message) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.last == m {
		return e.json, nil
	}
	b, err := json.Marshal(toWire(m))
	if err != nil {
		return nil, err
	}
	e.last, e.json = m, b
	return b, nil
}

// liveFrame is the "message" frame of a live event, built around the
// shared encoding of its message. Patterns and paths hold only characters
// that need no escaping in JSON (words of [A-Za-z0-9_:-], '.', '*', '#').
func liveFrame(pattern, path string, msg []byte) []byte {
	b := make([]byte, 0, len(msg)+len(pattern)+len(path)+72)
	b = append(b, `{"type":"message","subscription":"`...)
	b = append(b, pattern...)
	b = append(b, `","path":"`...)
	b = append(b, path...)
	b = append(b, `","message":`...)
	b = append(b, msg...)
	b = append(b, `,"source":"live"}`...)
	return b
}
