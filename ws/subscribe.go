package ws

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/paths"
)

// eventKey names one (message, path) event, for skipping duplicates.
type eventKey struct {
	id   uuid.UUID
	path string
}

type bufferedEvent struct {
	path string
	m    *cache.Message
}

// subscription is one pattern subscription of a connection. Until started
// it buffers live events (bounded by the send queue's size); afterwards it
// offers them straight to the send queue, skipping those already sent by
// the latest or recover phase.
type subscription struct {
	c       *conn
	pattern string
	cancel  func()          // of the Events subscription
	ctx     context.Context // of the latest or recover phase; ends with stop
	end     context.CancelFunc

	// phase serializes the latest or recover phase's frames with stop: a
	// frame of the phase is queued only while phase is held and s.ctx has
	// not ended, and stop cancels s.ctx then takes phase, so once stop
	// returns (and unsubscribed is queued) no frame of the phase follows.
	phase sync.Mutex

	mu        sync.Mutex
	buffering bool
	buf       []bufferedEvent
	bufBytes  int
	sent      map[eventKey]struct{} // sent before going live; nil for live
	stopped   bool

	// offset counts the message frames queued, of the latest or recover
	// phase and then live, which never overlap: the next frame's offset
	// is offset+1.
	offset atomic.Uint64
}

// onEvent is the Events callback: it never blocks.
func (s *subscription) onEvent(path string, m *cache.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	if s.buffering {
		if s.ctx.Err() != nil {
			return // being stopped: the buffer will never be flushed
		}
		s.bufBytes += frameSize(path, m)
		if s.bufBytes > s.c.h.cfg.SendQueueBytes {
			s.c.out.overflow()
			return
		}
		s.buf = append(s.buf, bufferedEvent{path, m})
		return
	}
	s.offer(path, m)
}

// offer queues a live event unless it was sent already; s.mu is held.
func (s *subscription) offer(path string, m *cache.Message) {
	if s.sent != nil {
		if _, dup := s.sent[eventKey{m.ID, path}]; dup {
			return
		}
	}
	frame, err := s.c.h.enc.liveFrame(s.pattern, path, m)
	if err != nil {
		s.c.h.cfg.Logger.Error("websocket frame encoding failed", "err", err)
		return
	}
	// A failed offer closes the connection: no later frame shows the gap.
	s.c.out.offer(outItem{b: frame, n: len(frame) + positionSize, offset: s.offset.Add(1)})
}

// goLive flushes the buffered events and lets later ones through.
func (s *subscription) goLive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || s.ctx.Err() != nil {
		return // unsubscribed, or the connection is ending
	}
	for _, ev := range s.buf {
		s.offer(ev.path, ev.m)
	}
	s.buf, s.bufBytes, s.buffering = nil, 0, false
}

// stop cancels the subscription; no frame of it, live or of its latest or
// recover phase, is queued after it returns.
func (s *subscription) stop() {
	s.cancel()
	s.end()
	if hook := s.c.h.hooks.stopping; hook != nil {
		hook()
	}
	s.phase.Lock() // waits for a phase frame being queued (s.ctx has ended: put returns at once)
	s.mu.Lock()
	s.stopped = true
	s.buf = nil
	s.mu.Unlock()
	s.phase.Unlock()
	s.c.h.stats.Subscriptions.Add(-1)
}

// putPhase queues a frame of the latest or recover phase; false once the
// subscription or the connection has ended, and then nothing is queued.
func (s *subscription) putPhase(it outItem) bool {
	s.phase.Lock()
	defer s.phase.Unlock()
	if s.ctx.Err() != nil {
		return false
	}
	if hook := s.c.h.hooks.phaseFrame; hook != nil {
		hook()
	}
	return s.c.out.put(s.ctx, it)
}

// sendPhase is putPhase of a frame value v.
func (s *subscription) sendPhase(v any) bool {
	b, err := marshal(v)
	if err != nil {
		s.c.h.cfg.Logger.Error("websocket frame encoding failed", "err", err)
		return false
	}
	return s.putPhase(outItem{b: b, n: len(b)})
}

// subscribe serves a subscribe frame.
func (c *conn) subscribe(f *inFrame) error {
	mode := f.Mode
	switch mode {
	case "", "live":
		mode = "live"
	case "latest":
	case "recover":
		if len(f.Since) == 0 || string(f.Since) == "null" || string(f.Since) == `""` {
			return malformed("member \"since\" is required for mode recover")
		}
	default:
		return malformed("mode must be live, latest or recover, not %q", herald.Clip(f.Mode))
	}
	pat, err := paths.ParsePattern(f.Pattern)
	if err != nil {
		c.sendErr(f.ID, herald.Errorf(herald.EInvalid, "pattern: %v", err))
		return nil
	}
	// Input first, then grants: an invalid request is "invalid" whoever
	// sends it.
	var rec *recovery
	if mode == "recover" {
		if rec, err = c.parseRecovery(f); err != nil {
			c.sendErr(f.ID, err)
			return nil
		}
	}
	if err := c.h.cfg.Cache.AuthorizeRead(c.ctx, f.Pattern); err != nil {
		c.sendErr(f.ID, err)
		return nil
	}
	if rec != nil {
		if err := c.resolve(rec); err != nil {
			c.sendErr(f.ID, err)
			return nil
		}
	}
	s := &subscription{c: c, pattern: f.Pattern, buffering: true}
	s.ctx, s.end = context.WithCancel(c.ctx)
	if mode != "live" {
		s.sent = map[eventKey]struct{}{}
	}
	c.mu.Lock()
	if _, dup := c.subs[f.Pattern]; dup {
		c.mu.Unlock()
		s.end()
		c.sendError(f.ID, codeInvalid, "already subscribed to "+herald.Clip(f.Pattern))
		return nil
	}
	if len(c.subs)+len(c.queues) >= c.h.cfg.MaxSubscriptions {
		c.mu.Unlock()
		s.end()
		c.sendError(f.ID, codeTooMany, fmt.Sprintf("a connection holds at most %d subscriptions", c.h.cfg.MaxSubscriptions))
		return nil
	}
	c.subs[f.Pattern] = s
	c.mu.Unlock()
	cancel, err := c.h.cfg.Events.Subscribe(f.Pattern, s.onEvent)
	if err != nil {
		c.mu.Lock()
		delete(c.subs, f.Pattern)
		c.mu.Unlock()
		s.end()
		c.sendErr(f.ID, err)
		return nil
	}
	s.cancel = cancel
	c.h.stats.Subscriptions.Add(1)
	c.send(reply("subscribed", f.ID, map[string]any{"pattern": f.Pattern, "epoch": c.h.cfg.Cache.Epoch()}))
	if mode == "live" {
		s.goLive()
		return nil
	}
	// Reading the cache may take long (many pages, a remote store): it
	// runs on a goroutine of its own so that the client's other frames are
	// served meanwhile. Live events wait in the subscription's buffer.
	id := f.ID
	go func() {
		var err error
		if mode == "latest" {
			err = c.sendLatest(s)
		} else {
			err = c.sendRecovery(s, pat, rec)
		}
		if err != nil {
			// The subscription stays live; the client learns what is missing.
			s.sendPhase(c.errFrame(id, err))
		}
		s.goLive()
	}()
	return nil
}

// unsubscribe serves an unsubscribe frame.
func (c *conn) unsubscribe(f *inFrame) {
	c.mu.Lock()
	s, ok := c.subs[f.Pattern]
	delete(c.subs, f.Pattern)
	c.mu.Unlock()
	if !ok {
		c.sendError(f.ID, codeNotFound, "not subscribed to "+herald.Clip(f.Pattern))
		return
	}
	s.stop()
	c.send(reply("unsubscribed", f.ID, map[string]any{"pattern": f.Pattern}))
}

// sendHistoric queues one latest or recover message frame and records it;
// false once the subscription or the connection has ended.
func (c *conn) sendHistoric(s *subscription, source, path string, m *cache.Message) bool {
	if s.ctx.Err() != nil {
		return false
	}
	s.sent[eventKey{m.ID, path}] = struct{}{} // only the historic phase touches sent before goLive
	return s.putPhase(outItem{
		v: messageFrame{Type: "message", Subscription: s.pattern, Path: path, Message: toWire(m), Source: source,
			Offset: s.offset.Add(1), Epoch: c.h.cfg.Cache.Epoch()},
		n: frameSize(path, m),
	})
}

// sendLatest sends the latest message of every matching path, up to
// MaxRecoverLimit, then the latest_end frame.
func (c *conn) sendLatest(s *subscription) error {
	limit := c.h.cfg.MaxRecoverLimit
	page := c.h.cfg.Cache.Config().MaxLimit
	cursor, n := "", 0
	for {
		items, pg, err := c.h.cfg.Cache.Latest(s.ctx, s.pattern, cursor, min(page, limit-n))
		if err != nil {
			return err
		}
		for _, it := range items {
			if !c.sendHistoric(s, sourceLatest, it.Path, it.Message) {
				return nil
			}
			n++
		}
		if pg.NextCursor == "" || n >= limit {
			// Cut short by the limit: the rest is a query latest away.
			s.sendPhase(latestEndFrame{Type: "latest_end", Subscription: s.pattern, Count: n,
				Truncated: pg.NextCursor != "", NextCursor: pg.NextCursor})
			return nil
		}
		cursor = pg.NextCursor
	}
}
