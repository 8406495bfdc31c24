package rollup

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// Cache ingest: a rollup whose definition names sources.cache_pattern
// counts every message stored in the message cache under a matching path,
// on any node, from when its subscription starts (cache.Events: live
// only). The event is the message's metadata object with two members
// added unless present: "message_uuid" and "message_time" (the time of
// its version 1 UUID, RFC 3339), so a definition can name them as its
// event's id and time. Every node subscribes, and the message's
// message_uuid (or the metadata's id member) makes it count once. A
// message stored while no node ran is not counted: the message cache
// keeps no log to replay from, unlike a queue.

// cacheBuffer is how many stored messages wait for one flush.
const cacheBuffer = 10000

// watchCache subscribes to the rollup's cache pattern and commits what
// arrives every FlushInterval until ctx ends, counting with the newest
// version of its definition in cur.
func (s *Service) watchCache(ctx context.Context, cur *atomic.Pointer[Definition]) {
	d := cur.Load() // its account and pattern do not change under its ID and source
	log := s.log().With("rollup", d.Name, "account", d.Account, "pattern", d.Sources.CachePattern)
	in := make(chan []byte, cacheBuffer)
	cancel, err := s.cfg.Events.Subscribe(d.Sources.CachePattern, func(_ string, m *cache.Message) {
		body, err := cacheEvent(m)
		if err != nil {
			s.Stats.Malformed.Add(1)
			return
		}
		select {
		case in <- body:
		default:
			s.Stats.Dropped.Add(1)
		}
	})
	if err != nil {
		log.Warn("rollup: cannot subscribe to the cache pattern", "err", err)
		return
	}
	defer cancel()
	t := time.NewTicker(s.cfg.FlushInterval)
	defer t.Stop()
	var events []Event
	for {
		select {
		case <-ctx.Done():
			return
		case body := <-in:
			evs, bad, err := cur.Load().ParseEvents(body)
			if err != nil {
				s.Stats.Malformed.Add(1)
				continue
			}
			s.Stats.Malformed.Add(int64(len(bad)))
			events = append(events, evs...)
			if len(events) < s.cfg.FlushEvents {
				continue
			}
		case <-t.C:
		}
		if len(events) == 0 {
			continue
		}
		now := s.cfg.Clock()
		d := cur.Load()
		kept := events[:0]
		for _, e := range events {
			if d.CheckTime(e, now) != nil {
				s.Stats.Late.Add(1)
				continue
			}
			kept = append(kept, e)
		}
		if _, _, err := s.commit(ctx, d, kept, now); err != nil {
			log.Warn("rollup: commit of cache messages failed; they are not counted", "events", len(kept), "err", err)
		}
		events = events[:0]
	}
}

// cacheEvent is the event of a stored message: its metadata, with
// message_uuid and message_time added unless present.
func cacheEvent(m *cache.Message) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(m.Metadata, &obj); err != nil {
		return nil, err
	}
	if _, ok := obj["message_uuid"]; !ok {
		obj["message_uuid"], _ = json.Marshal(m.ID.String())
	}
	if _, ok := obj["message_time"]; !ok {
		obj["message_time"], _ = json.Marshal(m.Time().UTC().Format(time.RFC3339Nano))
	}
	return json.Marshal(obj)
}

// checkCachePattern checks, when a definition names a cache pattern, that
// the caller may read every path it matches.
func (s *Service) checkCachePattern(ctx context.Context, d *Definition) error {
	if d.Sources.CachePattern == "" {
		return nil
	}
	if s.cfg.Events == nil || s.cfg.CacheReader == nil {
		return invalid("sources.cache_pattern", "this server does not feed rollups from the message cache")
	}
	if err := s.cfg.CacheReader.AuthorizeRead(ctx, d.Sources.CachePattern); err != nil {
		return invalid("sources.cache_pattern", "%s", herald.ErrorMessage(err))
	}
	return nil
}
