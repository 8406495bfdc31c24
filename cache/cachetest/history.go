package cachetest

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// testHistory fills one path with messages, some tied in message time, and
// its neighbours in the tree, then reads the path's history.
func (s *suite) testHistory(t *testing.T) {
	e := s.start(t)
	path := e.path("h")
	base := e.now.Add(-time.Minute)
	tie := base.Add(-6 * time.Second)  // five messages share this time
	tie2 := base.Add(-9 * time.Second) // and three this one
	var times []time.Time
	for k := 1; k <= 12; k++ {
		times = append(times, base.Add(-time.Duration(k)*time.Second))
	}
	times = append(times, tie, tie, tie, tie, tie2, tie2, base.Add(-3*time.Second+time.Millisecond))
	var msgs []*cache.Message
	for i, at := range times {
		msgs = append(msgs, e.msg(fmt.Sprintf("h%02d", i), at, path))
	}
	// Neighbours: a child, siblings whose words extend "h", and the top.
	neighbours := map[string][]*cache.Message{}
	for i, p := range []string{e.path("h", "sub"), e.path("hh"), e.path("h-"), e.path("h0"), e.path("h", "sub", "deeper"), e.path()} {
		for j := range 2 {
			neighbours[p] = append(neighbours[p], e.msg(fmt.Sprintf("n%d.%d", i, j), times[i*2+j].Add(time.Millisecond), p))
		}
	}
	all := append([]*cache.Message{}, msgs...)
	for _, ms := range neighbours {
		all = append(all, ms...)
	}
	rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	e.putAll(all...)
	want := byPosition(msgs, messageTime, true)

	t.Run("NewestFirstByMessageTimeThenID", func(t *testing.T) {
		e := e.sub(t)
		e.checkRefs(fmt.Sprintf("History(%q) in one page", path), e.history(path, cache.Position{}, 1000), want, messageTime)
		e.checkLatest(path, want[0])
	})
	t.Run("TiesInMessageTimeOrderedByIDBytes", func(t *testing.T) {
		e := e.sub(t)
		p := e.path("ties")
		at := base.Add(-time.Hour)
		var tied []*cache.Message
		for i := range 8 {
			tied = append(tied, e.msg(fmt.Sprintf("tie%d", i), at, p))
		}
		e.putAll(tied...)
		e.checkRefs(fmt.Sprintf("History(%q) of messages of one time", p), e.history(p, cache.Position{}, 1000),
			byPosition(tied, messageTime, true), messageTime)
	})
	for _, limit := range []int{1, 3, 1000} {
		t.Run(fmt.Sprintf("PagesByLimit%dHoldEveryMessageOnce", limit), func(t *testing.T) {
			e := e.sub(t)
			e.checkRefs(fmt.Sprintf("all pages of History(%q) by %d", path, limit), e.allHistory(path, limit), want, messageTime)
		})
	}
	t.Run("StartsStrictlyAfterAnyPosition", func(t *testing.T) {
		maxID := uuid.UUID{}
		for i := range maxID {
			maxID[i] = 0xff
		}
		absent := UUIDAt(tie)
		e.name(absent, "absent")
		pos := func(m *cache.Message) cache.Position { return cache.Position{At: messageTime(m), ID: m.ID} }
		cases := []struct {
			name  string
			after cache.Position
		}{
			{"ZeroPosition", cache.Position{}},
			{"OfTheNewest", pos(want[0])},
			{"OfTheFifth", pos(want[4])},
			{"OfTheOldest", pos(want[len(want)-1])},
			{"InsideTiedTimeAtAbsentID", cache.Position{At: tie, ID: absent}},
			{"AtTiedTimeWithNilID", cache.Position{At: tie, ID: uuid.Nil}},
			{"AtTiedTimeWithMaxID", cache.Position{At: tie, ID: maxID}},
			{"BetweenTwoTimes", cache.Position{At: base.Add(-6500 * time.Millisecond)}},
			{"NewerThanAll", cache.Position{At: e.now.Add(time.Hour)}},
			{"OlderThanAll", cache.Position{At: base.Add(-24 * time.Hour), ID: maxID}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := e.sub(t)
				var rest []*cache.Message
				for _, m := range want {
					if tc.after.IsZero() || pos(m).Compare(tc.after) < 0 {
						rest = append(rest, m)
					}
				}
				e.checkRefs(fmt.Sprintf("History(%q) after %s", path, e.fmtPos(tc.after)), e.history(path, tc.after, 1000), rest, messageTime)
			})
		}
	})
	t.Run("HoldsOnlyTheExactPath", func(t *testing.T) {
		e := e.sub(t)
		for p, ms := range neighbours {
			e.checkRefs(fmt.Sprintf("History(%q)", p), e.allHistory(p, 100), byPosition(ms, messageTime, true), messageTime)
		}
		for _, p := range []string{e.path("h", "none"), e.path("h", "sub", "none"), e.path("H"), e.path("hhh")} {
			e.checkRefs(fmt.Sprintf("History(%q) of a path without messages", p), e.allHistory(p, 100), nil, messageTime)
		}
	})
}
