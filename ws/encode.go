package ws

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/heraldmq/herald/cache"
)

// messageEncoder encodes a live event's frame once for all the
// connections it goes to. Events are dispatched one at a time, each to
// every matching subscriber in turn (in process and from RabbitMQ alike),
// so remembering the last message encoded, and the last frame built around
// it, turns a 10,000-subscriber fan-out into one encoding and one frame
// instead of 10,000 of each.
type messageEncoder struct {
	mu   sync.Mutex
	last *cache.Message
	json []byte

	framePattern, framePath string
	frame                   []byte // of last, framePattern and framePath
}

// liveFrame returns the frame of m's event at path for a subscription to
// pattern; callers must not modify it.
func (e *messageEncoder) liveFrame(pattern, path string, m *cache.Message) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.last == m && e.frame != nil && e.framePattern == pattern && e.framePath == path {
		return e.frame, nil
	}
	msg, err := e.encodeLocked(m)
	if err != nil {
		return nil, err
	}
	e.framePattern, e.framePath, e.frame = pattern, path, liveFrame(pattern, path, msg)
	return e.frame, nil
}

// encodeLocked returns m's JSON as the HTTP API shows it; e.mu is held.
func (e *messageEncoder) encodeLocked(m *cache.Message) ([]byte, error) {
	if e.last == m {
		return e.json, nil
	}
	b, err := json.Marshal(toWire(m))
	if err != nil {
		return nil, err
	}
	e.last, e.json, e.frame = m, b, nil
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

// positionSize bounds what appendPosition appends.
const positionSize = len(`,"offset":18446744073709551615,"epoch":"0123456789abcdef"}`)

// appendPosition appends to dst what ends a live frame in place of its
// last '}': the subscription's offset and the store's epoch, as its last
// members.
func appendPosition(dst []byte, offset uint64, epoch string) []byte {
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendUint(dst, offset, 10)
	dst = append(dst, `,"epoch":"`...)
	dst = append(dst, epoch...) // hex digits: nothing to escape
	return append(dst, `"}`...)
}
