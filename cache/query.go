package cache

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/paths"
)

// PathMessage is one item of a latest query.
type PathMessage struct {
	Path    string
	Message *Message
}

// Page carries the cursor for the next page; it is empty on the last page.
type Page struct {
	NextCursor string
}

// Latest returns, for every complete path matching pattern (AMQP topic
// wildcards allowed), that path's most recent unexpired message, in path
// order.
func (s *Service) Latest(ctx context.Context, pattern, cursorText string, limit int) ([]PathMessage, Page, error) {
	pat, err := paths.ParsePattern(pattern)
	if err != nil {
		return nil, Page{}, herald.Errorf(herald.EInvalid, "pattern: %v", err)
	}
	tp, err := s.parseTreePage(cursorText, limit)
	if err != nil {
		return nil, Page{}, err
	}
	leave, err := s.authorizeQuery(ctx, pattern)
	if err != nil {
		return nil, Page{}, err
	}
	defer leave()
	hits, page, err := s.walkPage(ctx, pat, tp)
	if err != nil {
		return nil, Page{}, err
	}
	ids := make([]uuid.UUID, len(hits))
	for i, h := range hits {
		ids[i] = h.ref.ID
	}
	msgs, err := s.store.GetMessages(ctx, ids)
	if err != nil {
		return nil, Page{}, err
	}
	items := make([]PathMessage, 0, len(hits))
	for i, m := range msgs {
		if m != nil { // expired since the index was read
			items = append(items, PathMessage{Path: hits[i].path, Message: m})
		}
	}
	return items, page, nil
}

// Paths returns the complete paths (those holding an unexpired message) at
// or below prefix, in path order; an empty prefix lists every path.
func (s *Service) Paths(ctx context.Context, prefix, cursorText string, limit int) ([]string, Page, error) {
	pattern := "#"
	if prefix != "" {
		if err := paths.Validate(prefix); err != nil {
			return nil, Page{}, herald.Errorf(herald.EInvalid, "prefix: %v", err)
		}
		pattern = prefix + ".#"
	}
	pat, err := paths.ParsePattern(pattern)
	if err != nil { // a prefix at the length limit: only itself can match
		pat, err = paths.ParsePattern(prefix)
		if err != nil {
			return nil, Page{}, herald.Errorf(herald.EInvalid, "prefix: %v", err)
		}
		pattern = prefix
	}
	tp, err := s.parseTreePage(cursorText, limit)
	if err != nil {
		return nil, Page{}, err
	}
	leave, err := s.authorizeQuery(ctx, pattern)
	if err != nil {
		return nil, Page{}, err
	}
	defer leave()
	hits, page, err := s.walkPage(ctx, pat, tp)
	if err != nil {
		return nil, Page{}, err
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.path
	}
	return out, page, nil
}

// All returns the unexpired messages of one path, newest first.
func (s *Service) All(ctx context.Context, path, cursorText string, limit int) ([]*Message, Page, error) {
	if err := paths.Validate(path); err != nil {
		return nil, Page{}, herald.Errorf(herald.EInvalid, "path: %v", err)
	}
	n, err := s.limit(limit)
	if err != nil {
		return nil, Page{}, err
	}
	c, err := decodeCursor(cursorText, cursorHistory)
	if err != nil {
		return nil, Page{}, err
	}
	after, err := c.position()
	if err != nil {
		return nil, Page{}, err
	}
	leave, err := s.authorizeQuery(ctx, path)
	if err != nil {
		return nil, Page{}, err
	}
	defer leave()
	refs, err := s.store.History(ctx, path, after, n+1)
	if err != nil {
		return nil, Page{}, err
	}
	return s.resolve(ctx, refs, n, cursorHistory)
}

// Journal returns the unexpired messages received in [from, to), oldest
// first.
func (s *Service) Journal(ctx context.Context, from, to time.Time, cursorText string, limit int) ([]*Message, Page, error) {
	return s.journal(ctx, "#", from, to, cursorText, limit) // the journal spans every path
}

// JournalMatching returns the unexpired messages received in [from, to),
// oldest first, that have a path matching pattern: the journal as a
// caller who may read pattern (not every path) sees it. A page may hold
// fewer than limit messages (those of other paths are left out) and still
// have a next one.
func (s *Service) JournalMatching(ctx context.Context, pattern string, from, to time.Time, cursorText string, limit int) ([]*Message, Page, error) {
	pat, err := paths.ParsePattern(pattern)
	if err != nil {
		return nil, Page{}, err
	}
	msgs, page, err := s.journal(ctx, pattern, from, to, cursorText, limit)
	if err != nil {
		return nil, Page{}, err
	}
	out := msgs[:0]
	for _, m := range msgs {
		if slices.ContainsFunc(m.Paths, pat.Match) {
			out = append(out, m)
		}
	}
	return out, page, nil
}

// journal is a page of the journal in [from, to) for a caller who may
// read readable.
func (s *Service) journal(ctx context.Context, readable string, from, to time.Time, cursorText string, limit int) ([]*Message, Page, error) {
	if from.IsZero() || to.IsZero() {
		return nil, Page{}, herald.Errorf(herald.EInvalid, "journal needs both from and to")
	}
	if to.Before(from) {
		return nil, Page{}, herald.Errorf(herald.EInvalid, "journal's to (%s) is before its from (%s)", to.Format(time.RFC3339Nano), from.Format(time.RFC3339Nano))
	}
	leave, err := s.authorizeQuery(ctx, readable)
	if err != nil {
		return nil, Page{}, err
	}
	defer leave()
	n, err := s.limit(limit)
	if err != nil {
		return nil, Page{}, err
	}
	c, err := decodeCursor(cursorText, cursorJournal)
	if err != nil {
		return nil, Page{}, err
	}
	after, err := c.position()
	if err != nil {
		return nil, Page{}, err
	}
	refs, err := s.store.Journal(ctx, from.UTC(), to.UTC(), after, n+1)
	if err != nil {
		return nil, Page{}, err
	}
	return s.resolve(ctx, refs, n, cursorJournal)
}

// resolve loads the messages of up to n refs; refs holds n+1 when another
// page follows.
func (s *Service) resolve(ctx context.Context, refs []Ref, n int, kind string) ([]*Message, Page, error) {
	var page Page
	if len(refs) > n {
		refs = refs[:n]
		page.NextCursor = positionCursor(kind, refs[n-1].Position())
	}
	ids := make([]uuid.UUID, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	msgs, err := s.store.GetMessages(ctx, ids)
	if err != nil {
		return nil, Page{}, err
	}
	out := msgs[:0]
	for _, m := range msgs {
		if m != nil {
			out = append(out, m)
		}
	}
	return out, page, nil
}
