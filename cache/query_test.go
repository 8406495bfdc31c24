package cache_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// history is a set of messages stored for the All and Journal tests, with
// times chosen by the test: message times (in the uuids) distinct except for
// a few ties, receive times two to a millisecond.
type history struct {
	svc  *cache.Service
	clk  *clock
	t0   time.Time        // the first receive time
	msgs []*cache.Message // every message stored at "h.p", in put order
}

const historySize = 25

func buildHistory(t *testing.T, cfg cache.Config) *history {
	t.Helper()
	clk := newClock(time.Now().Truncate(time.Millisecond))
	h := &history{svc: newClockedService(t, cfg, clk), clk: clk, t0: clk.Now()}
	base := time.Now().Add(-time.Hour)
	rng := rand.New(rand.NewPCG(1, 2))
	order := rng.Perm(historySize) // message times do not follow put order
	for i := range historySize {
		at := base.Add(time.Duration(order[i]) * time.Second)
		if order[i] >= 20 { // five messages share one message time
			at = base.Add(20 * time.Second)
		}
		clk.Set(h.t0.Add(time.Duration(i/2) * time.Millisecond))
		m := mustPut(t, h.svc, cache.PutInput{MessageID: v1At(at, uint16(i)).String(), Metadata: meta("h.p")})
		h.msgs = append(h.msgs, m)
		// Neighbours that All("h.p") must not list.
		mustPut(t, h.svc, cache.PutInput{Metadata: meta("h.q", "h.p.x")})
	}
	return h
}

// newestFirst is the oracle of All: message time descending, then id bytes
// descending.
func newestFirst(ms []*cache.Message) []uuid.UUID {
	s := slices.Clone(ms)
	slices.SortFunc(s, func(a, b *cache.Message) int {
		if c := b.Time().Compare(a.Time()); c != 0 {
			return c
		}
		return bytes.Compare(b.ID[:], a.ID[:])
	})
	return messageIDs(s)
}

// receivedOrder is the oracle of Journal over [from, to): receive time
// ascending, then id bytes ascending.
func receivedOrder(ms []*cache.Message, from, to time.Time) []uuid.UUID {
	var s []*cache.Message
	for _, m := range ms {
		if !m.ReceivedAt.Before(from) && m.ReceivedAt.Before(to) {
			s = append(s, m)
		}
	}
	slices.SortFunc(s, func(a, b *cache.Message) int {
		if c := a.ReceivedAt.Compare(b.ReceivedAt); c != 0 {
			return c
		}
		return bytes.Compare(a.ID[:], b.ID[:])
	})
	return messageIDs(s)
}

func messageIDs(ms []*cache.Message) []uuid.UUID {
	ids := make([]uuid.UUID, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
}

// messagePager is one paged query of messages.
type messagePager func(cursor string, limit int) ([]*cache.Message, cache.Page, error)

// pageMessages pages through q with limit, checking that only the last page
// is short and has no cursor.
func pageMessages(t *testing.T, q messagePager, limit, want int) []uuid.UUID {
	t.Helper()
	var ids []uuid.UUID
	cursor := ""
	for pages := 1; ; pages++ {
		if pages > want+2 {
			t.Fatalf("limit %d: still paging after %d pages for %d messages", limit, pages, want)
		}
		ms, page, err := q(cursor, limit)
		if err != nil {
			t.Fatalf("limit %d page %d: %v", limit, pages, err)
		}
		ids = append(ids, messageIDs(ms)...)
		if page.NextCursor == "" {
			if len(ms) == 0 && pages > 1 {
				t.Fatalf("limit %d: page %d is empty: the previous page had a next_cursor but was the last", limit, pages)
			}
			return ids
		}
		if len(ms) != limit {
			t.Fatalf("limit %d page %d: %d messages with a next_cursor; only the last page may be short", limit, pages, len(ms))
		}
		cursor = page.NextCursor
	}
}

func checkMessagePaging(t *testing.T, q messagePager, want []uuid.UUID) {
	t.Helper()
	for limit := 1; limit <= len(want)+1; limit++ {
		if got := pageMessages(t, q, limit, len(want)); !slices.Equal(got, want) {
			t.Fatalf("limit %d: got %d messages %v\nwant %d %v", limit, len(got), got, len(want), want)
		}
	}
}

func TestAllPagesNewestFirst(t *testing.T) {
	cfg := cache.DefaultConfig()
	h := buildHistory(t, cfg)
	want := newestFirst(h.msgs)
	checkMessagePaging(t, func(cursor string, limit int) ([]*cache.Message, cache.Page, error) {
		return h.svc.All(context.Background(), "h.p", cursor, limit)
	}, want)

	t.Run("other paths", func(t *testing.T) {
		for _, tc := range []struct {
			path string
			n    int
		}{{"h.q", historySize}, {"h.p.x", historySize}, {"h", 0}, {"nope", 0}} {
			ms, page, err := h.svc.All(context.Background(), tc.path, "", 0)
			if err != nil || len(ms) != tc.n || page.NextCursor != "" {
				t.Errorf("All(%q) = %d messages (next %q), %v; want %d", tc.path, len(ms), page.NextCursor, err, tc.n)
			}
		}
	})
	t.Run("invalid paths", func(t *testing.T) {
		for _, p := range []string{"", "h.*", "h.#", "h..p", ".h", "h p"} {
			_, _, err := h.svc.All(context.Background(), p, "", 0)
			if herald.ErrorCode(err) != herald.EInvalid {
				t.Errorf("All(%q): error %v, want %s", p, err, herald.EInvalid)
			}
		}
	})
}

func TestJournalPagesOldestFirst(t *testing.T) {
	h := buildHistory(t, cache.DefaultConfig())
	// Every stored message (h.msgs and their neighbours), read once.
	own, _, err := h.svc.Journal(context.Background(), h.t0, h.t0.Add(time.Hour), "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(own) != 2*historySize {
		t.Fatalf("journal holds %d messages, want %d", len(own), 2*historySize)
	}
	ms := time.Millisecond
	tests := []struct {
		name     string
		from, to time.Time
	}{
		{"everything", h.t0, h.t0.Add(time.Hour)},
		{"from is inclusive, to exclusive", h.t0.Add(3 * ms), h.t0.Add(9 * ms)},
		{"from inside a millisecond", h.t0.Add(3*ms + 1), h.t0.Add(9 * ms)},
		{"to inside a millisecond", h.t0.Add(3 * ms), h.t0.Add(9*ms + 1)},
		{"one millisecond", h.t0.Add(5 * ms), h.t0.Add(6 * ms)},
		{"less than a millisecond", h.t0.Add(5*ms + 1), h.t0.Add(5*ms + 999_999)},
		{"empty: from == to", h.t0.Add(5 * ms), h.t0.Add(5 * ms)},
		{"before everything", h.t0.Add(-time.Hour), h.t0},
		{"after everything", h.t0.Add(time.Hour), h.t0.Add(2 * time.Hour)},
		{"in another zone", h.t0.Add(2 * ms).In(time.FixedZone("", -7*3600)), h.t0.Add(7 * ms).In(time.FixedZone("", 3600))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := receivedOrder(own, tc.from, tc.to)
			checkMessagePaging(t, func(cursor string, limit int) ([]*cache.Message, cache.Page, error) {
				return h.svc.Journal(context.Background(), tc.from, tc.to, cursor, limit)
			}, want)
		})
	}
	t.Run("invalid ranges", func(t *testing.T) {
		for _, tc := range []struct {
			name     string
			from, to time.Time
		}{
			{"no from", time.Time{}, h.t0},
			{"no to", h.t0, time.Time{}},
			{"neither", time.Time{}, time.Time{}},
			{"to before from", h.t0, h.t0.Add(-1)},
		} {
			_, _, err := h.svc.Journal(context.Background(), tc.from, tc.to, "", 0)
			if herald.ErrorCode(err) != herald.EInvalid {
				t.Errorf("%s: error %v, want %s", tc.name, err, herald.EInvalid)
			}
		}
	})
}

func TestAllAndJournalSkipExpired(t *testing.T) {
	clk := newClock(time.Now().Truncate(time.Millisecond))
	svc := newClockedService(t, cache.DefaultConfig(), clk)
	short := mustPut(t, svc, cache.PutInput{Metadata: meta("ex.p"), TTL: ttl(1)})
	long := mustPut(t, svc, cache.PutInput{Metadata: meta("ex.p"), TTL: ttl(3600)})
	clk.Advance(time.Second) // exactly the short message's expiry: expired
	all, _, err := svc.All(context.Background(), "ex.p", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := messageIDs(all); !slices.Equal(got, []uuid.UUID{long.ID}) {
		t.Errorf("All after expiry = %v, want only %s (not %s)", got, long.ID, short.ID)
	}
	js, _, err := svc.Journal(context.Background(), clk.Now().Add(-time.Hour), clk.Now().Add(time.Hour), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := messageIDs(js); !slices.Equal(got, []uuid.UUID{long.ID}) {
		t.Errorf("Journal after expiry = %v, want only %s", got, long.ID)
	}
	if _, err := svc.Get(context.Background(), short.ID.String()); herald.ErrorCode(err) != herald.ENotFound {
		t.Errorf("Get of an expired message: %v, want %s", err, herald.ENotFound)
	}
}

// queries runs each paged query of the service with a cursor and a limit.
func queries(svc *cache.Service, t0 time.Time) map[string]func(cursor string, limit int) (next string, err error) {
	ctx := context.Background()
	return map[string]func(string, int) (string, error){
		"All": func(c string, n int) (string, error) {
			_, p, err := svc.All(ctx, "h.p", c, n)
			return p.NextCursor, err
		},
		"Journal": func(c string, n int) (string, error) {
			_, p, err := svc.Journal(ctx, t0, t0.Add(time.Hour), c, n)
			return p.NextCursor, err
		},
		"Latest": func(c string, n int) (string, error) {
			_, p, err := svc.Latest(ctx, "#", c, n)
			return p.NextCursor, err
		},
		"Paths": func(c string, n int) (string, error) {
			_, p, err := svc.Paths(ctx, "", c, n)
			return p.NextCursor, err
		},
	}
}

// kindOf names the cursor kind of each query: Latest and Paths are both
// walks of the path tree and share one.
var kindOf = map[string]string{"All": "history", "Journal": "journal", "Latest": "tree", "Paths": "tree"}

func TestCursorsBelongToTheirKindOfQuery(t *testing.T) {
	h := buildHistory(t, cache.DefaultConfig())
	qs := queries(h.svc, h.t0)
	cursors := make(map[string]string)
	for name, q := range qs {
		next, err := q("", 1)
		if err != nil || next == "" {
			t.Fatalf("%s limit 1: cursor %q, err %v; want a cursor", name, next, err)
		}
		cursors[name] = next
		if next, err := q(next, 1); err != nil || next == "" {
			t.Fatalf("%s second page: cursor %q, err %v; its own cursor must work", name, next, err)
		}
	}
	for from, c := range cursors {
		for to, q := range qs {
			if kindOf[from] == kindOf[to] {
				continue
			}
			t.Run(from+" cursor to "+to, func(t *testing.T) {
				_, err := q(c, 1)
				wantCode(t, err, herald.EInvalid)
			})
		}
	}
}

func TestGarbageCursorsAreRefused(t *testing.T) {
	h := buildHistory(t, cache.DefaultConfig())
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	garbage := []struct{ name, cursor string }{
		{"not base64", "!!!"},
		{"spaces", "   "},
		{"padded base64", base64.URLEncoding.EncodeToString([]byte(`{"k":"tree","p":"a"}`))},
		{"standard alphabet", base64.StdEncoding.EncodeToString([]byte{0xfb, 0xff, 0xfe})},
		{"base64 of text", enc("hello")},
		{"base64 of a JSON array", enc(`["tree"]`)},
		{"no kind", enc(`{}`)},
		{"unknown kind", enc(`{"k":"bogus"}`)},
		{"kind of wrong type", enc(`{"k":1}`)},
		{"tree cursor with an invalid path", enc(`{"k":"tree","p":"a..b"}`)},
		{"tree cursor with a pattern", enc(`{"k":"tree","p":"a.*"}`)},
		{"history cursor with a bad time", enc(`{"k":"history","t":"yesterday"}`)},
		{"history cursor with a bad id", enc(`{"k":"history","t":1,"id":"nope"}`)},
		{"journal cursor with a fractional time", enc(`{"k":"journal","t":1.5}`)},
		{"journal cursor with a huge time", enc(`{"k":"journal","t":1e300}`)},
		{"truncated", enc(`{"k":"journal"`)},
	}
	for name, q := range queries(h.svc, h.t0) {
		for _, g := range garbage {
			t.Run(name+"/"+g.name, func(t *testing.T) {
				_, err := q(g.cursor, 1)
				wantCode(t, err, herald.EInvalid)
			})
		}
	}
}

func TestPageLimits(t *testing.T) {
	cfg := cache.DefaultConfig()
	cfg.DefaultLimit, cfg.MaxLimit = 3, 10
	h := buildHistory(t, cfg)
	// More paths than the default page, for Latest and Paths.
	putAll(t, h.svc, []cache.PutInput{{Metadata: meta("h.r")}, {Metadata: meta("h.s.t")}})
	for name, q := range queries(h.svc, h.t0) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				limit int
				code  string
			}{{0, ""}, {1, ""}, {cfg.MaxLimit, ""}, {cfg.MaxLimit + 1, herald.EInvalid}, {-1, herald.EInvalid}, {math.MinInt, herald.EInvalid}, {math.MaxInt, herald.EInvalid}} {
				_, err := q("", tc.limit)
				if got := herald.ErrorCode(err); got != tc.code {
					t.Errorf("limit %d: code %q, want %q (%v)", tc.limit, got, tc.code, err)
				}
			}
		})
	}
	// limit 0 is the default page size: every query has more than 3 items.
	ctx := context.Background()
	all, page, err := h.svc.All(ctx, "h.p", "", 0)
	if err != nil || len(all) != cfg.DefaultLimit || page.NextCursor == "" {
		t.Errorf("All limit 0: %d messages (next %q), %v; want %d and a cursor", len(all), page.NextCursor, err, cfg.DefaultLimit)
	}
	js, page, err := h.svc.Journal(ctx, h.t0, h.t0.Add(time.Hour), "", 0)
	if err != nil || len(js) != cfg.DefaultLimit || page.NextCursor == "" {
		t.Errorf("Journal limit 0: %d messages (next %q), %v; want %d and a cursor", len(js), page.NextCursor, err, cfg.DefaultLimit)
	}
	items, page, err := h.svc.Latest(ctx, "#", "", 0)
	if err != nil || len(items) != cfg.DefaultLimit || page.NextCursor == "" {
		t.Errorf("Latest limit 0: %d items (next %q), %v; want %d and a cursor", len(items), page.NextCursor, err, cfg.DefaultLimit)
	}
	ps, page, err := h.svc.Paths(ctx, "", "", 0)
	if err != nil || len(ps) != cfg.DefaultLimit || page.NextCursor == "" {
		t.Errorf("Paths limit 0: %d paths (next %q), %v; want %d and a cursor", len(ps), page.NextCursor, err, cfg.DefaultLimit)
	}
}
