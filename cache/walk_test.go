package cache_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/paths"
)

// The tree walk (Latest and Paths) is checked against a brute-force oracle:
// every path the test stored, filtered with paths.Pattern.Match and sorted in
// tree order, with each path's latest message worked out from the messages
// the test put there.

// Sizes of the wide nodes: "big" has more children than the walker fetches
// in one Store.Children call (256) and ends with a partial chunk; "e" has
// exactly one full chunk, so the walker must ask once more and get nothing.
const (
	bigChildren = 600
	eChildren   = 256
)

// longPath is a path of the maximum number of words, and maxBytesPath one
// of the maximum length; with pathJustUnderMax (511 bytes) they exercise the
// prefixes for which "prefix.#" is not a valid pattern.
var (
	longPath         = strings.Repeat("w.", 31) + "c"
	maxBytesPath     = strings.Repeat("q", 127) + "." + strings.Repeat("r", 127) + "." + strings.Repeat("s", 127) + "." + strings.Repeat("t", 128)
	pathJustUnderMax = strings.Repeat("u", 127) + "." + strings.Repeat("v", 127) + "." + strings.Repeat("x", 127) + "." + strings.Repeat("y", 127)
)

// treePaths returns the complete paths of the test tree. Nodes that only
// lead to others ("deep", "deep.1", ..., "w", "big", "e") hold no message.
func treePaths() []string {
	ps := []string{
		"a", "a.a", "a.b", "a.c", "a.b.c", "a.x.c", "a.b.b.c", "a.c.c", "a.b.c.d", "a.b.x",
		"b", "c", "c.b", "c.c", "x.b", "x.y.z.c",
		// words that prefix other words, and bytes sorting around '.'
		"ab", "ab.x", "ab.c", "ab.x.c", "ab-c", "ab-c.c", "abc", "abc.b", "ab_", "ab:", "ab0",
		"a-", "a_", "a:", "a0", "A", "Z.c", "-", "_", ":", "0.b", "zz",
		// intermediate nodes without messages
		"deep.1.2.3.4", "deep.1.2.3.4.c", "deep.1.x.c",
		longPath, longPath[:len(longPath)-2], maxBytesPath, pathJustUnderMax,
	}
	for i := range bigChildren {
		// Unpadded numbers, so that byte order differs from numeric order.
		ps = append(ps, "big.k"+strconv.Itoa(i))
		if i%97 == 0 {
			ps = append(ps, "big.k"+strconv.Itoa(i)+".c")
		}
	}
	ps = append(ps, "big.k5.b", "big.k599.b.c")
	for i := range eChildren {
		ps = append(ps, fmt.Sprintf("e.%02x", i))
	}
	ps = append(ps, "e.ff.c")
	return ps
}

// tree is a stored test tree and what the oracle knows about it.
type tree struct {
	svc    *cache.Service
	paths  []string             // every complete path
	latest map[string]uuid.UUID // each path's latest message
}

// buildTree stores the test tree: one message per path, plus for a few
// paths a newer message and an older one that arrives last (a late arrival
// must not displace the newer), and one message naming several paths.
func buildTree(t *testing.T) *tree {
	t.Helper()
	cfg := cache.DefaultConfig()
	cfg.MaxLimit = 5000
	svc := newService(t, cfg)
	tr := &tree{svc: svc, paths: treePaths(), latest: make(map[string]uuid.UUID)}

	base := time.Now().Add(-time.Hour)
	times := make(map[string]time.Time)
	var ins []cache.PutInput
	add := func(at time.Time, seq uint16, ps ...string) {
		id := v1At(at, seq)
		ins = append(ins, cache.PutInput{MessageID: id.String(), Metadata: meta(ps...)})
		for _, p := range ps {
			if prev, ok := times[p]; !ok || at.After(prev) {
				times[p], tr.latest[p] = at, id
			}
		}
	}
	for i, p := range tr.paths {
		add(base.Add(time.Duration(i)*time.Millisecond), uint16(i), p)
	}
	later := base.Add(10 * time.Minute)
	for i, p := range []string{"a", "a.b.c", "ab", "big.k300", "e.80"} {
		add(later.Add(time.Duration(i)*time.Millisecond), 1, p)
	}
	add(later.Add(time.Second), 2, "a.b", "c.c", "ab-c", "big.k42", "e.00")
	for i, p := range []string{"a", "a.b", "ab-c", "big.k300"} { // late arrivals, older
		add(base.Add(-time.Duration(i+1)*time.Minute), 3, p)
	}
	putAll(t, svc, ins)

	if len(tr.latest) != len(tr.paths) {
		t.Fatalf("test tree has duplicate paths: %d paths, %d distinct", len(tr.paths), len(tr.latest))
	}
	for _, p := range tr.paths {
		if err := paths.Validate(p); err != nil {
			t.Fatalf("test tree path %q is invalid: %v", p, err)
		}
	}
	return tr
}

// oracle returns the stored paths matching pattern, in tree order. It
// checks paths.Pattern.Match against an independent naive matcher, so that
// the oracle does not share a bug with the walker's state machine.
func (tr *tree) oracle(t *testing.T, pattern string) []string {
	t.Helper()
	pat, err := paths.ParsePattern(pattern)
	if err != nil {
		t.Fatalf("ParsePattern(%q): %v", pattern, err)
	}
	var out []string
	for _, p := range tr.paths {
		m := pat.Match(p)
		if ref := refMatch(strings.Split(pattern, "."), strings.Split(p, ".")); m != ref {
			t.Fatalf("oracle disagreement: Pattern(%q).Match(%q) = %v, naive matcher says %v", pattern, p, m, ref)
		}
		if m {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, treeCompare)
	return out
}

// prefixOracle returns the stored paths at or below prefix ("" for all), in
// tree order.
func (tr *tree) prefixOracle(prefix string) []string {
	var out []string
	for _, p := range tr.paths {
		if prefix == "" || p == prefix || strings.HasPrefix(p, prefix+".") {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, treeCompare)
	return out
}

// pager is one paged query: it returns one page's paths.
type pager func(cursor string, limit int) ([]string, cache.Page, error)

// pageAll pages through a query with a fixed limit and returns the
// concatenated items. It fails the test unless every page but the last is
// full with a next cursor, and the last has an empty cursor and is
// non-empty (unless the whole result is empty).
func pageAll(t *testing.T, q pager, limit, want int) []string {
	t.Helper()
	var all []string
	cursor := ""
	for pages := 1; ; pages++ {
		if pages > want+2 {
			t.Fatalf("limit %d: still paging after %d pages for %d items", limit, pages, want)
		}
		items, page, err := q(cursor, limit)
		if err != nil {
			t.Fatalf("limit %d page %d: %v", limit, pages, err)
		}
		if len(items) > limit {
			t.Fatalf("limit %d page %d: %d items", limit, pages, len(items))
		}
		all = append(all, items...)
		if page.NextCursor == "" {
			if len(items) == 0 && pages > 1 {
				t.Fatalf("limit %d: page %d is empty: the previous page had a next_cursor but was the last", limit, pages)
			}
			return all
		}
		if len(items) != limit {
			t.Fatalf("limit %d page %d: %d items with a next_cursor; only the last page may be short", limit, pages, len(items))
		}
		cursor = page.NextCursor
	}
}

// latestPager pages Latest, checking each item's message.
func (tr *tree) latestPager(t *testing.T, pattern string) pager {
	return func(cursor string, limit int) ([]string, cache.Page, error) {
		items, page, err := tr.svc.Latest(context.Background(), pattern, cursor, limit)
		out := make([]string, len(items))
		for i, it := range items {
			out[i] = it.Path
			want, ok := tr.latest[it.Path]
			if !ok {
				t.Errorf("Latest(%q) returned %q, which the test never stored", pattern, it.Path)
			} else if it.Message == nil || it.Message.ID != want {
				t.Errorf("Latest(%q): path %q has message %v, want its latest %s", pattern, it.Path, it.Message, want)
			}
		}
		return out, page, err
	}
}

func (tr *tree) pathsPager(prefix string) pager {
	return func(cursor string, limit int) ([]string, cache.Page, error) {
		return tr.svc.Paths(context.Background(), prefix, cursor, limit)
	}
}

// limitsUpTo returns the limits to sweep for n results: every limit from 1
// to n+1 when exhaustive, otherwise the small ones, those around the
// walker's chunk size (256) and powers of two, and those around n.
func limitsUpTo(n int, exhaustive bool) []int {
	var ls []int
	for l := 1; l <= n+1; l++ {
		sparse := l <= 12 || (l >= 254 && l <= 258) || l&(l-1) == 0 || l%97 == 0 || l >= n-2
		if exhaustive || sparse {
			ls = append(ls, l)
		}
	}
	return ls
}

// exhaustiveUpTo is the largest result for which every limit is tried when
// the pattern is not one of the required shapes; larger results cost
// O(n²) store calls per sweep.
const exhaustiveUpTo = 300

// checkPaging compares a paged query with its oracle, for every limit from 1
// to len(want)+1 when exhaustive (and the tests run neither in -short mode
// nor with the race detector), otherwise for a sparse set of limits.
func checkPaging(t *testing.T, q pager, want []string, exhaustive bool) {
	t.Helper()
	exhaustive = exhaustive && !testing.Short() && !raceEnabled
	for _, limit := range limitsUpTo(len(want), exhaustive) {
		if got := pageAll(t, q, limit, len(want)); !slices.Equal(got, want) {
			t.Fatalf("limit %d:\n%s", limit, diffPaths(got, want))
		}
	}
}

// diffPaths describes how got differs from want, briefly.
func diffPaths(got, want []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "got %d paths, want %d\n", len(got), len(want))
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			fmt.Fprintf(&b, "first difference at %d: got %q, want %q\n", i, g, w)
			break
		}
	}
	gs, ws := make(map[string]int), make(map[string]bool)
	for _, p := range got {
		gs[p]++
	}
	for _, p := range want {
		ws[p] = true
	}
	var missing, extra, dup []string
	for _, p := range want {
		if gs[p] == 0 {
			missing = append(missing, p)
		}
	}
	for p, n := range gs {
		if !ws[p] {
			extra = append(extra, p)
		}
		if n > 1 {
			dup = append(dup, p)
		}
	}
	show := func(name string, ps []string) {
		if len(ps) > 0 {
			slices.Sort(ps)
			fmt.Fprintf(&b, "%s (%d): %q\n", name, len(ps), ps[:min(len(ps), 10)])
		}
	}
	show("missing", missing)
	show("unexpected", extra)
	show("repeated", dup)
	return b.String()
}

func TestTreeOrderOracle(t *testing.T) {
	// The oracle's order itself, on the words that make it subtle.
	in := []string{"abc", "ab-c", "ab.x", "ab", "a", "A", "ab.c", "a.b", "-", "ab_", "ab0", "ab:"}
	want := []string{"-", "A", "a", "a.b", "ab", "ab.c", "ab.x", "ab-c", "ab0", "ab:", "ab_", "abc"}
	slices.SortFunc(in, treeCompare)
	if !slices.Equal(in, want) {
		t.Fatalf("tree order = %q, want %q", in, want)
	}
}

func TestLatestMatchesOracleForEveryLimit(t *testing.T) {
	tr := buildTree(t)
	// Every limit is tried for these shapes, whatever their result size.
	required := []string{"#", "a.#", "*.b", "a.*.c", "#.c", "a.#.c", "a.b.c", "big.*"}
	patterns := append(slices.Clone(required),
		// literals
		"a", "ab", "ab-c", "abc", "big.k1", "big.k599", "e.ff", "a.b.c.d",
		"deep.1", "deep.1.2.3.4", "nope", "nope.a", "A", "-", longPath, maxBytesPath, pathJustUnderMax,
		// prefixes of prefixes
		"ab.#", "ab-c.#", "abc.#", "ab.*", "a-.#",
		// more wildcards
		"*", "*.*", "*.*.*", "*.#", "#.#", "#.*", "*.#.c", "#.b.#", "#.b.c", "a.*", "*.c.#",
		"big.*", "big.#", "big.*.c", "big.*.*.c", "e.*", "e.#", "*.ff.c", "#.ff.#",
		"deep.#", "deep.*.*.*.*", "deep.#.c", "#.4", "w.#.c", "w.#.w.c", "#.w.w", "*.*.#.c.#",
		"x.*.*.c", "nope.#", "a.#.#.c", "#.a.#",
	)
	for _, pattern := range patterns {
		t.Run(pattern, func(t *testing.T) {
			t.Parallel()
			want := tr.oracle(t, pattern)
			exhaustive := slices.Contains(required, pattern) || len(want) <= exhaustiveUpTo
			checkPaging(t, tr.latestPager(t, pattern), want, exhaustive)
		})
	}
}

func TestLatestShapesFindWhatTheyShould(t *testing.T) {
	// A few expectations written out by hand, so that the oracle itself is
	// anchored to the documented semantics.
	tr := buildTree(t)
	tests := []struct {
		pattern string
		want    []string
	}{
		{"a.#", []string{"a", "a.a", "a.b", "a.b.b.c", "a.b.c", "a.b.c.d", "a.b.x", "a.c", "a.c.c", "a.x.c"}},
		{"a.*", []string{"a.a", "a.b", "a.c"}},
		{"a.*.c", []string{"a.b.c", "a.c.c", "a.x.c"}},
		{"a.#.c", []string{"a.b.b.c", "a.b.c", "a.c", "a.c.c", "a.x.c"}},
		{"*.b", []string{"0.b", "a.b", "abc.b", "c.b", "x.b"}},
		{"ab.#", []string{"ab", "ab.c", "ab.x", "ab.x.c"}},
		{"ab", []string{"ab"}},
		{"deep.#.c", []string{"deep.1.2.3.4.c", "deep.1.x.c"}},
		{"deep.1", nil},
	}
	for _, tc := range tests {
		items, page, err := tr.svc.Latest(context.Background(), tc.pattern, "", 100)
		if err != nil {
			t.Fatalf("Latest(%q): %v", tc.pattern, err)
		}
		var got []string
		for _, it := range items {
			got = append(got, it.Path)
		}
		if !slices.Equal(got, tc.want) || page.NextCursor != "" {
			t.Errorf("Latest(%q) = %q (next %q), want %q", tc.pattern, got, page.NextCursor, tc.want)
		}
	}
}

func TestLatestIsNewestNotLastArrived(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	now := time.Now()
	newer := mustPut(t, svc, cache.PutInput{MessageID: v1At(now, 1).String(), Metadata: meta("late.a")})
	mustPut(t, svc, cache.PutInput{MessageID: v1At(now.Add(-time.Minute), 2).String(), Metadata: meta("late.a")})
	for _, pattern := range []string{"late.a", "late.*", "#"} {
		items, _, err := svc.Latest(context.Background(), pattern, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != 1 || items[0].Message.ID != newer.ID {
			t.Errorf("Latest(%q) = %v, want the newer message %s only", pattern, items, newer.ID)
		}
	}
}

func TestPathsMatchesOracleForEveryLimit(t *testing.T) {
	tr := buildTree(t)
	prefixes := []string{
		"", "a", "a.b", "a.b.c.d", "ab", "ab-c", "abc", "ab.x", "big", "big.k1", "big.k599", "e", "e.ff",
		"deep", "deep.1", "deep.1.2.3.4", "nope", "w", "w.w", longPath, longPath[:len(longPath)-2],
		maxBytesPath, pathJustUnderMax, strings.Repeat("q", 127),
	}
	for _, prefix := range prefixes {
		t.Run("prefix="+prefix, func(t *testing.T) {
			t.Parallel()
			want := tr.prefixOracle(prefix)
			checkPaging(t, tr.pathsPager(prefix), want, len(want) <= exhaustiveUpTo)
		})
	}
}

func TestPaths(t *testing.T) {
	tr := buildTree(t)
	ctx := context.Background()
	list := func(t *testing.T, prefix string) []string {
		t.Helper()
		got, page, err := tr.svc.Paths(ctx, prefix, "", 5000)
		if err != nil {
			t.Fatalf("Paths(%q): %v", prefix, err)
		}
		if page.NextCursor != "" {
			t.Fatalf("Paths(%q): a next cursor on a page bigger than the tree", prefix)
		}
		return got
	}
	t.Run("includes the prefix itself when complete", func(t *testing.T) {
		for _, prefix := range []string{"a", "a.b", "ab", "big.k0", longPath, maxBytesPath, pathJustUnderMax} {
			got := list(t, prefix)
			if len(got) == 0 || got[0] != prefix {
				t.Errorf("Paths(%q) = %q, want the prefix first", prefix, got[:min(len(got), 5)])
			}
		}
	})
	t.Run("excludes an incomplete prefix but lists below it", func(t *testing.T) {
		got := list(t, "deep")
		want := []string{"deep.1.2.3.4", "deep.1.2.3.4.c", "deep.1.x.c"}
		if !slices.Equal(got, want) {
			t.Errorf("Paths(deep) = %q, want %q", got, want)
		}
	})
	t.Run("a prefix is whole words", func(t *testing.T) {
		got := list(t, "ab")
		want := []string{"ab", "ab.c", "ab.x", "ab.x.c"}
		if !slices.Equal(got, want) {
			t.Errorf("Paths(ab) = %q, want %q (not ab-c, abc, ...)", got, want)
		}
	})
	t.Run("a leaf lists itself", func(t *testing.T) {
		if got := list(t, "a.b.c.d"); !slices.Equal(got, []string{"a.b.c.d"}) {
			t.Errorf("Paths(a.b.c.d) = %q", got)
		}
	})
	t.Run("unknown prefix lists nothing", func(t *testing.T) {
		if got := list(t, "nope.nope"); len(got) != 0 {
			t.Errorf("Paths(nope.nope) = %q, want none", got)
		}
	})
	t.Run("empty prefix lists every path", func(t *testing.T) {
		got := list(t, "")
		if want := tr.prefixOracle(""); !slices.Equal(got, want) {
			t.Errorf("Paths(\"\"):\n%s", diffPaths(got, want))
		}
	})
	t.Run("invalid prefixes are refused", func(t *testing.T) {
		for _, prefix := range []string{".", "a.", ".a", "a..b", "*", "#", "a.*", "a.#", "a b", "a/b", "é",
			strings.Repeat("a.", 32) + "a", strings.Repeat("a", 129), "q" + maxBytesPath} {
			_, _, err := tr.svc.Paths(ctx, prefix, "", 0)
			if herald.ErrorCode(err) != herald.EInvalid {
				t.Errorf("Paths(%q): error %v, want %s", prefix, err, herald.EInvalid)
			}
		}
	})
}

func TestLatestRefusesInvalidPatterns(t *testing.T) {
	svc := newService(t, cache.DefaultConfig())
	for _, pattern := range []string{"", ".", "a.", "a..b", "a*", "#a", "a.b#", "a b", "é", strings.Repeat("*.", 32) + "*"} {
		_, _, err := svc.Latest(context.Background(), pattern, "", 0)
		if herald.ErrorCode(err) != herald.EInvalid {
			t.Errorf("Latest(%q): error %v, want %s", pattern, err, herald.EInvalid)
		}
	}
}

func TestTreeWalkSkipsExpiredPaths(t *testing.T) {
	clk := newClock(time.Now())
	svc := newClockedService(t, cache.DefaultConfig(), clk)
	now := clk.Now()
	short := mustPut(t, svc, cache.PutInput{MessageID: v1At(now, 1).String(), Metadata: meta("exp.a", "exp.gone.x"), TTL: ttl(1)})
	older := mustPut(t, svc, cache.PutInput{MessageID: v1At(now.Add(-time.Minute), 2).String(), Metadata: meta("exp.a"), TTL: ttl(3600)})
	mustPut(t, svc, cache.PutInput{Metadata: meta("exp.b"), TTL: ttl(3600)})

	latestOf := func(pattern string) map[string]uuid.UUID {
		t.Helper()
		items, _, err := svc.Latest(context.Background(), pattern, "", 0)
		if err != nil {
			t.Fatalf("Latest(%q): %v", pattern, err)
		}
		got := make(map[string]uuid.UUID)
		for _, it := range items {
			got[it.Path] = it.Message.ID
		}
		return got
	}
	if got := latestOf("exp.#"); got["exp.a"] != short.ID || len(got) != 3 {
		t.Fatalf("before expiry: Latest(exp.#) = %v, want exp.a -> %s and 3 paths", got, short.ID)
	}

	clk.Advance(2 * time.Second)
	got := latestOf("exp.#")
	if got["exp.a"] != older.ID {
		t.Errorf("after expiry: exp.a's latest is %s, want the older unexpired %s", got["exp.a"], older.ID)
	}
	if _, ok := got["exp.gone.x"]; ok || len(got) != 2 {
		t.Errorf("after expiry: Latest(exp.#) = %v, want exp.a and exp.b only", got)
	}
	ps, _, err := svc.Paths(context.Background(), "exp", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ps, []string{"exp.a", "exp.b"}) {
		t.Errorf("after expiry: Paths(exp) = %q, want [exp.a exp.b]", ps)
	}
}

func TestTreeCursorSurvivesItsPathExpiring(t *testing.T) {
	clk := newClock(time.Now())
	svc := newClockedService(t, cache.DefaultConfig(), clk)
	for _, p := range []string{"cur.a", "cur.c", "cur.d.e"} {
		mustPut(t, svc, cache.PutInput{Metadata: meta(p), TTL: ttl(3600)})
	}
	mustPut(t, svc, cache.PutInput{Metadata: meta("cur.b", "cur.b.x"), TTL: ttl(1)})

	first, page, err := svc.Paths(context.Background(), "cur", "", 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"cur.a", "cur.b", "cur.b.x"}; !slices.Equal(first, want) || page.NextCursor == "" {
		t.Fatalf("first page = %q (next %q), want %q and a cursor", first, page.NextCursor, want)
	}
	clk.Advance(2 * time.Second) // the cursor's path and its parent expire
	rest, page, err := svc.Paths(context.Background(), "cur", page.NextCursor, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"cur.c", "cur.d.e"}; !slices.Equal(rest, want) || page.NextCursor != "" {
		t.Errorf("second page = %q (next %q), want %q and no cursor", rest, page.NextCursor, want)
	}
}
