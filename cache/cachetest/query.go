package cachetest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/heraldmq/herald/cache"
)

// maxPages bounds the pages one listing may take, so that an engine that
// ignores the after argument fails instead of looping for ever.
const maxPages = 5000

// pageThrough collects the results of fetch, page after page, until a page
// comes back empty. fetch gets the last result so far, or nil for the first
// page. Since the cache service stops paging at the first page shorter than
// its limit, a short page must be the last one that holds any result mine
// reports (on a shared store, results of others may appear meanwhile).
func pageThrough[T any](e *env, what string, limit int, fetch func(last *T) []T, mine func(T) bool) []T {
	e.t.Helper()
	var all []T
	shortPage := -1
	failed := e.t.Failed()
	for n := 0; ; n++ {
		if !failed && e.t.Failed() {
			e.t.Fatalf("%s: stopped after page %d, which was wrong", what, n-1)
		}
		if n == maxPages {
			e.t.Fatalf("%s: still returning results after %d pages of at most %d; is the after argument ignored?", what, n, limit)
		}
		var last *T
		if len(all) > 0 {
			last = &all[len(all)-1]
		}
		page := fetch(last)
		if len(page) == 0 {
			return all
		}
		if shortPage >= 0 && slices.ContainsFunc(page, mine) {
			e.t.Errorf("%s: page %d held fewer results than the limit %d, yet page %d still held more of this subtest's results; a short page must be the last (the cache service stops paging at one)", what, shortPage, limit, n)
			shortPage = -2 // report once
		}
		if len(page) < limit && shortPage == -1 {
			shortPage = n
		}
		all = append(all, page...)
	}
}

func anyResult[T any](T) bool { return true }

// latest calls Latest.
func (e *env) latest(path string) *cache.Ref {
	e.t.Helper()
	r, err := e.store.Latest(e.ctx, path)
	if err != nil {
		e.t.Fatalf("Latest(%q): %v", path, err)
	}
	return r
}

// checkLatest checks that Latest(path) refers to want, or is nil when want
// is nil.
func (e *env) checkLatest(path string, want *cache.Message) {
	e.t.Helper()
	e.checkRef(fmt.Sprintf("Latest(%q)", path), e.latest(path), want, messageTime)
}

// children calls Children and checks the properties every page has: at
// most limit children, in strictly increasing byte order, all after after.
func (e *env) children(parent, after string, limit int) []cache.Child {
	e.t.Helper()
	what := fmt.Sprintf("Children(%q, %q, %d)", parent, after, limit)
	got, err := e.store.Children(e.ctx, parent, after, limit)
	if err != nil {
		e.t.Fatalf("%s: %v", what, err)
	}
	if len(got) > limit {
		e.t.Errorf("%s returned %d children, more than the limit", what, len(got))
	}
	for i, c := range got {
		switch {
		case c.Word == "" || strings.Contains(c.Word, "."):
			e.t.Errorf("%s[%d]: word %q is not a single word", what, i, c.Word)
		case after != "" && c.Word <= after:
			e.t.Errorf("%s[%d]: word %q is not strictly after %q", what, i, c.Word, after)
		case i > 0 && c.Word <= got[i-1].Word:
			e.t.Errorf("%s[%d]: word %q does not sort strictly after the previous word %q", what, i, c.Word, got[i-1].Word)
		default:
			continue
		}
		break // one complaint per page is enough
	}
	return got
}

// allChildren pages through the children of parent, limit at a time.
func (e *env) allChildren(parent string, limit int) []cache.Child {
	e.t.Helper()
	return pageThrough(e, fmt.Sprintf("paging Children(%q) by %d", parent, limit), limit,
		func(last *cache.Child) []cache.Child {
			after := ""
			if last != nil {
				after = last.Word
			}
			return e.children(parent, after, limit)
		}, anyResult[cache.Child])
}

// childWant is an expected child: its word and the message its Latest
// refers to (nil for none).
type childWant struct {
	word   string
	latest *cache.Message
}

func (e *env) checkChildren(what string, got []cache.Child, want []childWant) {
	e.t.Helper()
	var gw, ww []string
	for _, c := range got {
		gw = append(gw, c.Word)
	}
	for _, c := range want {
		ww = append(ww, c.word)
	}
	if !slices.Equal(gw, ww) {
		e.t.Errorf("%s: words\n\tgot  %q\n\twant %q", what, gw, ww)
		return
	}
	for i := range got {
		e.checkRef(fmt.Sprintf("%s: Latest of child %q", what, got[i].Word), got[i].Latest, want[i].latest, messageTime)
	}
}

// history calls History and checks the properties every page has: at most
// limit refs, newest first, all strictly after the position after.
func (e *env) history(path string, after cache.Position, limit int) []cache.Ref {
	e.t.Helper()
	what := fmt.Sprintf("History(%q, %s, %d)", path, e.fmtPos(after), limit)
	got, err := e.store.History(e.ctx, path, after, limit)
	if err != nil {
		e.t.Fatalf("%s: %v", what, err)
	}
	if len(got) > limit {
		e.t.Errorf("%s returned %d refs, more than the limit", what, len(got))
	}
	for i, r := range got {
		switch {
		case !after.IsZero() && r.Position().Compare(after) >= 0:
			e.t.Errorf("%s[%d] at %s is not strictly after the position in newest-first order", what, i, e.fmtPos(r.Position()))
		case i > 0 && r.Position().Compare(got[i-1].Position()) >= 0:
			e.t.Errorf("%s[%d] at %s is not older than the ref before it at %s", what, i, e.fmtPos(r.Position()), e.fmtPos(got[i-1].Position()))
		default:
			continue
		}
		break // one complaint per page is enough
	}
	return got
}

// allHistory pages through the history of path, limit at a time.
func (e *env) allHistory(path string, limit int) []cache.Ref {
	e.t.Helper()
	return pageThrough(e, fmt.Sprintf("paging History(%q) by %d", path, limit), limit,
		func(last *cache.Ref) []cache.Ref {
			var after cache.Position
			if last != nil {
				after = last.Position()
			}
			return e.history(path, after, limit)
		}, anyResult[cache.Ref])
}

// journal calls Journal and checks the properties every page has: at most
// limit refs, oldest first, all received in [from, to) and strictly after
// the position after.
func (e *env) journal(from, to time.Time, after cache.Position, limit int) []cache.Ref {
	e.t.Helper()
	what := fmt.Sprintf("Journal(%s, %s, %s, %d)", fmtTime(from), fmtTime(to), e.fmtPos(after), limit)
	got, err := e.store.Journal(e.ctx, from, to, after, limit)
	if err != nil {
		e.t.Fatalf("%s: %v", what, err)
	}
	if len(got) > limit {
		e.t.Errorf("%s returned %d refs, more than the limit", what, len(got))
	}
	for i, r := range got {
		switch {
		case r.At.Before(from) || !r.At.Before(to):
			e.t.Errorf("%s[%d] (%s) was received at %s, outside [from, to)", what, i, e.label(r.ID), fmtTime(r.At))
		case !after.IsZero() && r.Position().Compare(after) <= 0:
			e.t.Errorf("%s[%d] at %s is not strictly after the position in oldest-first order", what, i, e.fmtPos(r.Position()))
		case i > 0 && r.Position().Compare(got[i-1].Position()) <= 0:
			e.t.Errorf("%s[%d] at %s is not newer than the ref before it at %s", what, i, e.fmtPos(r.Position()), e.fmtPos(got[i-1].Position()))
		default:
			continue
		}
		break // one complaint per page is enough
	}
	return got
}

// allJournal pages through the journal of [from, to), limit at a time,
// starting after the position after, and returns the refs to the messages
// of mine. On a shared store the journal also holds other subtests'
// messages; they are checked for order and dropped.
func (e *env) allJournal(from, to time.Time, after cache.Position, limit int, mine []*cache.Message) []cache.Ref {
	e.t.Helper()
	set := idSet(mine)
	isMine := func(r cache.Ref) bool { return set[r.ID] }
	all := pageThrough(e, fmt.Sprintf("paging Journal(%s, %s) after %s by %d", fmtTime(from), fmtTime(to), e.fmtPos(after), limit), limit,
		func(last *cache.Ref) []cache.Ref {
			if last != nil {
				return e.journal(from, to, last.Position(), limit)
			}
			return e.journal(from, to, after, limit)
		}, isMine)
	return own(all, mine)
}
