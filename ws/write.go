package ws

import (
	"time"

	"github.com/coder/websocket"
)

// startWriter has the connection's queued frames written: by the pool's
// writers when its socket can be written without waiting, else by a
// goroutine of its own (writerpool.go). The send queue calls it, with its
// lock held, when frames arrive in an empty queue.
func (c *conn) startWriter() {
	if c.fw.rc != nil && c.h.writers.submit(c) {
		return
	}
	go c.writeFrames()
}

// writeFrames writes the queued frames until the queue is empty, on a
// goroutine of the connection's own, waiting for the socket as it must.
// Each batch of frames must be written within WriteTimeout (see stuck.go).
func (c *conn) writeFrames() {
	defer c.writingSince.Store(0)
	for {
		items := c.out.next()
		if items == nil {
			return
		}
		c.writingSince.Store(time.Now().UnixNano())
		if err := c.writeBatch(items); err != nil {
			c.closeWith(websocket.StatusGoingAway, "write failed")
			return
		}
	}
}

// writeBatch writes the frames of items, gathered into write calls of at
// most WriteBufferBytes; a frame larger than that is written alone, from
// where it lies.
func (c *conn) writeBatch(items []outItem) error {
	pb := c.h.batches.get()
	defer c.h.batches.put(pb)
	for len(items) > 0 {
		buf, sent, rest := c.frameBatch((*pb)[:0], items)
		*pb = buf
		if len(buf) > 0 {
			if err := c.fw.writeFrames(buf); err != nil {
				return err
			}
		}
		c.h.stats.FramesSent.Add(sent)
		items = rest
		if len(items) > 0 && len(buf) == 0 {
			// The first frame left does not fit in an empty buffer.
			var pos [positionSize]byte
			payload, suffix := c.framePayload(&items[0], &pos)
			if err := c.fw.writeLargeFrame(payload, suffix); err != nil {
				return err
			}
			c.h.stats.FramesSent.Add(1)
			items = items[1:]
		}
	}
	return nil
}

// frameBatch appends to buf the frames of items while they fit in its
// capacity, and returns it, how many frames it holds, and the items left
// (none once the connection is closing). Frames that fail to encode are
// logged and skipped.
func (c *conn) frameBatch(buf []byte, items []outItem) ([]byte, int64, []outItem) {
	var sent int64
	var pos [positionSize]byte
	for i := range items {
		if c.closing.Load() {
			return buf, sent, nil
		}
		payload, suffix := c.framePayload(&items[i], &pos)
		if payload == nil {
			continue
		}
		n := len(payload) + len(suffix)
		if len(buf)+maxHeaderBytes+n > cap(buf) {
			return buf, sent, items[i:]
		}
		buf = append(append(appendTextHeader(buf, n), payload...), suffix...)
		sent++
	}
	return buf, sent, nil
}

// framePayload returns the payload of it's frame as two parts: a live
// frame shared by every subscriber, whose last '}' gives way to a suffix
// in pos with this subscription's offset and the store's epoch, or the
// whole frame and no suffix. A value to encode is encoded into it.b, so
// that it is encoded once; nil when it fails to encode (logged).
func (c *conn) framePayload(it *outItem, pos *[positionSize]byte) (payload, suffix []byte) {
	if it.offset != 0 {
		return it.b[:len(it.b)-1], appendPosition(pos[:0], it.offset, c.h.cfg.Cache.Epoch())
	}
	if it.b == nil {
		b, err := marshal(it.v)
		if err != nil {
			c.h.cfg.Logger.Error("websocket frame encoding failed", "err", err)
			return nil, nil
		}
		it.b, it.v = b, nil
	}
	return it.b, nil
}
