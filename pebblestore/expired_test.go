package pebblestore

import (
	"testing"
	"time"
)

// TestExpiredSinceFollowsExpiryAndTheReaper: a message received at r
// that has expired counts for every from up to r, whether it waits for
// the reaper (the expiry index) or was reaped (the reaper's mark, which
// survives a reopen); a long-lived message never counts.
func TestExpiredSinceFollowsExpiryAndTheReaper(t *testing.T) {
	dir := t.TempDir()
	c := newClock(t0)
	db := openDBIn(t, dir, c, Options{ReapInterval: -1})
	r := t0.Add(time.Second)
	put(t, db, msg(t0, t0, time.Hour, "keep.a"), msg(r, r, time.Minute, "short.b"), msg(r.Add(time.Second), r.Add(time.Second), time.Hour, "keep.c"))
	check := func(when string, from time.Time, want bool) {
		t.Helper()
		if got, err := db.ExpiredSince(ctx, from); err != nil || got != want {
			t.Errorf("%s: ExpiredSince(%s) = %v, %v; want %v", when, from.Sub(t0), got, err, want)
		}
	}
	check("before expiry", t0, false)
	c.Advance(time.Minute + time.Second)
	check("expired, not reaped", t0, true)
	check("expired, not reaped", r, true)
	check("expired, not reaped", r.Add(time.Millisecond), false)
	if n, err := db.ReapExpired(ctx); n != 1 || err != nil {
		t.Fatalf("ReapExpired = %d, %v; want 1", n, err)
	}
	check("reaped", r, true)
	check("reaped", r.Add(time.Millisecond), false)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDBIn(t, dir, c, Options{ReapInterval: -1})
	check("reopened", r, true)
	check("reopened", r.Add(time.Millisecond), false)
}
