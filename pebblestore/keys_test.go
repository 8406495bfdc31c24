package pebblestore

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// TestHistoryKeysSortNewestFirst checks that the keys of one path sort by
// position (message time, then id bytes) descending.
func TestHistoryKeysSortNewestFirst(t *testing.T) {
	base, _, _, _ := ticksOf(t0)
	var ids []uuid.UUID
	for i := range 500 {
		ticks := base + uint64(rand.IntN(50)) // many ties on time
		if i%50 == 0 {
			ticks = base + uint64(i)*1e7*3600*24*365 // and wide spreads
		}
		ids = append(ids, v1Ticks(ticks, rand.Uint64()))
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int {
		return bytes.Compare(historyKey("a.b", a), historyKey("a.b", b))
	})
	for i := 1; i < len(ids); i++ {
		prev := cache.Position{At: cache.UUIDTime(ids[i-1]), ID: ids[i-1]}
		cur := cache.Position{At: cache.UUIDTime(ids[i]), ID: ids[i]}
		if prev.Compare(cur) <= 0 {
			t.Fatalf("key order puts %v before %v, which is not older", prev, cur)
		}
	}
	for _, id := range ids {
		if got, ok := idFromOrderKey(historyKey("a.b", id)); !ok || got != id {
			t.Fatalf("idFromOrderKey = %v, %v; want %v", got, ok, id)
		}
	}
}

// TestSubtreesAreContiguous checks that the history keys of a node and all
// its descendants, and only those, fall in [encPath 0x00, encPath 0x02).
func TestSubtreesAreContiguous(t *testing.T) {
	paths := []string{
		"a", "a.b", "a.b.c", "a.c", "a-b", "a_b", "a:b", "ab", "ab.c", "ab.c.d", "abc", "abc.d",
		"b", "A", "Z.a", "0", "a.b0", "a.b-", "aa", "a.a",
	}
	id := v1(t0)
	for _, node := range paths {
		lo := append(append([]byte{prefixHistory}, appendEncPath(nil, node)...), sepOwn)
		hi := append(append([]byte{prefixHistory}, appendEncPath(nil, node)...), sepSubtree)
		for _, p := range paths {
			k := historyKey(p, id)
			in := bytes.Compare(k, lo) >= 0 && bytes.Compare(k, hi) < 0
			want := p == node || strings.HasPrefix(p, node+".")
			if in != want {
				t.Errorf("key of %q in subtree range of %q: %v, want %v", p, node, in, want)
			}
		}
	}
}

// TestChildKeysSortByWord checks that the subtrees of siblings sort in the
// byte order of their words, including words that prefix other words, and
// that a node's own entries come before its children's.
func TestChildKeysSortByWord(t *testing.T) {
	id := v1(t0)
	older := v1(t0.Add(-time.Hour))
	ordered := [][]byte{
		historyKey("p", id),
		historyKey("p", older),
		historyKey("p.ab", id),
		historyKey("p.ab", older),
		historyKey("p.ab.a", id),
		historyKey("p.ab.zz", id),
		historyKey("p.ab-", id), // '-' sorts before letters and digits
		historyKey("p.ab0", id),
		historyKey("p.abc", id),
		historyKey("p.abc.d", id),
		historyKey("p.b", id),
		historyKey("pa", id),
	}
	for i := 1; i < len(ordered); i++ {
		if bytes.Compare(ordered[i-1], ordered[i]) >= 0 {
			t.Errorf("key %d %x does not sort before key %d %x", i-1, ordered[i-1], i, ordered[i])
		}
	}
	// The seek past the subtree of "ab" lands before "ab-", "ab0" and "abc".
	past := append(childrenPrefix("p"), "ab"...)
	past = append(past, sepSubtree)
	if bytes.Compare(historyKey("p.ab.zz", id), past) >= 0 || bytes.Compare(past, historyKey("p.ab-", id)) >= 0 {
		t.Error("the seek key past child ab is not between its subtree and the next word")
	}
	if !bytes.HasPrefix(historyKey("p.ab", id), childrenPrefix("p")) || !bytes.HasPrefix(historyKey("x", id), childrenPrefix("")) {
		t.Error("children prefix does not prefix children's keys")
	}
}

func TestTimeKeysOrder(t *testing.T) {
	ms := []int64{math.MinInt64, -1 << 40, -1, 0, 1, 1 << 40, time.Now().UnixMilli(), math.MaxInt64}
	id := uuid.New()
	for i := 1; i < len(ms); i++ {
		a, b := journalKey(ms[i-1], id), journalKey(ms[i], id)
		if bytes.Compare(a, b) >= 0 {
			t.Errorf("journal key of %d does not sort before that of %d", ms[i-1], ms[i])
		}
		got, gotID, ok := parseTimeKey(b)
		if !ok || got != ms[i] || gotID != id {
			t.Errorf("parseTimeKey = %d, %v, %v; want %d, %v", got, gotID, ok, ms[i], id)
		}
	}
}

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct{ in, want []byte }{
		{[]byte("h"), []byte("i")},
		{[]byte{'h', 'a', 1}, []byte{'h', 'a', 2}},
		{[]byte{'a', 0xff, 0xff}, []byte{'b'}},
		{[]byte{0xff}, nil},
	} {
		if got := prefixEnd(c.in); !bytes.Equal(got, c.want) {
			t.Errorf("prefixEnd(%x) = %x, want %x", c.in, got, c.want)
		}
	}
}

// TestTicksMatchUUIDTime checks that ticksOf inverts cache.UUIDTime.
func TestTicksMatchUUIDTime(t *testing.T) {
	for range 1000 {
		ticks := rand.Uint64N(maxTicks)
		id := v1Ticks(ticks, rand.Uint64())
		got, exact, before, after := ticksOf(cache.UUIDTime(id))
		if got != ticks || !exact || before || after {
			t.Fatalf("ticksOf(UUIDTime) = %d, %v, %v, %v; want %d exact", got, exact, before, after, ticks)
		}
	}
	if _, _, before, _ := ticksOf(time.Time{}); !before {
		t.Error("the zero time is not before the UUID epoch")
	}
	if _, _, _, after := ticksOf(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)); !after {
		t.Error("year 9999 is not past every UUID time")
	}
	if _, exact, _, _ := ticksOf(t0.Add(50)); exact {
		t.Error("a time between ticks is exact")
	}
}

// TestHistoryStart checks the seek key of History against the Position
// order, for positions on and between ticks.
func TestHistoryStart(t *testing.T) {
	base, _, _, _ := ticksOf(t0)
	var ids []uuid.UUID
	for i := range 300 {
		ids = append(ids, v1Ticks(base+uint64(i%10), rand.Uint64()))
	}
	prefix := historyPrefix("p")
	afters := []cache.Position{{}, {At: time.Time{}.Add(time.Hour), ID: ids[0]}, {At: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}}
	for _, id := range ids[:50] {
		at := cache.UUIDTime(id)
		afters = append(afters,
			cache.Position{At: at, ID: id},
			cache.Position{At: at, ID: uuid.Nil},
			cache.Position{At: at, ID: uuid.Max},
			cache.Position{At: at.Add(30), ID: id},
			cache.Position{At: at.Add(-30), ID: id},
		)
	}
	for _, after := range afters {
		start, ok := historyStart(prefix, after)
		for _, id := range ids {
			pos := cache.Position{At: cache.UUIDTime(id), ID: id}
			want := after.IsZero() || pos.Compare(after) < 0
			got := ok && bytes.Compare(historyKey("p", id), start) >= 0
			if got != want {
				t.Fatalf("after %v: entry %v included = %v, want %v", after, pos, got, want)
			}
		}
	}
}

// TestJournalRange checks the key range of Journal against [from, to) and
// the Position order, with bounds on and between milliseconds.
func TestJournalRange(t *testing.T) {
	type entry struct {
		ms int64
		id uuid.UUID
	}
	base := t0.UnixMilli()
	var es []entry
	for i := range 200 {
		es = append(es, entry{base + int64(i%20), uuid.New()})
	}
	at := func(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
	times := []time.Time{time.Time{}, at(base - 5), at(base), at(base).Add(1), at(base + 3), at(base + 3).Add(-1), at(base + 19), at(base + 20), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}
	afters := []cache.Position{{}, {At: at(base + 4), ID: es[4].id}, {At: at(base + 4), ID: uuid.Nil}, {At: at(base + 4).Add(1), ID: uuid.Max}, {At: at(base + 19), ID: uuid.Max}, {At: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}}
	for _, from := range times {
		for _, to := range times {
			for _, after := range afters {
				lo, hi, ok := journalRange(from, to, after)
				for _, e := range es {
					ta := at(e.ms)
					pos := cache.Position{At: ta, ID: e.id}
					want := !ta.Before(from) && ta.Before(to) && (after.IsZero() || pos.Compare(after) > 0)
					k := journalKey(e.ms, e.id)
					got := ok && bytes.Compare(k, lo) >= 0 && bytes.Compare(k, hi) < 0
					if got != want {
						t.Fatalf("from %v to %v after %v: entry %v included = %v, want %v", from, to, after, pos, got, want)
					}
				}
			}
		}
	}
}
