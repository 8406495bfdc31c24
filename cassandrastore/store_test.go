package cassandrastore

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/cache/cachetest"
)

// TestLatestLastWriteWins puts messages to one path in an order unrelated
// to their message times and checks that the node's latest reference, in
// Latest and in Children, is always the newest by message time.
func TestLatestLastWriteWins(t *testing.T) {
	st := sharedStore(t)
	ctx := t.Context()
	top := word()
	path := top + ".x"
	now := time.Now().UTC().Truncate(time.Millisecond)
	check := func(step string, want *cache.Message) {
		t.Helper()
		got, err := st.Latest(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil || got.ID != want.ID || !got.At.Equal(want.Time()) || !got.ExpiresAt.Equal(want.ExpiresAt) {
			t.Fatalf("%s: Latest = %+v, want ref to %s at %s", step, got, want.ID, want.Time())
		}
		kids, err := st.Children(ctx, top, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(kids) != 1 || kids[0].Latest == nil || kids[0].Latest.ID != want.ID {
			t.Fatalf("%s: Children = %+v, want x with latest %s", step, kids, want.ID)
		}
	}
	newer := newMsg(now.Add(-time.Second), now, time.Hour, path)
	mustPut(t, st, newer)
	check("after the newer message", newer)

	older := newMsg(now.Add(-time.Minute), now, 2*time.Hour, path)
	mustPut(t, st, older)
	check("after an older message arrived late", newer)

	// A message 100 ns newer: the same microsecond, so the same write
	// timestamp; the cell's value (ticks first) breaks the tie.
	tick := newMsg(newer.Time().Add(100*time.Nanosecond), now, time.Hour, path)
	if ticksMicros(idTicks(tick.ID)) != ticksMicros(idTicks(newer.ID)) {
		t.Skip("the two ids fall into different microseconds")
	}
	mustPut(t, st, tick)
	check("after a message 100 ns newer", tick)
	// The same microsecond, an older tick, put last. With equal write
	// timestamps Cassandra keeps the cell that expires later (to the
	// second), so this one expires earlier to show the value's tie-break.
	mustPut(t, st, newMsg(newer.Time(), now, 30*time.Minute, path))
	check("after a message of the same microsecond but an older tick", tick)

	// History holds all four, newest first.
	refs, err := st.History(ctx, path, cache.Position{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 4 || refs[0].ID != tick.ID || refs[3].ID != older.ID {
		t.Fatalf("History = %v", refs)
	}
}

// TestHistoryAcrossBuckets stores a path's messages over several days (one
// history bucket each by default), with days left empty between them, and
// pages through the history with several limits and starting points.
func TestHistoryAcrossBuckets(t *testing.T) {
	st := sharedStore(t)
	ctx := t.Context()
	path := word() + ".h"
	now := time.Now().UTC().Truncate(time.Millisecond)
	var msgs []*cache.Message
	for _, day := range []int{0, 1, 3, 4, 8} { // days 2, 5, 6, 7 empty
		for range 3 {
			at := now.Add(-time.Duration(day)*24*time.Hour - time.Duration(rand.IntN(3600_000))*time.Millisecond)
			msgs = append(msgs, newMsg(at, now, time.Hour, path))
		}
	}
	tie := msgs[4].Time() // two more messages sharing one message time
	msgs = append(msgs, newMsg(tie, now, time.Hour, path), newMsg(tie, now, time.Hour, path))
	for _, i := range rand.Perm(len(msgs)) {
		mustPut(t, st, msgs[i])
	}
	want := slices.Clone(msgs)
	slices.SortFunc(want, func(a, b *cache.Message) int {
		return -cache.Position{At: a.Time(), ID: a.ID}.Compare(cache.Position{At: b.Time(), ID: b.ID})
	})

	// The bucket index lists exactly the buckets of the messages.
	c := st.conn.Load()
	var buckets []int64
	it := c.s.Query(st.q.selectHistoryBuckets, path, int64(1<<62)).Iter()
	for b := int64(0); it.Scan(&b); {
		buckets = append(buckets, b)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	var wantBuckets []int64
	for _, m := range want {
		b := bucketOf(m.Time().UnixMilli(), c.l.historyBucketMs)
		if !slices.Contains(wantBuckets, b) {
			wantBuckets = append(wantBuckets, b)
		}
	}
	if !slices.Equal(buckets, wantBuckets) {
		t.Fatalf("history_buckets of the path = %v, want %v", buckets, wantBuckets)
	}

	for _, limit := range []int{1, 2, 4, 7, 100} {
		var got []uuid.UUID
		var after cache.Position
		for page := 0; ; page++ {
			if page > len(msgs)+1 {
				t.Fatalf("limit %d: no end after %d pages", limit, page)
			}
			refs, err := st.History(ctx, path, after, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(refs) > limit {
				t.Fatalf("limit %d: page of %d refs", limit, len(refs))
			}
			for _, r := range refs {
				got = append(got, r.ID)
			}
			if len(refs) < limit {
				break
			}
			after = refs[len(refs)-1].Position()
		}
		if !slices.Equal(got, cachetest.IDs(want)) {
			t.Errorf("limit %d: pages hold\n\t%v\nwant\n\t%v", limit, got, cachetest.IDs(want))
		}
	}
	// Starting inside an empty day (between buckets) resumes at the next
	// older bucket.
	gap := cache.Position{At: now.Add(-6 * 24 * time.Hour)}
	refs, err := st.History(ctx, path, gap, 100)
	if err != nil {
		t.Fatal(err)
	}
	var older []uuid.UUID
	for _, m := range want {
		if m.Time().Before(gap.At) {
			older = append(older, m.ID)
		}
	}
	if got := cachetest.RefIDs(refs); !slices.Equal(got, older) {
		t.Errorf("History after a time in an empty day = %v, want %v", got, older)
	}
}

// TestJournalAcrossBucketsAndShards stores messages received over an hour
// (six 10-minute buckets, eight shards each) at a quiet time in the past
// and reads the journal with several limits, windows and positions.
func TestJournalAcrossBucketsAndShards(t *testing.T) {
	st := sharedStore(t)
	ctx := t.Context()
	now := time.Now().UTC().Truncate(time.Millisecond)
	base := now.Add(-48*time.Hour - time.Duration(rand.IntN(24*3600))*time.Second)
	path := word()
	var msgs []*cache.Message
	shards := map[int]bool{}
	for i := range 60 {
		recv := base.Add(time.Duration(i) * time.Minute)
		if i%7 == 6 { // some share a millisecond with the one before
			recv = base.Add(time.Duration(i-1) * time.Minute)
		}
		m := newMsg(now.Add(-time.Duration(i)*time.Second), recv, time.Hour, path)
		m.ExpiresAt = now.Add(time.Hour) // live for an hour whatever the received time
		msgs = append(msgs, m)
		shards[shardOf(m.ID, st.conn.Load().l.journalShards)] = true
	}
	if len(shards) < 4 {
		t.Fatalf("the messages fall into %d shards only", len(shards))
	}
	for _, i := range rand.Perm(len(msgs)) {
		mustPut(t, st, msgs[i])
	}
	oldest := func(ms []*cache.Message) []uuid.UUID {
		s := slices.Clone(ms)
		slices.SortFunc(s, func(a, b *cache.Message) int {
			return cache.Position{At: a.ReceivedAt, ID: a.ID}.Compare(cache.Position{At: b.ReceivedAt, ID: b.ID})
		})
		return cachetest.IDs(s)
	}
	from, to := base, base.Add(time.Hour)
	want := oldest(msgs)
	for _, limit := range []int{1, 3, 16, 1000} {
		got := pageJournal(t, st, from, to, cache.Position{}, limit)
		if !slices.Equal(got, want) {
			t.Errorf("limit %d: pages hold %d refs\n\t%v\nwant %d\n\t%v", limit, len(got), got, len(want), want)
		}
	}
	// A window cutting buckets in the middle, resuming after a position.
	from, to = base.Add(15*time.Minute), base.Add(42*time.Minute+time.Millisecond)
	var in []*cache.Message
	for _, m := range msgs {
		if !m.ReceivedAt.Before(from) && m.ReceivedAt.Before(to) {
			in = append(in, m)
		}
	}
	wantIn := oldest(in)
	if got := pageJournal(t, st, from, to, cache.Position{}, 5); !slices.Equal(got, wantIn) {
		t.Errorf("window [15m, 42m]: %v, want %v", got, wantIn)
	}
	var afterPos cache.Position
	for _, m := range in {
		if m.ID == wantIn[3] {
			afterPos = cache.Position{At: m.ReceivedAt, ID: m.ID}
		}
	}
	if got := pageJournal(t, st, from, to, afterPos, 4); !slices.Equal(got, wantIn[4:]) {
		t.Errorf("window [15m, 42m] after its 4th: %v, want %v", got, wantIn[4:])
	}
	// A huge window is bounded by the possible received times, not walked
	// bucket by bucket.
	start := time.Now()
	refs, err := st.Journal(ctx, time.Unix(0, 0), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), cache.Position{}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 5 {
		t.Errorf("journal over all time: %d refs, want 5", len(refs))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("journal over all time took %v", d)
	}
}

// pageJournal pages through the journal of [from, to) from after, limit
// at a time, and returns the ids of every reference in order.
func pageJournal(t *testing.T, st *Store, from, to time.Time, after cache.Position, limit int) []uuid.UUID {
	t.Helper()
	var got []uuid.UUID
	for page := 0; ; page++ {
		if page > 1000 {
			t.Fatal("no end of the journal after 1000 pages")
		}
		refs, err := st.Journal(t.Context(), from, to, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(refs) > limit {
			t.Fatalf("limit %d: page of %d refs", limit, len(refs))
		}
		for _, r := range refs {
			if r.At.Before(from) || !r.At.Before(to) {
				t.Fatalf("ref %s received at %s, outside [%s, %s)", r.ID, r.At, from, to)
			}
			got = append(got, r.ID)
		}
		if len(refs) < limit {
			return got
		}
		after = refs[len(refs)-1].Position()
	}
}

// TestUnreachableFailsFast opens a store on a port where nothing listens:
// every method must fail at once with an Unavailable error, not hang.
func TestUnreachableFailsFast(t *testing.T) {
	st, err := Open(t.Context(), Options{Hosts: []string{"127.0.0.1:1"}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := newMsg(time.Now(), time.Now(), time.Hour, "a.b")
	for round := range 2 {
		calls := map[string]func() error{
			"PutMessage":  func() error { _, _, err := st.PutMessage(t.Context(), m); return err },
			"GetMessages": func() error { _, err := st.GetMessages(t.Context(), []uuid.UUID{m.ID}); return err },
			"Latest":      func() error { _, err := st.Latest(t.Context(), "a.b"); return err },
			"Children":    func() error { _, err := st.Children(t.Context(), "a", "", 10); return err },
			"History":     func() error { _, err := st.History(t.Context(), "a.b", cache.Position{}, 10); return err },
			"Journal": func() error {
				_, err := st.Journal(t.Context(), time.Now().Add(-time.Hour), time.Now(), cache.Position{}, 10)
				return err
			},
		}
		for name, call := range calls {
			start := time.Now()
			err := call()
			if d := time.Since(start); d > 100*time.Millisecond {
				t.Errorf("round %d: %s took %v", round, name, d)
			}
			if code := herald.ErrorCode(err); code != herald.EUnavailable {
				t.Errorf("round %d: %s: err = %v, want code %s", round, name, err, herald.EUnavailable)
			}
		}
		time.Sleep(600 * time.Millisecond) // a retry or two of the connection loop
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if err := st.Ready(ctx); herald.ErrorCode(err) != herald.EUnavailable {
		t.Errorf("Ready = %v, want an Unavailable error", err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, _, err := st.PutMessage(t.Context(), m); herald.ErrorCode(err) != herald.EUnavailable {
		t.Errorf("PutMessage after Close: %v", err)
	}
}

// TestOpenIsIdempotent opens two stores on one fresh keyspace, the second
// with other layout options: it finds the schema in place and adopts the
// stored layout, and each store reads what the other wrote.
func TestOpenIsIdempotent(t *testing.T) {
	addr := cassandraAddr(t)
	ks := freshKeyspace(t, addr)
	a := openTest(t, addr, Options{Keyspace: ks, HistoryBucket: time.Hour, JournalShards: 4})
	b := openTest(t, addr, Options{Keyspace: ks, HistoryBucket: 2 * time.Hour, JournalShards: 16})
	if la, lb := a.conn.Load().l, b.conn.Load().l; la != lb || la.journalShards != 4 || la.historyBucketMs != 3600_000 {
		t.Fatalf("layouts: first %+v, second %+v", la, lb)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	m := newMsg(now.Add(-time.Second), now, time.Hour, "idem.a")
	mustPut(t, a, m)
	if _, created, err := b.PutMessage(t.Context(), m); err != nil || created {
		t.Fatalf("second put through the other store: created %v, err %v", created, err)
	}
	for _, st := range []*Store{a, b} {
		got, err := st.GetMessages(t.Context(), []uuid.UUID{m.ID})
		if err != nil || got[0] == nil || !bytes.Equal(got[0].Body, m.Body) {
			t.Fatalf("GetMessages = %v, %v", got, err)
		}
		refs, err := st.Journal(t.Context(), now, now.Add(time.Millisecond), cache.Position{}, 10)
		if err != nil || len(refs) != 1 {
			t.Fatalf("Journal = %v, %v", refs, err)
		}
	}
}

// TestLivenessKeepsLongestExpiry checks the expiry-timestamp trick: a
// liveness row written with a shorter expiry after one with a longer
// expiry (by another process, whose cache of written rows is empty) keeps
// the longer one, and the other way round the longer one replaces it.
func TestLivenessKeepsLongestExpiry(t *testing.T) {
	a := sharedStore(t)
	b := openTest(t, shared.addr, Options{Keyspace: shared.ks})
	top := word()
	now := time.Now().UTC().Truncate(time.Millisecond)
	long := newMsg(now, now, 2*time.Hour, top+".long")
	short := newMsg(now, now, time.Minute, top+".short")
	longer := newMsg(now, now, 3*time.Hour, top+".longer")
	liveUntil := func() (until, ts int64) {
		t.Helper()
		c := a.conn.Load()
		q := "SELECT live_until, writetime(live_until) FROM " + shared.ks + ".nodes WHERE parent = ? AND word = ?"
		if err := c.s.Query(q, rootKey, top).Scan(&until, &ts); err != nil {
			t.Fatal(err)
		}
		return until, ts
	}
	mustPut(t, a, long)
	until, ts := liveUntil()
	if until < long.ExpiresAt.UnixMilli() || ts != until*1000 {
		t.Fatalf("after the 2 h message: live_until %d (timestamp %d), want ≥ %d at timestamp live_until×1000", until, ts, long.ExpiresAt.UnixMilli())
	}
	mustPut(t, b, short)
	if u, _ := liveUntil(); u != until {
		t.Fatalf("after a 1 min message: live_until %d, want %d kept", u, until)
	}
	mustPut(t, b, longer)
	if u, _ := liveUntil(); u < longer.ExpiresAt.UnixMilli() {
		t.Fatalf("after a 3 h message: live_until %d, want ≥ %d", u, longer.ExpiresAt.UnixMilli())
	}
}
