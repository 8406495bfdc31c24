package ws

import (
	"strings"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/httpapi"
)

// publish serves a publish frame: the message is read as POST /v1/messages
// reads its body (the same decoder) and stored through the cache, which
// validates it as the HTTP API does and checks the connection's
// identity (carried by c.ctx) for each of its paths.
func (c *conn) publish(f *inFrame) {
	req, err := httpapi.DecodePutRequest(f.Message)
	if err != nil {
		c.sendErr(f.ID, err)
		return
	}
	m, _, err := c.h.cfg.Cache.Put(c.ctx, toInput(req))
	if err != nil {
		c.sendErr(f.ID, err)
		return
	}
	c.send(reply("published", f.ID, map[string]any{"message": toWire(m)}))
}

// query serves a query frame: latest, all or get, answered with result.
func (c *conn) query(f *inFrame) error {
	svc := c.h.cfg.Cache
	if f.Limit < 0 {
		c.sendError(f.ID, codeInvalid, "limit must be a positive whole number")
		return nil
	}
	switch f.Query {
	case "latest":
		if f.Pattern == "" {
			return malformed("member \"pattern\" is required for query latest")
		}
		items, pg, err := svc.Latest(c.ctx, f.Pattern, f.Cursor, f.Limit)
		if err != nil {
			c.sendErr(f.ID, err)
			return nil
		}
		out := make([]api.LatestItem, len(items))
		for i, it := range items {
			out[i] = api.LatestItem{Path: it.Path, Message: toWire(it.Message)}
		}
		c.send(reply("result", f.ID, map[string]any{"items": out, "next_cursor": pg.NextCursor}))
	case "all":
		if f.Path == "" {
			return malformed("member \"path\" is required for query all")
		}
		msgs, pg, err := svc.All(c.ctx, f.Path, f.Cursor, f.Limit)
		if err != nil {
			c.sendErr(f.ID, err)
			return nil
		}
		out := make([]api.Message, len(msgs))
		for i, m := range msgs {
			out[i] = toWire(m)
		}
		c.send(reply("result", f.ID, map[string]any{"items": out, "next_cursor": pg.NextCursor}))
	case "get":
		if f.MessageUUID == "" {
			return malformed("member \"message_uuid\" is required for query get")
		}
		m, err := svc.Get(c.ctx, f.MessageUUID)
		if err != nil {
			c.sendErr(f.ID, err)
			return nil
		}
		c.send(reply("result", f.ID, map[string]any{"items": []api.Message{toWire(m)}, "next_cursor": ""}))
	case "rollup_series", "rollup_totals", "rollup_top":
		return c.rollupQuery(f)
	case "":
		return malformed("member \"query\" is required")
	default:
		return malformed("query must be latest, all, get, rollup_series, rollup_totals or rollup_top, not %q", herald.Clip(f.Query))
	}
	return nil
}

// queueName is the name of a queue given as a URL or a name.
func queueName(q string) string { return q[strings.LastIndexByte(q, '/')+1:] }

// queueFrame serves subscribe_queue, unsubscribe_queue, ack and nack.
func (c *conn) queueFrame(f *inFrame) error {
	if f.Queue == "" {
		return malformed("member \"queue\" is required")
	}
	if (f.Type == "ack" || f.Type == "nack") && f.ReceiptHandle == "" {
		return malformed("member \"receipt_handle\" is required")
	}
	switch f.Type {
	case "subscribe_queue":
		c.subscribeQueue(f)
	case "unsubscribe_queue":
		c.mu.Lock()
		key, qp, ok := c.queueSub(f.Queue)
		delete(c.queues, key)
		c.mu.Unlock()
		if !ok {
			c.sendError(f.ID, codeNotFound, "not subscribed to queue "+herald.Clip(f.Queue))
			return nil
		}
		qp.Close()
		c.send(reply("unsubscribed", f.ID, map[string]any{"queue": f.Queue}))
	default: // ack, nack
		c.mu.Lock()
		_, qp, ok := c.queueSub(f.Queue)
		c.mu.Unlock()
		if !ok {
			c.sendError(f.ID, codeNotFound, "not subscribed to queue "+herald.Clip(f.Queue))
			return nil
		}
		var err error
		if f.Type == "ack" {
			err = qp.Ack(f.ReceiptHandle)
		} else {
			err = qp.Nack(f.ReceiptHandle)
		}
		if err != nil {
			c.sendErr(f.ID, err)
			return nil
		}
		c.send(reply(f.Type+"ed", f.ID, nil))
	}
	return nil
}

// queueSub finds the queue subscription that queue names: as the client
// named it in subscribe_queue, or by the queue URL its queue_message frames
// carry. c.mu must be held.
func (c *conn) queueSub(queue string) (key string, qp QueuePush, ok bool) {
	if qp, ok := c.queues[queue]; ok {
		return queue, qp, true
	}
	for k, qp := range c.queues {
		if u, isURL := qp.(interface{ URL() string }); isURL && u.URL() == queue {
			return k, qp, true
		}
	}
	return "", nil, false
}

func (c *conn) subscribeQueue(f *inFrame) {
	if c.h.cfg.NewQueuePush == nil {
		c.sendError(f.ID, codeUnavailable, "queue push is not enabled on this server")
		return
	}
	if !c.id.Grants.CanQueue(queueName(f.Queue)) {
		c.sendError(f.ID, codeForbidden, "the token does not allow the queue "+herald.Clip(f.Queue))
		return
	}
	vt, mif := DefaultVisibility, DefaultMaxInFlight
	if f.VisibilityTimeout != nil {
		vt = *f.VisibilityTimeout
	}
	if f.MaxInFlight != nil {
		mif = *f.MaxInFlight
	}
	if vt < 0 || mif < 1 {
		c.sendError(f.ID, codeInvalid, "visibility_timeout must be at least 0 and max_in_flight at least 1")
		return
	}
	c.mu.Lock()
	_, dup := c.queues[f.Queue]
	full := len(c.subs)+len(c.queues) >= c.h.cfg.MaxSubscriptions
	c.mu.Unlock()
	if dup {
		c.sendError(f.ID, codeInvalid, "already subscribed to queue "+herald.Clip(f.Queue))
		return
	}
	if full {
		c.sendError(f.ID, codeTooMany, "too many subscriptions on this connection")
		return
	}
	// The reply must precede the first queue_message: sends wait for it.
	ready := make(chan struct{})
	send := func(frame any) error {
		select {
		case <-ready:
		case <-c.ctx.Done():
			return errConnClosed
		}
		b, err := marshal(frame)
		if err != nil {
			return err
		}
		if !c.out.put(c.ctx, outItem{b: b, n: len(b)}) {
			return errConnClosed
		}
		return nil
	}
	qp, err := c.h.cfg.NewQueuePush(c.ctx, c.id, f.Queue, vt, mif, send)
	if err != nil {
		c.sendErr(f.ID, err)
		return
	}
	c.mu.Lock()
	c.queues[f.Queue] = qp
	c.mu.Unlock()
	c.send(reply("subscribed", f.ID, map[string]any{"queue": f.Queue}))
	close(ready)
}

var errConnClosed = herald.Errorf(herald.EUnavailable, "the WebSocket connection is closed")
