package cachetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/cache"
)

// testLatestNewest puts messages to a path in various orders of message
// time and checks after every put that Latest is the newest so far.
func (s *suite) testLatestNewest(t *testing.T) {
	e := s.start(t)
	// Each case lists how long before the subtest's start the message times
	// of its messages are, in the order they are put.
	cases := []struct {
		name string
		ago  []time.Duration
	}{
		{"OneMessage", []time.Duration{5 * time.Second}},
		{"PutOldestFirst", []time.Duration{30 * time.Second, 20 * time.Second, 10 * time.Second}},
		{"PutNewestFirst", []time.Duration{10 * time.Second, 20 * time.Second, 30 * time.Second}},
		{"NewestPutInTheMiddle", []time.Duration{20 * time.Second, 5 * time.Second, 30 * time.Second, 25 * time.Second}},
		{"MuchOlderArrivesLater", []time.Duration{time.Second, 24 * time.Hour}},
		{"OneMillisecondApart", []time.Duration{2 * time.Millisecond, time.Millisecond, 3 * time.Millisecond}},
		{"NewerThanReceivedTime", []time.Duration{time.Second, -time.Minute, 0}},
	}
	want := make([]childWant, 0, len(cases))
	for _, tc := range cases {
		var ms []*cache.Message
		t.Run(tc.name, func(t *testing.T) {
			e := e.sub(t)
			p := e.path("latest", tc.name)
			for i, ago := range tc.ago {
				m := e.msg(fmt.Sprintf("%s-put%d", tc.name, i), e.now.Add(-ago), p)
				e.put(m)
				ms = append(ms, m)
				e.checkLatest(p, newestByTime(ms...))
			}
		})
		if len(ms) > 0 {
			want = append(want, childWant{tc.name, newestByTime(ms...)})
		}
	}
	slices.SortFunc(want, func(a, b childWant) int { return strings.Compare(a.word, b.word) })
	e.checkChildren("Children of the parent of the cases", e.allChildren(e.path("latest"), 100), want)
}

// testLatestNil checks that Latest is nil for every node without messages
// of its own: unknown paths and nodes that only have descendants.
func (s *suite) testLatestNil(t *testing.T) {
	e := s.start(t)
	m := e.msg("m", e.now.Add(-time.Second), e.path("a", "b", "c"))
	e.put(m)
	cases := []struct {
		name string
		path string
		want *cache.Message
	}{
		{"TheMessagesPath", e.path("a", "b", "c"), m},
		{"TopWordWithOnlyDescendants", e.path(), nil},
		{"GrandparentWithOnlyDescendants", e.path("a"), nil},
		{"ParentWithOnlyAChild", e.path("a", "b"), nil},
		{"BelowTheMessagesPath", e.path("a", "b", "c", "d"), nil},
		{"SiblingExtendingTheWord", e.path("a", "b", "cc"), nil},
		{"SiblingWithDash", e.path("a", "b", "c-"), nil},
		{"WordInOtherCase", e.path("a", "b", "C"), nil},
		{"UnknownPath", e.path("nothing", "here"), nil},
		{"UnknownTopWord", uniqueWord(), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e.sub(t).checkLatest(tc.path, tc.want)
		})
	}
}

// byteOrderWords are words whose byte order differs from alphabetical,
// case-insensitive or natural order.
var byteOrderWords = []string{
	"b", "a", "B", "A", "_", ":", "0", "9", "-x", "-", "a-", "aa", "a_", "a:",
	"Z", "zz", "z", "_a", "a0", "a-b", "10", "2", "a.b",
}

// testChildrenByteOrder lists children whose words sort in byte order
// differently from other orders.
func (s *suite) testChildrenByteOrder(t *testing.T) {
	e := s.start(t)
	parent := e.path("order")
	var want []childWant
	for _, i := range rand.Perm(len(byteOrderWords)) {
		w := byteOrderWords[i]
		m := e.msg("msg-"+w, e.now.Add(-time.Duration(i)*time.Second), parent+"."+w)
		e.put(m)
		// "a.b" is two words: it makes child "a" have a child of its own.
		if w != "a.b" {
			want = append(want, childWant{w, m})
		}
	}
	slices.SortFunc(want, func(a, b childWant) int { return strings.Compare(a.word, b.word) })
	e.checkChildren("Children in one page", e.children(parent, "", 1000), want)
}

// testChildrenPaging pages through children with several limits and
// starts after present and absent words.
func (s *suite) testChildrenPaging(t *testing.T) {
	e := s.start(t)
	parent := e.path("paging")
	words := []string{"a", "a-", "a-b", "a0", "aa", "ab", "b", "ba", "c", "c0"}
	onlyBelow := map[string]bool{"a0": true, "ba": true} // no own message
	var want []childWant
	for i, w := range words {
		var latest *cache.Message
		if onlyBelow[w] {
			e.put(e.msg("below-"+w, e.now.Add(-time.Duration(i)*time.Second), parent+"."+w+".below"))
		} else {
			latest = e.msg("msg-"+w, e.now.Add(-time.Duration(i)*time.Second), parent+"."+w)
			e.put(latest)
		}
		want = append(want, childWant{w, latest})
	}
	for _, limit := range []int{1, 2, 3, 1000} {
		t.Run(fmt.Sprintf("Limit%d", limit), func(t *testing.T) {
			e := e.sub(t)
			e.checkChildren(fmt.Sprintf("all pages of Children by %d", limit), e.allChildren(parent, limit), want)
		})
	}
	afters := []string{"", "0", "a", "a-", "a-a", "a-b", "a00", "aa", "az", "b", "bz", "c", "c0", "zzz", "A", "_"}
	for _, after := range afters {
		t.Run(fmt.Sprintf("After%q", after), func(t *testing.T) {
			e := e.sub(t)
			var rest []childWant
			for _, c := range want {
				if c.word > after {
					rest = append(rest, c)
				}
			}
			e.checkChildren(fmt.Sprintf("Children after %q", after), e.children(parent, after, 1000), rest)
			if len(rest) > 0 {
				e.checkChildren(fmt.Sprintf("Children after %q, limit 1", after), e.children(parent, after, 1), rest[:1])
			}
		})
	}
}

// testChildrenPrefixWords lists children whose words are prefixes of each
// other, and a node whose child's path extends theirs.
func (s *suite) testChildrenPrefixWords(t *testing.T) {
	e := s.start(t)
	for _, tc := range []struct {
		name     string
		abHasOwn bool
	}{
		{"WithOwnMessage", true},
		{"WithOnlyAChild", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := e.sub(t)
			parent := e.path(tc.name)
			at := func(i int) time.Time { return e.now.Add(-time.Duration(i) * time.Second) }
			x := e.msg("ab.x", at(1), parent+".ab.x")
			abc := e.msg("ab-c", at(2), parent+".ab-c")
			abC := e.msg("abc", at(3), parent+".abc")
			ab0 := e.msg("ab0", at(4), parent+".ab0")
			abColon := e.msg("ab:", at(5), parent+".ab:")
			a := e.msg("a", at(6), parent+".a")
			e.putAll(x, abc, abC, ab0, abColon, a)
			var ab *cache.Message
			if tc.abHasOwn {
				ab = e.msg("ab", at(7), parent+".ab")
				e.put(ab)
			}
			want := []childWant{{"a", a}, {"ab", ab}, {"ab-c", abc}, {"ab0", ab0}, {"ab:", abColon}, {"abc", abC}}
			e.checkChildren("Children in one page", e.children(parent, "", 100), want)
			e.checkChildren("Children by pages of 1", e.allChildren(parent, 1), want)
			e.checkChildren(`Children after "ab"`, e.children(parent, "ab", 100), want[2:])
			e.checkChildren(`Children after "a"`, e.children(parent, "a", 100), want[1:])
			e.checkChildren(`Children of "ab"`, e.allChildren(parent+".ab", 100), []childWant{{"x", x}})
			for _, w := range []string{"ab-c", "abc", "ab0", "ab:", "a", "ab.x"} {
				e.checkChildren(fmt.Sprintf("Children of %q", w), e.allChildren(parent+"."+w, 100), nil)
			}
			e.checkLatest(parent+".ab", ab)
			e.checkLatest(parent+".ab.x", x)
		})
	}
}

// testChildrenLatest checks which children carry a Latest, and that it is
// the newest message of exactly that node.
func (s *suite) testChildrenLatest(t *testing.T) {
	e := s.start(t)
	parent := e.path("latest")
	at := func(i int) time.Time { return e.now.Add(-time.Duration(i) * time.Second) }
	xNew := e.msg("x-newer", at(1), parent+".x")
	xOld := e.msg("x-older", at(50), parent+".x")
	xChild := e.msg("x.c, newest", at(0), parent+".x.c")
	yDeep := e.msg("y.z.deep", at(2), parent+".y.z.deep")
	w := e.msg("w", at(30), parent+".w")
	wq := e.msg("w.q", at(3), parent+".w.q")
	e.putAll(xNew, xOld, xChild, yDeep, w, wq)

	e.checkChildren("Children of the parent", e.allChildren(parent, 10),
		[]childWant{{"w", w}, {"x", xNew}, {"y", nil}})
	e.checkChildren(`Children of "w"`, e.allChildren(parent+".w", 10), []childWant{{"q", wq}})
	e.checkChildren(`Children of "x"`, e.allChildren(parent+".x", 10), []childWant{{"c", xChild}})
	e.checkChildren(`Children of "y"`, e.allChildren(parent+".y", 10), []childWant{{"z", nil}})
	e.checkChildren(`Children of "y.z"`, e.allChildren(parent+".y.z", 10), []childWant{{"deep", yDeep}})
	e.checkChildren("Children of the top word", e.allChildren(e.path(), 10), []childWant{{"latest", nil}})
}

// testChildrenHasChildren checks that a child with anything below it says
// so (a walk trusting a false "no children" would miss data); a leaf may
// say either.
func (s *suite) testChildrenHasChildren(t *testing.T) {
	e := s.start(t)
	parent := e.path("kids")
	e.putAll(
		e.msg("leaf", e.now.Add(-3*time.Second), parent+".leaf"),
		e.msg("own and below", e.now.Add(-2*time.Second), parent+".both"),
		e.msg("below only", e.now.Add(-time.Second), parent+".both.under", parent+".inner.x.y"),
	)
	got := map[string]bool{}
	for _, c := range e.allChildren(parent, 10) {
		got[c.Word] = c.HasChildren
	}
	for _, word := range []string{"both", "inner"} {
		if has, ok := got[word]; !ok || !has {
			t.Errorf("Children of %s: child %q listed=%v HasChildren=%v, want listed with HasChildren", parent, word, ok, has)
		}
	}
	if _, ok := got["leaf"]; !ok {
		t.Errorf("Children of %s: leaf missing", parent)
	}
}

// testChildrenRoot finds the subtest's top word among the children of the
// root, which a shared store shares with everyone.
func (s *suite) testChildrenRoot(t *testing.T) {
	e := s.start(t)
	own := e.msg("top", e.now.Add(-2*time.Second), e.top)
	below := e.msg("below", e.now.Add(-time.Second), e.path("r"))
	e.putAll(own, below)

	// Start just before the top word; other words may come between.
	after := e.top[:len(e.top)-1]
	var found *cache.Child
	for n := 0; found == nil; n++ {
		if n == maxPages {
			t.Fatalf("Children of the root: no end after %d pages", n)
		}
		page := e.children("", after, 3)
		if len(page) == 0 {
			break
		}
		for _, c := range page {
			if c.Word == e.top {
				found = &c
				break
			}
			if c.Word > e.top {
				t.Fatalf("Children of the root after %q: listed %q but not the top word %q", after, c.Word, e.top)
			}
		}
		after = page[len(page)-1].Word
	}
	if found == nil {
		t.Fatalf("Children of the root after %q: the top word %q is not listed", e.top[:len(e.top)-1], e.top)
	}
	e.checkRef("Latest of the top word among the root's children", found.Latest, own, messageTime)
	e.checkLatest(e.top, own)
	e.checkChildren("Children of the top word", e.allChildren(e.top, 10), []childWant{{"r", below}})
}

// testSeveralPaths puts one message under several paths and finds it under
// each, once.
func (s *suite) testSeveralPaths(t *testing.T) {
	e := s.start(t)
	ps := []string{e.path("m", "a", "one"), e.path("m", "b"), e.path("m", "a", "two"), e.path("n")}
	m := e.msg("multi", e.now.Add(-time.Second), ps...)
	e.put(m)
	e.checkGet(IDs([]*cache.Message{m}), []*cache.Message{m})
	for _, p := range ps {
		e.checkLatest(p, m)
		e.checkRefs(fmt.Sprintf("History of %q", p), e.allHistory(p, 10), []*cache.Message{m}, messageTime)
	}
	e.checkChildren("Children of the top word", e.allChildren(e.path(), 10), []childWant{{"m", nil}, {"n", m}})
	e.checkChildren(`Children of "m"`, e.allChildren(e.path("m"), 10), []childWant{{"a", nil}, {"b", m}})
	e.checkChildren(`Children of "m.a"`, e.allChildren(e.path("m", "a"), 10), []childWant{{"one", m}, {"two", m}})
	e.checkRefs("Journal of the subtest's messages", e.allJournal(m.ReceivedAt, m.ReceivedAt.Add(time.Millisecond), cache.Position{}, 100, []*cache.Message{m}),
		[]*cache.Message{m}, receivedTime)
}
