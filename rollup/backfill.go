package rollup

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Backfill: a rollup fed from the message cache (sources.cache_pattern)
// that gained parts (Evolve) fills them from the cache's journal, which
// still holds the messages stored before their start: each event read
// again is counted in the cells live counting skipped for it (those whose
// start is after the event's time: Batch.AddBackfill), and only in the
// cells of the parts that start at the backfill's start, so backfills of
// two additions never fill one cell twice. Its events are recorded under
// IDs of their own (BackfillID), so a backfill run again, or over
// overlapping ranges, counts each event once within the dedup window.

// BackfillResult says what one backfill read and counted.
type BackfillResult struct {
	Start      time.Time `json:"start"`      // the start of the parts it filled
	Parts      []string  `json:"parts"`      // those parts, as in Definition.Added
	Messages   int       `json:"messages"`   // journal messages under the rollup's pattern
	Counted    int       `json:"counted"`    // events counted in the parts
	Duplicates int       `json:"duplicates"` // events an earlier backfill of the same start counted
	Skipped    int       `json:"skipped"`    // events timed from the start: live counting took them
	Late       int       `json:"late"`       // events older than the dedup window, not counted
	Malformed  int       `json:"malformed"`  // messages or events that are not events of the rollup
}

// BackfillRequest is the body of POST /v1/rollups/{name}/backfill: the
// range of the cache's journal to read (RFC 3339), and the start of the
// parts to fill (the newest when absent).
type BackfillRequest struct {
	From  time.Time `json:"from"`
	To    time.Time `json:"to"`
	Start time.Time `json:"start,omitzero"`
}

// DecodeBackfill reads a backfill request body strictly.
func DecodeBackfill(body []byte) (BackfillRequest, error) {
	var r BackfillRequest
	err := decodeStrict(body, &r, "backfill")
	return r, err
}

// backfillPage is how many journal messages one read returns.
const backfillPage = 1000

// BackfillID is the ID under which a backfill filling the parts that
// start at start records event id.
func BackfillID(start time.Time, id string) string {
	return fmt.Sprintf("backfill@%d%s%s", start.Unix(), Sep, id)
}

// Backfill fills the parts of rollup name that start at start (the
// newest start when zero) from the messages the cache stored in [from,
// to). The caller must be allowed to read the rollup's cache pattern.
func (s *Service) Backfill(ctx context.Context, name string, from, to, start time.Time) (BackfillResult, error) {
	d, err := s.Get(ctx, name)
	if err != nil {
		return BackfillResult{}, err
	}
	if d.Sources.CachePattern == "" || s.cfg.CacheReader == nil {
		return BackfillResult{}, invalid("sources.cache_pattern", "a backfill reads the message cache's journal again; rollup %s is not fed from the cache", name)
	}
	if from.IsZero() || to.IsZero() || !from.Before(to) {
		return BackfillResult{}, invalid("from", "a backfill reads the messages stored from from to to, from before to")
	}
	res := BackfillResult{Start: start}
	if res.Start.IsZero() {
		for _, t := range d.Added {
			if t.After(res.Start) {
				res.Start = t
			}
		}
	}
	// Only the parts of this start: the cells of the others stay as they are.
	only := d.Clone()
	only.Added = map[string]time.Time{}
	for part, t := range d.Added {
		if t.Equal(res.Start) {
			only.Added[part] = t
			res.Parts = append(res.Parts, part)
		}
	}
	if len(res.Parts) == 0 {
		return BackfillResult{}, invalid("start", "rollup %s has no part starting at %s: a backfill fills parts the rollup gained (added)", name, res.Start.Format(time.RFC3339))
	}
	sort.Strings(res.Parts)
	if err := only.Normalize(); err != nil {
		return BackfillResult{}, err
	}
	now := s.cfg.Clock()
	var events []Event
	flush := func() error {
		accepted, dups, err := s.commitWith(ctx, only, events, now, (*Batch).AddBackfill)
		res.Counted += accepted
		res.Duplicates += dups
		events = events[:0]
		return err
	}
	for cursor := ""; ; {
		msgs, page, err := s.cfg.CacheReader.JournalMatching(ctx, d.Sources.CachePattern, from, to, cursor, backfillPage)
		if err != nil {
			return res, err
		}
		for _, m := range msgs {
			res.Messages++
			body, err := cacheEvent(m)
			if err != nil {
				res.Malformed++
				continue
			}
			evs, bad, err := only.ParseEvents(body)
			if err != nil {
				res.Malformed++
				continue
			}
			res.Malformed += len(bad)
			for _, e := range evs {
				switch {
				case !e.Time.Before(res.Start):
					res.Skipped++
				case only.CheckTime(e, now) != nil:
					res.Late++
				default:
					e.ID = BackfillID(res.Start, e.ID)
					events = append(events, e)
				}
			}
			if len(events) >= s.cfg.FlushEvents {
				if err := flush(); err != nil {
					return res, err
				}
			}
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	return res, flush()
}
