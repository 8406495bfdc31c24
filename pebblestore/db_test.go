package pebblestore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

var ctx = context.Background()

func TestPutGet(t *testing.T) {
	c := newClock(t0)
	db := openDB(t, c, Options{})
	a := msg(t0.Add(-time.Second), t0, time.Hour, "feeds.news.1", "feeds.all")
	b := msg(t0, t0, time.Hour, "feeds.news.2")
	b.Body = nil
	put(t, db, a, b)
	if got := keyCounts(t, db); got != "m=2 h=3 j=2 x=2" {
		t.Errorf("keys: %s", got)
	}
	got, err := db.GetMessages(ctx, []uuid.UUID{b.ID, uuid.New(), a.ID, a.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got[1] != nil {
		t.Errorf("unknown id: got %v", got[1])
	}
	checkSameMessage(t, got[0], b)
	checkSameMessage(t, got[2], a)
	checkSameMessage(t, got[3], a)
}

func TestPutSameIDKeepsFirst(t *testing.T) {
	c := newClock(t0)
	db := openDB(t, c, Options{})
	first := msg(t0, t0, time.Hour, "a.b")
	put(t, db, first)
	before := keyCounts(t, db)

	second := *first
	second.Paths = []string{"a.c", "d"}
	second.Body = []byte("other")
	second.ReceivedAt = first.ReceivedAt.Add(time.Millisecond)
	second.ExpiresAt = first.ExpiresAt.Add(time.Hour)
	c.Advance(30 * time.Minute)
	stored, created, err := db.PutMessage(ctx, &second)
	if err != nil || created {
		t.Fatalf("PutMessage of a stored id = %v, %v; want created false", created, err)
	}
	checkSameMessage(t, stored, first)
	if after := keyCounts(t, db); after != before {
		t.Errorf("keys changed from %s to %s", before, after)
	}
	got, _ := db.GetMessages(ctx, []uuid.UUID{first.ID})
	checkSameMessage(t, got[0], first)
	if r, _ := db.Latest(ctx, "a.c"); r != nil {
		t.Errorf("Latest(a.c) = %v, want nil", r)
	}
}

// TestPutSameIDAfterExpiry checks that an expired, unreaped message is
// replaced by a new put of its id, with its old index entries gone.
func TestPutSameIDAfterExpiry(t *testing.T) {
	c := newClock(t0)
	db := openDB(t, c, Options{})
	first := msg(t0, t0, time.Minute, "old.path")
	put(t, db, first)
	c.Advance(2 * time.Minute)
	second := *first
	second.Paths = []string{"new.path"}
	second.ReceivedAt = c.Now()
	second.ExpiresAt = c.Now().Add(time.Hour)
	put(t, db, &second)
	if got := keyCounts(t, db); got != "m=1 h=1 j=1 x=1" {
		t.Errorf("keys: %s", got)
	}
	got, _ := db.GetMessages(ctx, []uuid.UUID{first.ID})
	checkSameMessage(t, got[0], &second)
	if n, err := db.ReapExpired(ctx); n != 0 || err != nil {
		t.Errorf("ReapExpired = %d, %v; want 0", n, err)
	}
}

func TestLatestIgnoresLateOlderMessage(t *testing.T) {
	db := openDB(t, newClock(t0), Options{})
	newer := msg(t0, t0, time.Hour, "p")
	older := msg(t0.Add(-time.Minute), t0, time.Hour, "p")
	put(t, db, newer, older) // the older arrives late
	r, err := db.Latest(ctx, "p")
	if err != nil || r == nil || r.ID != newer.ID {
		t.Fatalf("Latest = %v, %v; want %v", r, err, newer.ID)
	}
	if !r.At.Equal(newer.Time()) || !r.ExpiresAt.Equal(newer.ExpiresAt) {
		t.Errorf("ref = %+v", r)
	}
	for _, p := range []string{"", "q", "p.x", "pp"} {
		if r, err := db.Latest(ctx, p); r != nil || err != nil {
			t.Errorf("Latest(%q) = %v, %v; want nil", p, r, err)
		}
	}
}

func TestChildren(t *testing.T) {
	db := openDB(t, newClock(t0), Options{})
	at := t0
	m := func(path string) *cache.Message {
		at = at.Add(time.Second)
		x := msg(at, t0, time.Hour, path)
		put(t, db, x)
		return x
	}
	ab := m("r.ab")
	ab2 := m("r.ab") // newer
	m("r.ab.x.y")
	m("r.abc.d") // abc has no own messages
	dash := m("r.ab-")
	zero := m("r.0")
	m("r.Z.z")
	top := m("top")
	m("r2.q") // a sibling of r whose name extends it

	want := []string{"0", "Z", "ab", "ab-", "abc"}
	got, err := db.Children(ctx, "r", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(words(got), want) {
		t.Fatalf("Children(r) = %q, want %q", words(got), want)
	}
	latest := map[string]*cache.Message{"0": zero, "ab": ab2, "ab-": dash}
	for _, ch := range got {
		w := latest[ch.Word]
		switch {
		case w == nil && ch.Latest != nil:
			t.Errorf("child %q: Latest = %v, want nil", ch.Word, ch.Latest.ID)
		case w != nil && (ch.Latest == nil || ch.Latest.ID != w.ID || !ch.Latest.At.Equal(w.Time())):
			t.Errorf("child %q: Latest = %+v, want %v", ch.Word, ch.Latest, w.ID)
		}
	}
	_ = ab

	// Paging, one and two at a time, including after words that prefix
	// others and after words that are not children.
	for _, limit := range []int{1, 2, 3} {
		var all []string
		after := ""
		for {
			page, err := db.Children(ctx, "r", after, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > limit {
				t.Fatalf("page of %d with limit %d", len(page), limit)
			}
			if len(page) == 0 {
				break
			}
			all = append(all, words(page)...)
			after = page[len(page)-1].Word
		}
		if !slices.Equal(all, want) {
			t.Errorf("paging by %d: %q, want %q", limit, all, want)
		}
	}
	for _, c := range []struct {
		after string
		want  []string
	}{
		{"a", []string{"ab", "ab-", "abc"}},
		{"ab", []string{"ab-", "abc"}},
		{"ab-", []string{"abc"}},
		{"ab0", []string{"abc"}},
		{"abc", nil},
		{"Z", []string{"ab", "ab-", "abc"}},
		{"zzz", nil},
	} {
		got, err := db.Children(ctx, "r", c.after, 10)
		if err != nil || !slices.Equal(words(got), c.want) {
			t.Errorf("Children(r, %q) = %q, %v; want %q", c.after, words(got), err, c.want)
		}
	}

	root, err := db.Children(ctx, "", "", 10)
	if err != nil || !slices.Equal(words(root), []string{"r", "r2", "top"}) {
		t.Errorf("Children of root = %q, %v", words(root), err)
	}
	if root[2].Latest == nil || root[2].Latest.ID != top.ID {
		t.Errorf("root child top: Latest = %v", root[2].Latest)
	}
	deep, err := db.Children(ctx, "r.ab", "", 10)
	if err != nil || !slices.Equal(words(deep), []string{"x"}) || deep[0].Latest != nil {
		t.Errorf("Children(r.ab) = %+v, %v", deep, err)
	}
	for _, p := range []string{"r.0", "nothing", "r.ab.x.y"} {
		if got, err := db.Children(ctx, p, "", 10); len(got) != 0 || err != nil {
			t.Errorf("Children(%q) = %q, %v; want none", p, words(got), err)
		}
	}
	if got, _ := db.Children(ctx, "r", "", 0); len(got) != 0 {
		t.Errorf("limit 0 returned %d children", len(got))
	}
}

func TestHistoryPaging(t *testing.T) {
	db := openDB(t, newClock(t0), Options{})
	var ms []*cache.Message
	for i := range 25 {
		at := t0.Add(time.Duration(i/3) * time.Second) // ties on time
		m := msg(at, t0, time.Hour, "h.p")
		ms = append(ms, m)
	}
	// Put them in a shuffled order; other paths around must not leak in.
	for _, i := range []int{5, 3, 24, 0, 1, 2, 4, 6, 7, 8, 9, 10, 11, 12, 23, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22} {
		put(t, db, ms[i])
	}
	put(t, db, msg(t0, t0, time.Hour, "h.p.child"), msg(t0, t0, time.Hour, "h.pp"), msg(t0, t0, time.Hour, "h"))

	want := slices.Clone(ms)
	slices.SortFunc(want, func(a, b *cache.Message) int {
		return -cache.Position{At: a.Time(), ID: a.ID}.Compare(cache.Position{At: b.Time(), ID: b.ID})
	})
	for _, limit := range []int{1, 4, 25, 100} {
		var got []uuid.UUID
		var after cache.Position
		for {
			page, err := db.History(ctx, "h.p", after, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			for _, r := range page {
				if !r.At.Equal(cache.UUIDTime(r.ID)) {
					t.Errorf("ref At = %v, want the id's time", r.At)
				}
			}
			got = append(got, refIDs(page)...)
			after = page[len(page)-1].Position()
		}
		if !slices.Equal(got, msgIDs(want...)) {
			t.Errorf("paging by %d: got %d refs in another order than newest first", limit, len(got))
		}
	}
	// A position between messages: strictly older ones follow.
	mid := cache.Position{At: want[10].Time().Add(50 * time.Millisecond), ID: uuid.Nil}
	page, _ := db.History(ctx, "h.p", mid, 100)
	var wantMid []uuid.UUID
	for _, m := range want {
		if (cache.Position{At: m.Time(), ID: m.ID}).Compare(mid) < 0 {
			wantMid = append(wantMid, m.ID)
		}
	}
	if !slices.Equal(refIDs(page), wantMid) {
		t.Errorf("after a position between messages: %d refs, want %d", len(page), len(wantMid))
	}
}

func TestJournal(t *testing.T) {
	db := openDB(t, newClock(t0), Options{})
	var ms []*cache.Message
	for i := range 30 {
		received := t0.Add(time.Duration(i/2) * time.Millisecond * 10)
		m := msg(t0.Add(-time.Duration(i)*time.Second), received, time.Hour, fmt.Sprintf("j.%d", i%4))
		ms = append(ms, m)
	}
	for i := len(ms) - 1; i >= 0; i-- {
		put(t, db, ms[i])
	}
	sorted := slices.Clone(ms)
	slices.SortFunc(sorted, func(a, b *cache.Message) int {
		return cache.Position{At: a.ReceivedAt, ID: a.ID}.Compare(cache.Position{At: b.ReceivedAt, ID: b.ID})
	})
	from, to := t0.Add(20*time.Millisecond), t0.Add(100*time.Millisecond) // messages 4..19
	var want []uuid.UUID
	for _, m := range sorted {
		if !m.ReceivedAt.Before(from) && m.ReceivedAt.Before(to) {
			want = append(want, m.ID)
		}
	}
	if len(want) != 16 {
		t.Fatalf("test setup: %d messages in range", len(want))
	}
	for _, limit := range []int{1, 3, 16, 50} {
		var got []uuid.UUID
		var after cache.Position
		for {
			page, err := db.Journal(ctx, from, to, after, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			for _, r := range page {
				if r.At.Location() != time.UTC || r.At.Before(from) || !r.At.Before(to) {
					t.Errorf("ref At = %v outside the range", r.At)
				}
			}
			got = append(got, refIDs(page)...)
			after = page[len(page)-1].Position()
		}
		if !slices.Equal(got, want) {
			t.Errorf("paging by %d: %d refs, not the %d oldest first", limit, len(got), len(want))
		}
	}
	if got, _ := db.Journal(ctx, to, from, cache.Position{}, 10); len(got) != 0 {
		t.Errorf("empty range returned %d refs", len(got))
	}
	all, _ := db.Journal(ctx, time.Time{}, time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), cache.Position{}, 100)
	if len(all) != len(ms) {
		t.Errorf("whole journal: %d refs, want %d", len(all), len(ms))
	}
}

// TestExpiry checks that expired messages are invisible to every method
// before they are reaped, and that reaping removes every key.
func TestExpiry(t *testing.T) {
	c := newClock(t0)
	db := openDB(t, c, Options{})
	short := msg(t0.Add(time.Second), t0, time.Minute, "e.a", "e.b.c")      // newest at e.a
	long := msg(t0, t0, time.Hour, "e.a")                                   // older, lives on
	gone := msg(t0, t0.Add(time.Millisecond), 2*time.Minute, "e.gone.deep") // a whole subtree expires
	put(t, db, short, long, gone)

	check := func(wantLatest *cache.Message, wantChildren []string, wantAlive ...*cache.Message) {
		t.Helper()
		got, err := db.GetMessages(ctx, msgIDs(short, long, gone))
		if err != nil {
			t.Fatal(err)
		}
		alive := map[uuid.UUID]bool{}
		for _, m := range wantAlive {
			alive[m.ID] = true
		}
		for i, m := range []*cache.Message{short, long, gone} {
			if (got[i] != nil) != alive[m.ID] {
				t.Errorf("GetMessages[%d] present = %v, want %v", i, got[i] != nil, alive[m.ID])
			}
		}
		if r, _ := db.Latest(ctx, "e.a"); (r == nil) != (wantLatest == nil) || r != nil && r.ID != wantLatest.ID {
			t.Errorf("Latest(e.a) = %v, want %v", r, wantLatest)
		}
		ch, _ := db.Children(ctx, "e", "", 10)
		if !slices.Equal(words(ch), wantChildren) {
			t.Errorf("Children(e) = %q, want %q", words(ch), wantChildren)
		}
		h, _ := db.History(ctx, "e.a", cache.Position{}, 10)
		j, _ := db.Journal(ctx, t0, t0.Add(time.Second), cache.Position{}, 10)
		var hw, jw []uuid.UUID
		for _, m := range []*cache.Message{short, long} {
			if alive[m.ID] {
				hw = append(hw, m.ID)
			}
		}
		for _, m := range []*cache.Message{short, long, gone} {
			if alive[m.ID] {
				jw = append(jw, m.ID)
			}
		}
		slices.SortFunc(jw, func(a, b uuid.UUID) int { // journal order: received, then id
			ra, rb := map[uuid.UUID]*cache.Message{short.ID: short, long.ID: long, gone.ID: gone}[a], map[uuid.UUID]*cache.Message{short.ID: short, long.ID: long, gone.ID: gone}[b]
			return cache.Position{At: ra.ReceivedAt, ID: a}.Compare(cache.Position{At: rb.ReceivedAt, ID: b})
		})
		if !slices.Equal(refIDs(h), hw) {
			t.Errorf("History(e.a) = %v, want %v", refIDs(h), hw)
		}
		if !slices.Equal(refIDs(j), jw) {
			t.Errorf("Journal = %v, want %v", refIDs(j), jw)
		}
	}
	check(short, []string{"a", "b", "gone"}, short, long, gone)

	c.Advance(time.Minute - time.Millisecond) // one ms before short expires
	check(short, []string{"a", "b", "gone"}, short, long, gone)

	c.Advance(time.Millisecond) // short expires exactly now
	check(long, []string{"a", "gone"}, long, gone)

	c.Advance(time.Minute + time.Millisecond) // gone expires too
	check(long, []string{"a"}, long)
	if got := keyCounts(t, db); got != "m=3 h=4 j=3 x=3" {
		t.Errorf("before reaping: %s", got)
	}
	n, err := db.ReapExpired(ctx)
	if err != nil || n != 2 {
		t.Errorf("ReapExpired = %d, %v; want 2", n, err)
	}
	if got := keyCounts(t, db); got != "m=1 h=1 j=1 x=1" {
		t.Errorf("after reaping: %s", got)
	}
	check(long, []string{"a"}, long)

	c.Advance(time.Hour)
	check(nil, nil)
	if n, err := db.ReapExpired(ctx); err != nil || n != 1 {
		t.Errorf("ReapExpired = %d, %v; want 1", n, err)
	}
	if got := keyCounts(t, db); got != "m=0 h=0 j=0 x=0" {
		t.Errorf("after reaping all: %s", got)
	}
}

// TestReapManyChunks reaps more messages than one chunk holds, among
// messages that stay.
func TestReapManyChunks(t *testing.T) {
	c := newClock(t0)
	db := openDB(t, c, Options{})
	const n = 2*reapChunk + 123
	b := db.pdb.NewBatch() // load directly: n synced puts would be slow
	for i := range n {
		ttl := time.Minute
		if i%10 == 0 {
			ttl = time.Hour
		}
		m := msg(t0.Add(time.Duration(i)), t0.Add(time.Duration(i)*time.Millisecond), ttl, fmt.Sprintf("many.%d", i%7), "many")
		if err := writeMessage(b, m, appendRecord(nil, m)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(nil); err != nil {
		t.Fatal(err)
	}
	b.Close()
	c.Advance(time.Hour - time.Second)
	got, err := db.ReapExpired(ctx)
	if want := n - (n+9)/10; got != want || err != nil {
		t.Errorf("ReapExpired = %d, %v; want %d", got, err, want)
	}
	keep := (n + 9) / 10
	if got, want := keyCounts(t, db), fmt.Sprintf("m=%d h=%d j=%d x=%d", keep, 2*keep, keep, keep); got != want {
		t.Errorf("keys %s, want %s", got, want)
	}
}

// TestBackgroundReaper checks that the reaper runs on its own and stops
// with Close.
func TestBackgroundReaper(t *testing.T) {
	c := newClock(t0)
	db := openDB(t, c, Options{ReapInterval: 5 * time.Millisecond})
	put(t, db, msg(t0, t0, time.Second, "bg.a"), msg(t0, t0, time.Second, "bg.b"))
	c.Advance(time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for countKeys(t, db, prefixMessage) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the reaper did not run: %s", keyCounts(t, db))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := keyCounts(t, db); got != "m=0 h=0 j=0 x=0" {
		t.Errorf("after reaping: %s", got)
	}
}

// TestReaperRacesPuts re-puts ids while they are being reaped and checks
// that every id ends either fully stored or fully gone.
func TestReaperRacesPuts(t *testing.T) {
	c := newClock(t0)
	db := openDB(t, c, Options{})
	var ms []*cache.Message
	for i := range 300 {
		m := msg(t0.Add(time.Duration(i)), t0, time.Second, fmt.Sprintf("race.%d", i%5))
		ms = append(ms, m)
	}
	put(t, db, ms...)
	c.Advance(time.Second)
	done := make(chan error)
	go func() {
		_, err := db.ReapExpired(ctx)
		done <- err
	}()
	var reput []*cache.Message
	for i, m := range ms {
		if i%2 == 0 {
			r := *m
			r.Paths = []string{"race.new"}
			r.ReceivedAt = c.Now()
			r.ExpiresAt = c.Now().Add(time.Hour)
			put(t, db, &r)
			reput = append(reput, &r)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := db.ReapExpired(ctx); err != nil {
		t.Fatal(err)
	}
	k := len(reput)
	if got, want := keyCounts(t, db), fmt.Sprintf("m=%d h=%d j=%d x=%d", k, k, k, k); got != want {
		t.Errorf("keys %s, want %s", got, want)
	}
	h, _ := db.History(ctx, "race.new", cache.Position{}, 1000)
	got, _ := db.GetMessages(ctx, refIDs(h))
	if len(h) != k || slices.Contains(got, nil) {
		t.Errorf("History(race.new) has %d refs, want %d all readable", len(h), k)
	}
}

func TestReopen(t *testing.T) {
	dir := t.TempDir()
	c := newClock(t0)
	db, err := Open(dir, Options{Now: c.Now, ReapInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	a := msg(t0, t0, time.Hour, "re.a")
	b := msg(t0.Add(time.Second), t0, time.Hour, "re.a", "re.b")
	put(t, db, a, b)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDBIn(t, dir, c, Options{})
	got, err := db.GetMessages(ctx, msgIDs(a, b))
	if err != nil {
		t.Fatal(err)
	}
	checkSameMessage(t, got[0], a)
	checkSameMessage(t, got[1], b)
	if r, _ := db.Latest(ctx, "re.a"); r == nil || r.ID != b.ID {
		t.Errorf("Latest after reopen = %v", r)
	}
	if ch, _ := db.Children(ctx, "re", "", 10); !slices.Equal(words(ch), []string{"a", "b"}) {
		t.Errorf("Children after reopen = %q", words(ch))
	}
}

// dirWithFormat returns the directory of a closed store whose layout
// marker says format.
func dirWithFormat(t *testing.T, format string) string {
	t.Helper()
	dir := t.TempDir()
	db, err := Open(dir, Options{ReapInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.pdb.Set(keyFormat, []byte(format), nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return dir
}

func TestOpenRefusesOtherFormat(t *testing.T) {
	dir := dirWithFormat(t, "herald-pebblestore/999")
	if db, err := Open(dir, Options{ReapInterval: -1}); err == nil {
		db.Close()
		t.Fatal("Open of a DB in another format succeeded")
	}
}

// A DB in the previous layout opens, and its marker is upgraded so that
// the previous Herald would refuse it (it reads records of version 2 only).
func TestOpenUpgradesPreviousFormat(t *testing.T) {
	dir := dirWithFormat(t, "herald-pebblestore/2")
	db, err := Open(dir, Options{ReapInterval: -1})
	if err != nil {
		t.Fatalf("Open of a DB in the previous format: %v", err)
	}
	defer db.Close()
	v, closer, err := db.pdb.Get(keyFormat)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	if string(v) != formatVersion {
		t.Errorf("format after open = %q, want %q", v, formatVersion)
	}
}

func TestClosed(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	m := msg(t0, t0, time.Hour, "a")
	errs := map[string]error{}
	_, _, errs["PutMessage"] = db.PutMessage(ctx, m)
	_, errs["GetMessages"] = db.GetMessages(ctx, []uuid.UUID{m.ID})
	_, errs["Latest"] = db.Latest(ctx, "a")
	_, errs["Children"] = db.Children(ctx, "", "", 10)
	_, errs["History"] = db.History(ctx, "a", cache.Position{}, 10)
	_, errs["Journal"] = db.Journal(ctx, t0, t0.Add(time.Hour), cache.Position{}, 10)
	_, errs["ReapExpired"] = db.ReapExpired(ctx)
	for name, err := range errs {
		if herald.ErrorCode(err) != herald.EUnavailable || !errors.Is(err, errClosed) {
			t.Errorf("%s after Close: %v, want an unavailable error", name, err)
		}
	}
}

func TestCancelledContext(t *testing.T) {
	db := openDB(t, nil, Options{})
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	m := msg(t0, t0, time.Hour, "a")
	errs := map[string]error{}
	_, _, errs["PutMessage"] = db.PutMessage(cctx, m)
	_, errs["GetMessages"] = db.GetMessages(cctx, nil)
	_, errs["Latest"] = db.Latest(cctx, "a")
	_, errs["Children"] = db.Children(cctx, "", "", 10)
	_, errs["History"] = db.History(cctx, "a", cache.Position{}, 10)
	_, errs["Journal"] = db.Journal(cctx, t0, t0.Add(time.Hour), cache.Position{}, 10)
	_, errs["ReapExpired"] = db.ReapExpired(cctx)
	for name, err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v", name, err)
		}
	}
	if n := countKeys(t, db, prefixMessage); n != 0 {
		t.Errorf("a put with a cancelled context stored %d messages", n)
	}
}

func TestPutRejectsUnstorablePaths(t *testing.T) {
	db := openDB(t, nil, Options{})
	for _, p := range []string{"", ".a", "a.", "a..b", "a\x00b", "a\x01", "\x02"} {
		m := msg(t0, t0, time.Hour, p)
		if _, _, err := db.PutMessage(ctx, m); herald.ErrorCode(err) != herald.EInvalid {
			t.Errorf("path %q: err = %v, want invalid", p, err)
		}
	}
	m := msg(t0, t0, time.Hour)
	if _, _, err := db.PutMessage(ctx, m); herald.ErrorCode(err) != herald.EInvalid {
		t.Errorf("no paths: err = %v, want invalid", err)
	}
}

// TestConcurrentPutsOfOneID checks that of many simultaneous puts of one id
// exactly one creates the message, and all return the same stored message.
func TestConcurrentPutsOfOneID(t *testing.T) {
	db := openDB(t, newClock(t0), Options{})
	const n = 32
	id := v1(t0)
	var created atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		m := msg(t0, t0, time.Hour, fmt.Sprintf("same.p%d", i))
		m.ID = id
		wg.Go(func() {
			stored, ok, err := db.PutMessage(ctx, m)
			if err != nil || stored == nil || stored.ID != id {
				t.Errorf("PutMessage = %v, %v", stored, err)
				return
			}
			if ok {
				created.Add(1)
			}
		})
	}
	wg.Wait()
	if created.Load() != 1 {
		t.Errorf("%d puts created the message, want 1", created.Load())
	}
	if got := keyCounts(t, db); got != "m=1 h=1 j=1 x=1" {
		t.Errorf("keys: %s", got)
	}
}
