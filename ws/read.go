package ws

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/coder/websocket"

	"github.com/heraldmq/herald"
)

func marshal(v any) ([]byte, error) { return json.Marshal(v) }

// errMalformed marks a frame that breaks the protocol (invalid_frame).
type errMalformed struct{ msg string }

func (e errMalformed) Error() string { return e.msg }

func malformed(format string, args ...any) error { return errMalformed{fmt.Sprintf(format, args...)} }

// readLoop handles the client's frames in order until the connection ends.
func (c *conn) readLoop() {
	bad := 0
	for {
		typ, data, err := c.ws.Read(context.Background()) // ends when the connection does
		if err != nil {
			// Oversized frames: the library has closed with 1009 already.
			return
		}
		if c.closing.Load() {
			continue // draining until the close handshake ends
		}
		var f inFrame
		err = decode(typ, data, &f)
		if err == nil {
			err = c.handle(&f)
		}
		var m errMalformed
		if !errors.As(err, &m) {
			bad = 0
			continue
		}
		if bad++; bad >= c.h.cfg.MaxMalformed {
			// The close frame answers the last one; keep reading so that
			// the close handshake completes.
			c.closeWith(websocket.StatusPolicyViolation, "too many malformed frames")
			continue
		}
		c.sendError(f.ID, codeInvalidFrame, m.msg)
	}
}

// decode parses one client frame.
func decode(typ websocket.MessageType, data []byte, f *inFrame) error {
	if typ != websocket.MessageText {
		return malformed("frames must be JSON text frames")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(f); err != nil {
		*f = inFrame{}
		// A frame that is JSON but has a member of the wrong type is
		// still answered with its id, when the id itself can be read.
		var idOnly struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(data, &idOnly) == nil && len(idOnly.ID) <= maxIDLen {
			f.ID = idOnly.ID
			return malformed("frame: %v", err)
		}
		return malformed("frame is not a JSON object: %v", err)
	}
	if dec.More() {
		return malformed("a frame holds one JSON object")
	}
	if len(f.ID) > maxIDLen {
		f.ID = ""
		return malformed("id is longer than %d characters", maxIDLen)
	}
	return nil
}

// handle serves one decoded frame. A malformed frame returns errMalformed;
// every other outcome, success or failure, has been answered.
func (c *conn) handle(f *inFrame) error {
	if f.ID == "" {
		return malformed("member \"id\" is required")
	}
	switch f.Type {
	case "ping":
		c.send(reply("pong", f.ID, nil))
	case "subscribe":
		if f.Pattern == "" {
			return malformed("member \"pattern\" is required")
		}
		return c.subscribe(f)
	case "unsubscribe":
		if f.Pattern == "" {
			return malformed("member \"pattern\" is required")
		}
		c.unsubscribe(f)
	case "publish":
		if len(f.Message) == 0 || string(f.Message) == "null" {
			return malformed("member \"message\" is required")
		}
		c.publish(f)
	case "query":
		return c.query(f)
	case "subscribe_queue", "unsubscribe_queue", "ack", "nack":
		return c.queueFrame(f)
	case "":
		return malformed("member \"type\" is required")
	default:
		return malformed("unknown frame type %q", herald.Clip(f.Type))
	}
	return nil
}
