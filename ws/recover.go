package ws

import (
	"bytes"
	"encoding/json"
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
	limit int
	since uuid.UUID // since as a message_uuid (alone or in a position); uuid.Nil for a time
	epoch string    // since's epoch when it is a position; "" otherwise
	at    time.Time // a position's received_at: where a missed message would start
}

// position is since written as a position: the epoch, received_at and
// message_uuid of the last message a client saw (message_uuid optional).
type position struct {
	Epoch       string `json:"epoch"`
	ReceivedAt  string `json:"received_at"`
	MessageUUID string `json:"message_uuid"`
}

// parseRecovery reads since and limit, checking only what the client
// wrote (so before the subscription is authorized); resolve then looks
// the message up. since is a message_uuid, an RFC 3339 time or a position.
func (c *conn) parseRecovery(f *inFrame) (*recovery, error) {
	r := &recovery{limit: c.h.cfg.RecoverLimit}
	if f.Limit < 0 {
		return nil, herald.Errorf(herald.EInvalid, "limit must be positive")
	}
	if f.Limit > 0 {
		r.limit = min(f.Limit, c.h.cfg.MaxRecoverLimit)
	}
	if p, ok, err := parsePosition(f.Since); ok {
		if err != nil {
			return nil, err
		}
		return r, r.fromPosition(p, c.h.cfg.RecoverOverlap)
	}
	var since string
	if err := json.Unmarshal(f.Since, &since); err != nil {
		return nil, herald.Errorf(herald.EInvalid, "since must be a message_uuid, an RFC 3339 time or a position object")
	}
	if id, err := uuid.Parse(since); err == nil {
		if id.Version() != 1 {
			return nil, herald.Errorf(herald.EInvalid, "since %s is not a version 1 UUID", since)
		}
		r.since = id
		return r, nil
	}
	t, err := time.Parse(time.RFC3339Nano, since)
	if err != nil {
		return nil, herald.Errorf(herald.EInvalid, "since must be a message_uuid or an RFC 3339 time, not %q", herald.Clip(since))
	}
	r.from = t.UTC()
	return r, nil
}

// parsePosition reads since as a position object: ok is false when since
// is not an object at all.
func parsePosition(raw json.RawMessage) (p position, ok bool, err error) {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '{' {
		return p, false, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&p); err != nil {
		return p, true, herald.Errorf(herald.EInvalid, "since: a position has members epoch, received_at and message_uuid: %s", herald.Clip(err.Error()))
	}
	return p, true, nil
}

// fromPosition sets r's start from p: overlap before its received_at, so
// that messages stored on other nodes just before it but delivered live
// after it are sent too (those the client saw come again: it drops them
// by message_uuid).
func (r *recovery) fromPosition(p position, overlap time.Duration) error {
	if !cache.ValidEpoch(p.Epoch) {
		return herald.Errorf(herald.EInvalid, "since: epoch %q is not an epoch of Herald's (16 hex digits)", herald.Clip(p.Epoch))
	}
	at, err := time.Parse(time.RFC3339Nano, p.ReceivedAt)
	if err != nil {
		return herald.Errorf(herald.EInvalid, "since: received_at must be an RFC 3339 time, not %q", herald.Clip(p.ReceivedAt))
	}
	if p.MessageUUID != "" {
		id, err := uuid.Parse(p.MessageUUID)
		if err != nil || id.Version() != 1 {
			return herald.Errorf(herald.EInvalid, "since: message_uuid %q is not a version 1 UUID", herald.Clip(p.MessageUUID))
		}
		r.since = id
	}
	r.epoch, r.at, r.from = p.Epoch, at.UTC(), at.UTC().Add(-overlap)
	if overlap == 0 && r.since != uuid.Nil {
		r.after = cache.Position{At: r.at, ID: r.since} // strictly after the message
	}
	return nil
}

// resolve finds where a recovery by message_uuid alone starts: right
// after that message, or at its UUID time when it is no longer stored. A
// position needs no lookup.
func (c *conn) resolve(r *recovery) error {
	if r.since == uuid.Nil || r.epoch != "" {
		return nil
	}
	m, err := c.h.cfg.Cache.Get(c.ctx, r.since.String())
	switch {
	case err == nil:
		r.from, r.after = m.ReceivedAt, cache.Position{At: m.ReceivedAt, ID: m.ID}
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
	epoch := svc.Epoch()
	changed := r.epoch != "" && r.epoch != epoch
	start := r.from
	if r.epoch != "" {
		start = r.at // the overlap is sent again, not missing
	}
	// Something was missed when retention removed a message received
	// since the start (the store's own account of what expired), not
	// merely because the store holds nothing that old.
	count, truncated := 0, changed
	if !truncated {
		expired, err := svc.ExpiredSince(s.ctx, start)
		if err != nil {
			return err
		}
		truncated = expired
	}
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
		Oldest: oldest.UTC().Format(api.TimeFormat), Epoch: epoch, EpochChanged: changed})
	return nil
}
