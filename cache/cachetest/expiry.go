package cachetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// The expiry subtests store short-lived messages that expire this long
// after each check starts storing them. Some engines keep TTLs in whole seconds, so it
// is more than one second; and every BeforeExpiry check must finish before
// then, also on a remote engine that has just started (a cold Cassandra
// answers its first queries slowly, and CI shares two cores among
// Cassandra, Redis, RabbitMQ and the tests), hence several seconds.
const shortTTL = 5 * time.Second

// expiryGrace is how long after a message's ExpiresAt the suite waits
// before it requires the message to be gone.
const expiryGrace = 250 * time.Millisecond

// expiryTest is one expiry check: before stores messages, some expiring at
// exp, and checks them; after checks what is left once exp has passed.
type expiryTest struct {
	name   string
	before func(e *env, exp time.Time)
	after  func(e *env, exp time.Time)
}

// testExpiry runs the expiry checks in two rounds, so that the suite waits
// for expiry only once: Expiry/BeforeExpiry/<name> stores each check's
// messages, then, once they have expired, Expiry/AfterExpiry/<name> asserts
// what is left. (Parallel subtests waiting each on their own would hold
// the few slots of go test -parallel while they sleep.) The checks share
// one store, each below its own top word.
func (s *suite) testExpiry(t *testing.T) {
	e := s.start(t)
	envs := make([]*env, len(expiryTests))
	exps := make([]time.Time, len(expiryTests))
	stored := make([]bool, len(expiryTests))
	t.Run("BeforeExpiry", func(t *testing.T) {
		for i, tc := range expiryTests {
			t.Run(tc.name, func(t *testing.T) {
				envs[i] = e.sub(t)
				envs[i].top = uniqueWord()
				envs[i].names = &names{m: make(map[uuid.UUID]string)}
				// Each check gets the whole shortTTL from its own start, so
				// a slow engine delays the wait, not the checks' validity.
				exps[i] = time.Now().UTC().Truncate(time.Millisecond).Add(shortTTL)
				tc.before(envs[i], exps[i])
				if time.Now().After(exps[i]) {
					t.Fatalf("storing and checking took longer than the %s the messages live; the engine is too slow for this check", shortTTL)
				}
				stored[i] = !t.Failed()
			})
		}
	})
	waitUntil(slices.MaxFunc(exps, time.Time.Compare).Add(expiryGrace))
	t.Run("AfterExpiry", func(t *testing.T) {
		for i, tc := range expiryTests {
			t.Run(tc.name, func(t *testing.T) {
				if !stored[i] {
					t.Skip("BeforeExpiry did not run or failed")
				}
				tc.after(envs[i].sub(t), exps[i])
			})
		}
	})
}

// expire makes m expire at exp.
func expire(m *cache.Message, exp time.Time) *cache.Message {
	m.ExpiresAt = exp
	return m
}

var expiryTests = []expiryTest{
	{
		// ExpiredSince: the store knows a message received since a time
		// has expired (it may also say so of a message received up to a
		// second before it); no message received after now has.
		name: "ExpiredSinceSeesTheExpired",
		before: func(e *env, exp time.Time) {
			short := expire(e.msg("short", e.now.Add(-time.Second), e.path("a")), exp)
			e.putAll(short)
			e.keep("short", short)
			if got, err := e.store.ExpiredSince(e.ctx, time.Now().Add(time.Minute)); err != nil || got {
				e.t.Errorf("ExpiredSince(a minute from now) = %v, %v; want false", got, err)
			}
		},
		after: func(e *env, exp time.Time) {
			short := e.kept("short")[0]
			if got, err := e.store.ExpiredSince(e.ctx, short.ReceivedAt); err != nil || !got {
				e.t.Errorf("ExpiredSince(the expired message's time received) = %v, %v; want true", got, err)
			}
			if got, err := e.store.ExpiredSince(e.ctx, time.Now().Add(time.Minute)); err != nil || got {
				e.t.Errorf("ExpiredSince(a minute from now) = %v, %v; want false", got, err)
			}
		},
	},
	{
		name: "GetMessagesOmitsExpired",
		before: func(e *env, exp time.Time) {
			short := expire(e.msg("short", e.now.Add(-time.Second), e.path("a")), exp)
			long := e.msg("long", e.now.Add(-2*time.Second), e.path("a"))
			e.putAll(short, long)
			e.checkGet([]uuid.UUID{short.ID, long.ID}, []*cache.Message{short, long})
			e.keep("short", short)
			e.keep("long", long)
		},
		after: func(e *env, exp time.Time) {
			short, long := e.kept("short")[0], e.kept("long")[0]
			e.checkGet([]uuid.UUID{short.ID, long.ID, short.ID}, []*cache.Message{nil, long, nil})
		},
	},
	{
		name: "LatestFallsBackToOlderUnexpired",
		before: func(e *env, exp time.Time) {
			older := e.msg("older, long-lived", e.now.Add(-time.Minute), e.path("a"))
			newer := expire(e.msg("newer, short-lived", e.now.Add(-time.Second), e.path("a")), exp)
			e.putAll(older, newer)
			e.checkLatest(e.path("a"), newer)
			e.keep("older", older)
		},
		after: func(e *env, exp time.Time) {
			e.checkLatest(e.path("a"), e.kept("older")[0])
		},
	},
	{
		name: "LatestIsNilWhenAllExpired",
		before: func(e *env, exp time.Time) {
			a := expire(e.msg("a1", e.now.Add(-time.Second), e.path("a")), exp)
			b := expire(e.msg("a2", e.now.Add(-2*time.Second), e.path("a")), exp)
			e.putAll(a, b)
			e.checkLatest(e.path("a"), a)
		},
		after: func(e *env, exp time.Time) {
			e.checkLatest(e.path("a"), nil)
		},
	},
	{
		name: "ChildrenLatestSkipsExpired",
		before: func(e *env, exp time.Time) {
			at := func(i int) time.Time { return e.now.Add(-time.Duration(i) * time.Second) }
			v := e.msg("v, long-lived", at(1), e.path("c", "v"))
			xOld := e.msg("x, older, long-lived", at(60), e.path("c", "x"))
			xNew := expire(e.msg("x, newer, short-lived", at(2), e.path("c", "x")), exp)
			y := expire(e.msg("y, short-lived", at(3), e.path("c", "y")), exp)
			zw := expire(e.msg("z.w, short-lived", at(4), e.path("c", "z", "w")), exp)
			e.putAll(v, xOld, xNew, y, zw)
			e.checkChildren("Children before expiry", e.allChildren(e.path("c"), 10),
				[]childWant{{"v", v}, {"x", xNew}, {"y", y}, {"z", nil}})
			e.keep("v", v)
			e.keep("x", xOld)
		},
		after: func(e *env, exp time.Time) {
			// A child whose messages all expired may still be listed for a
			// while, but with a nil Latest.
			e.checkChildrenAfterExpiry(e.path("c"), []childWant{{"v", e.kept("v")[0]}, {"x", e.kept("x")[0]}}, "y", "z")
			e.checkChildrenAfterExpiry(e.path("c", "z"), nil, "w")
		},
	},
	{
		name: "HistoryOmitsExpired",
		before: func(e *env, exp time.Time) {
			var all, long []*cache.Message
			for i := range 8 {
				m := e.msg(fmt.Sprintf("m%d", i), e.now.Add(-time.Duration(i+1)*time.Second), e.path("h"))
				if i%2 == 0 {
					expire(m, exp)
				} else {
					long = append(long, m)
				}
				all = append(all, m)
			}
			e.putAll(all...)
			e.checkRefs("History before expiry", e.allHistory(e.path("h"), 100), byPosition(all, messageTime, true), messageTime)
			e.keep("long", long...)
		},
		after: func(e *env, exp time.Time) {
			want := byPosition(e.kept("long"), messageTime, true)
			for _, limit := range []int{1, 2, 100} {
				e.checkRefs(fmt.Sprintf("History after expiry, by %d", limit), e.allHistory(e.path("h"), limit), want, messageTime)
			}
		},
	},
	{
		name: "JournalOmitsExpired",
		before: func(e *env, exp time.Time) {
			var all, long []*cache.Message
			base := quietPast(e.now)
			for i := range 8 {
				m := e.msg(fmt.Sprintf("m%d", i), e.now.Add(-time.Duration(i+1)*time.Second), e.path("j"))
				m.ReceivedAt = base.Add(time.Duration(i) * time.Millisecond)
				m.ExpiresAt = m.ReceivedAt.Add(time.Hour)
				if i%2 == 1 {
					expire(m, exp)
				} else {
					long = append(long, m)
				}
				all = append(all, m)
			}
			e.putAll(all...)
			from, to := base, base.Add(10*time.Millisecond)
			e.checkRefs("Journal before expiry", e.allJournal(from, to, cache.Position{}, 100, all), byPosition(all, receivedTime, false), receivedTime)
			e.keep("all", all...)
			e.keep("long", long...)
		},
		after: func(e *env, exp time.Time) {
			from := byPosition(e.kept("all"), receivedTime, false)[0].ReceivedAt
			to := from.Add(10 * time.Millisecond)
			want := byPosition(e.kept("long"), receivedTime, false)
			for _, limit := range []int{1, 2, 100} {
				e.checkRefs(fmt.Sprintf("Journal after expiry, by %d", limit), e.allJournal(from, to, cache.Position{}, limit, e.kept("all")), want, receivedTime)
			}
		},
	},
	{
		name: "ExpiredIDCanBePutAgain",
		before: func(e *env, exp time.Time) {
			m := expire(e.msg("first put", e.now.Add(-time.Second), e.path("a")), exp)
			e.put(m)
			// Before it expires, the id is taken.
			dup := *m
			dup.Body = []byte("refused")
			dup.ExpiresAt = m.ReceivedAt.Add(time.Hour)
			stored, created, err := e.store.PutMessage(e.ctx, &dup)
			switch {
			case err != nil:
				e.t.Fatalf("PutMessage of an unexpired short-lived message's id: %v", err)
			case created:
				e.t.Errorf("PutMessage of an unexpired short-lived message's id: created = true, want false")
			}
			if d := messageDiff(stored, m); d != "" {
				e.t.Errorf("PutMessage of an unexpired short-lived message's id returned other than the stored message:\n%s", d)
			}
			e.keep("first", m)
		},
		after: func(e *env, exp time.Time) {
			first := e.kept("first")[0]
			e.checkGet([]uuid.UUID{first.ID}, []*cache.Message{nil})
			again := e.msg("second put", e.now, e.path("a"), e.path("b"))
			again.ID = first.ID
			again.ReceivedAt = nowMilli()
			again.ExpiresAt = again.ReceivedAt.Add(time.Hour)
			again.Body = []byte("second put")
			stored, created, err := e.store.PutMessage(e.ctx, again)
			if err != nil {
				e.t.Fatalf("PutMessage of an expired message's id: %v", err)
			}
			if !created {
				e.t.Errorf("PutMessage of an expired message's id: created = false, want true")
			}
			if d := messageDiff(stored, again); d != "" {
				e.t.Errorf("PutMessage of an expired message's id returned other than the new message:\n%s", d)
			}
			e.checkGet([]uuid.UUID{again.ID}, []*cache.Message{again})
			for _, p := range again.Paths {
				e.checkLatest(p, again)
				e.checkRefs(fmt.Sprintf("History(%q) after the second put", p), e.allHistory(p, 10), []*cache.Message{again}, messageTime)
			}
			e.checkRefs("Journal around both puts", e.allJournal(first.ReceivedAt.Add(-time.Second), again.ReceivedAt.Add(time.Second), cache.Position{}, 100, []*cache.Message{again}),
				[]*cache.Message{again}, receivedTime)
			e.checkChildren("Children of the top word after the second put", e.allChildren(e.path(), 10),
				[]childWant{{"a", again}, {"b", again}})
		},
	},
}

// checkChildrenAfterExpiry checks the children of parent once some have
// expired: want are the children that must be listed, gone the words whose
// messages all expired. Those may be listed still, but with a nil Latest.
func (e *env) checkChildrenAfterExpiry(parent string, want []childWant, gone ...string) {
	e.t.Helper()
	got := e.allChildren(parent, 10)
	var kept []cache.Child
	for _, c := range got {
		if !slices.Contains(gone, c.Word) {
			kept = append(kept, c)
		} else if c.Latest != nil {
			e.t.Errorf("Children(%q) after expiry: child %q has Latest = ref to %s, which expired; want the child unlisted or its Latest nil", parent, c.Word, e.label(c.Latest.ID))
		}
	}
	e.checkChildren(fmt.Sprintf("Children(%q) after expiry, without the expired children", parent), kept, want)
}

// keep remembers messages between the two halves of an expiry subtest.
func (e *env) keep(key string, ms ...*cache.Message) {
	e.names.mu.Lock()
	defer e.names.mu.Unlock()
	if e.names.kept == nil {
		e.names.kept = make(map[string][]*cache.Message)
	}
	e.names.kept[key] = ms
}

func (e *env) kept(key string) []*cache.Message {
	e.names.mu.Lock()
	defer e.names.mu.Unlock()
	return e.names.kept[key]
}
