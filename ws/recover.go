package ws

import (
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/paths"
)

// recovery is the parsed start of a recover subscription.
type recovery struct {
	from  time.Time      // journal start (time received)
	after cache.Position // skip journal entries at or before it
	known bool           // since named a message still stored
	limit int
	since uuid.UUID // since as a message_uuid; uuid.Nil for a time
}

// parseRecovery reads since and limit, checking only what the client
// wrote (so before the subscription is authorized); resolve then looks
// the message up. since is a message_uuid or an RFC 3339 time.
func (c *conn) parseRecovery(f *inFrame) (*recovery, error) {
	r := &recovery{limit: c.h.cfg.RecoverLimit}
	if f.Limit < 0 {
		return nil, herald.Errorf(herald.EInvalid, "limit must be positive")
	}
	if f.Limit > 0 {
		r.limit = min(f.Limit, c.h.cfg.MaxRecoverLimit)
	}
	if id, err := uuid.Parse(f.Since); err == nil {
		if id.Version() != 1 {
			return nil, herald.Errorf(herald.EInvalid, "since %s is not a version 1 UUID", f.Since)
		}
		r.since = id
		return r, nil
	}
	t, err := time.Parse(time.RFC3339Nano, f.Since)
	if err != nil {
		return nil, herald.Errorf(herald.EInvalid, "since must be a message_uuid or an RFC 3339 time, not %q", herald.Clip(f.Since))
	}
	r.from = t.UTC()
	return r, nil
}

// resolve finds where a recovery by message_uuid starts: right after that
// message, or at its UUID time when it is no longer stored.
func (c *conn) resolve(r *recovery) error {
	if r.since == uuid.Nil {
		return nil
	}
	m, err := c.h.cfg.Cache.Get(c.ctx, r.since.String())
	switch {
	case err == nil:
		r.from, r.after, r.known = m.ReceivedAt, cache.Position{At: m.ReceivedAt, ID: m.ID}, true
	case herald.ErrorCode(err) == herald.ENotFound:
		r.from = cache.UUIDTime(r.since).Truncate(time.Millisecond)
		r.after = cache.Position{At: r.from, ID: r.since}
	default:
		return err
	}
	return nil
}

// sendRecovery sends the stored messages matching pat received after the
// recovery's start, oldest first, up to its limit, then the recovered
// frame.
func (c *conn) sendRecovery(s *subscription, pat paths.Pattern, r *recovery) error {
	svc := c.h.cfg.Cache
	page := svc.Config().MaxLimit
	to := time.Now().Add(time.Millisecond) // live events cover the rest
	oldest := to
	if first, _, err := svc.Journal(s.ctx, time.Unix(0, 0), to, "", 1); err != nil {
		return err
	} else if len(first) > 0 {
		oldest = first[0].ReceivedAt
	}
	count, truncated := 0, !r.known && r.from.Before(oldest)
	cursor := ""
	from := r.from
	if from.Before(time.Unix(0, 0)) || from.IsZero() {
		from = time.Unix(0, 0)
	}
	if !from.Before(to) {
		from = to
	}
scan:
	for {
		msgs, pg, err := svc.Journal(s.ctx, from, to, cursor, page)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if !r.after.IsZero() && (cache.Position{At: m.ReceivedAt, ID: m.ID}).Compare(r.after) <= 0 {
				continue
			}
			var matched []string
			for _, p := range m.Paths {
				if pat.Match(p) {
					matched = append(matched, p)
				}
			}
			if len(matched) == 0 {
				continue
			}
			if count == r.limit {
				truncated = true
				break scan
			}
			for _, p := range matched {
				if !c.sendHistoric(s, sourceRecover, p, m) {
					return nil
				}
			}
			count++
		}
		if pg.NextCursor == "" {
			break
		}
		cursor = pg.NextCursor
	}
	s.sendPhase(recoveredFrame{Type: "recovered", Subscription: s.pattern, Count: count, Truncated: truncated,
		Oldest: oldest.UTC().Format(api.TimeFormat)})
	return nil
}
