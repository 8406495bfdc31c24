package cachetest

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// testJournal stores messages received at chosen milliseconds, some tied,
// and reads the journal over windows around them. The journal is shared by
// every path, so each query keeps only this subtest's messages.
func (s *suite) testJournal(t *testing.T) {
	e := s.start(t)
	base := quietPast(e.now)
	ms := func(n int) time.Time { return base.Add(time.Duration(n) * time.Millisecond) }
	// Received at these offsets (ms) from base; -1 and 2000 are outside
	// the main window [base, base+2s).
	offsets := []int{0, 0, 1, 2, 5, 5, 5, 10, 999, 1000, 1001, 1500, -1, 2000}
	var msgs []*cache.Message
	for i, off := range offsets {
		// Message times run against received times, so that ordering by
		// message time instead would show.
		m := e.msg(fmt.Sprintf("j%02d@%dms", i, off), base.Add(-time.Duration(off)*time.Second), e.path("j", fmt.Sprint(i%3)))
		m.ReceivedAt = ms(off)
		m.ExpiresAt = m.ReceivedAt.Add(time.Hour)
		msgs = append(msgs, m)
	}
	put := append([]*cache.Message{}, msgs...)
	rand.Shuffle(len(put), func(i, j int) { put[i], put[j] = put[j], put[i] })
	e.putAll(put...)

	// inWindow returns this subtest's messages received in [from, to),
	// oldest first.
	inWindow := func(from, to time.Time) []*cache.Message {
		var in []*cache.Message
		for _, m := range msgs {
			if !m.ReceivedAt.Before(from) && m.ReceivedAt.Before(to) {
				in = append(in, m)
			}
		}
		return byPosition(in, receivedTime, false)
	}
	from, to := ms(0), ms(2000)
	want := inWindow(from, to)

	t.Run("OldestFirstByReceivedTimeThenID", func(t *testing.T) {
		e := e.sub(t)
		e.checkRefs("Journal of the main window", e.allJournal(from, to, cache.Position{}, 1000, msgs), want, receivedTime)
	})
	t.Run("BoundsAreFromInclusiveToExclusive", func(t *testing.T) {
		cases := []struct {
			name     string
			from, to time.Time
		}{
			{"AroundEverything", ms(-1000), ms(3000)},
			{"FromAtAMessage", ms(5), ms(2000)},
			{"FromOneMillisecondAfterAMessage", ms(6), ms(2000)},
			{"FromOneMillisecondBeforeAMessage", ms(4), ms(2000)},
			{"ToAtAMessage", ms(0), ms(5)},
			{"ToOneMillisecondAfterAMessage", ms(0), ms(6)},
			{"OneMillisecondWithTiedMessages", ms(5), ms(6)},
			{"OneMillisecondWithoutMessages", ms(6), ms(7)},
			{"FirstMillisecond", ms(0), ms(1)},
			{"EmptyWindow", ms(5), ms(5)},
			{"AcrossASecond", ms(999), ms(1001)},
			{"WholeSecond", ms(1000), ms(2000)},
			{"ToAtTheLastMessage", ms(-1), ms(2000)},
			{"ToJustAfterTheLastMessage", ms(-1), ms(2001)},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := e.sub(t)
				e.checkRefs(fmt.Sprintf("Journal(%s, %s)", fmtTime(tc.from), fmtTime(tc.to)),
					e.allJournal(tc.from, tc.to, cache.Position{}, 1000, msgs), inWindow(tc.from, tc.to), receivedTime)
			})
		}
	})
	for _, limit := range []int{1, 2, 1000} {
		t.Run(fmt.Sprintf("PagesByLimit%dHoldEveryMessageOnce", limit), func(t *testing.T) {
			e := e.sub(t)
			e.checkRefs(fmt.Sprintf("all pages of the journal of the main window by %d", limit),
				e.allJournal(from, to, cache.Position{}, limit, msgs), want, receivedTime)
		})
	}
	t.Run("StartsStrictlyAfterAnyPosition", func(t *testing.T) {
		var maxID uuid.UUID
		for i := range maxID {
			maxID[i] = 0xff
		}
		absent := UUIDAt(base)
		e.name(absent, "absent")
		pos := func(m *cache.Message) cache.Position { return cache.Position{At: m.ReceivedAt, ID: m.ID} }
		cases := []struct {
			name  string
			after cache.Position
		}{
			{"ZeroPosition", cache.Position{}},
			{"OfTheOldest", pos(want[0])},
			{"OfTheThird", pos(want[2])},
			{"OfTheNewest", pos(want[len(want)-1])},
			{"InsideTiedTimeAtAbsentID", cache.Position{At: ms(5), ID: absent}},
			{"AtTiedTimeWithNilID", cache.Position{At: ms(5), ID: uuid.Nil}},
			{"AtTiedTimeWithMaxID", cache.Position{At: ms(5), ID: maxID}},
			{"BetweenTwoTimes", cache.Position{At: ms(7)}},
			{"BeforeFrom", cache.Position{At: ms(-500), ID: maxID}},
			{"AfterTo", cache.Position{At: ms(2500)}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := e.sub(t)
				var rest []*cache.Message
				for _, m := range want {
					if tc.after.IsZero() || pos(m).Compare(tc.after) > 0 {
						rest = append(rest, m)
					}
				}
				e.checkRefs(fmt.Sprintf("Journal of the main window after %s", e.fmtPos(tc.after)),
					e.allJournal(from, to, tc.after, 1000, msgs), rest, receivedTime)
				if len(rest) > 0 {
					e.checkRefs(fmt.Sprintf("Journal of the main window after %s, by 1", e.fmtPos(tc.after)),
						e.allJournal(from, to, tc.after, 1, msgs), rest, receivedTime)
				}
			})
		}
	})
}
