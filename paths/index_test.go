package paths

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// collect returns the values Match reports for path, sorted.
func collect[V comparable](x *Index[V], path string, less func(a, b V) int) []V {
	var got []V
	x.Match(path, func(v V) { got = append(got, v) })
	slices.SortFunc(got, less)
	return got
}

func cmpInt(a, b int) int { return a - b }

func TestIndexAddRemoveLen(t *testing.T) {
	x := NewIndex[int]()
	ab, aStar, hash := MustParsePattern("a.b"), MustParsePattern("a.*"), MustParsePattern("#")
	steps := []struct {
		name string
		do   func() bool // returns what Remove returned; Add returns true
		len  int
		ab   []int // values matching "a.b" afterwards
	}{
		{"add a.b 1", func() bool { x.Add(ab, 1); return true }, 1, []int{1}},
		{"add a.b 1 again", func() bool { x.Add(ab, 1); return true }, 1, []int{1}},
		{"add a.b 2", func() bool { x.Add(ab, 2); return true }, 2, []int{1, 2}},
		{"add a.* 3", func() bool { x.Add(aStar, 3); return true }, 3, []int{1, 2, 3}},
		{"add # 1", func() bool { x.Add(hash, 1); return true }, 4, []int{1, 1, 2, 3}},
		{"remove a.b 1", func() bool { return x.Remove(ab, 1) }, 3, []int{1, 2, 3}},
		{"remove a.b 1 again", func() bool { return !x.Remove(ab, 1) }, 3, []int{1, 2, 3}},
		{"remove a.* 2 (absent)", func() bool { return !x.Remove(aStar, 2) }, 3, []int{1, 2, 3}},
		{"remove unknown pattern", func() bool { return !x.Remove(MustParsePattern("q.r.s"), 1) }, 3, []int{1, 2, 3}},
		{"remove a.b 2", func() bool { return x.Remove(ab, 2) }, 2, []int{1, 3}},
		{"remove a.* 3", func() bool { return x.Remove(aStar, 3) }, 1, []int{1}},
		{"remove # 1", func() bool { return x.Remove(hash, 1) }, 0, nil},
	}
	for _, st := range steps {
		if !st.do() {
			t.Fatalf("%s: Remove reported the wrong result", st.name)
		}
		if got := x.Len(); got != st.len {
			t.Fatalf("%s: Len = %d, want %d", st.name, got, st.len)
		}
		if got := collect(x, "a.b", cmpInt); !slices.Equal(got, st.ab) {
			t.Fatalf("%s: Match(a.b) = %v, want %v", st.name, got, st.ab)
		}
	}
	if x.root != nil && !x.root.empty() {
		t.Error("trie nodes were not pruned after removing everything")
	}
}

func TestIndexZeroValues(t *testing.T) {
	var x Index[int] // the zero Index is ready to use
	if x.Len() != 0 || x.Remove(MustParsePattern("a"), 1) {
		t.Error("zero Index is not empty")
	}
	x.Match("a", func(int) { t.Error("zero Index reported a value") })
	x.Add(Pattern{}, 1)
	if x.Len() != 0 || x.Remove(Pattern{}, 1) {
		t.Error("the zero Pattern should be ignored")
	}
	x.Add(MustParsePattern("#"), 7)
	if got := collect(&x, "a.b", cmpInt); !slices.Equal(got, []int{7}) {
		t.Errorf("Match = %v, want [7]", got)
	}
}

func TestIndexPrunesOnlyEmptyNodes(t *testing.T) {
	x := NewIndex[string]()
	for _, p := range []string{"a", "a.b.c", "a.#.c", "a.*"} {
		x.Add(MustParsePattern(p), p)
	}
	x.Remove(MustParsePattern("a.b.c"), "a.b.c")
	x.Remove(MustParsePattern("a.#.c"), "a.#.c")
	a := x.root.child("a", false)
	if a == nil || len(a.edges) != 0 || a.wild(true) != nil || a.wild(false) == nil {
		t.Fatalf("after removals node a = %+v; want only its * child and value", a)
	}
	for _, tt := range []struct {
		path string
		want []string
	}{{"a", []string{"a"}}, {"a.b", []string{"a.*"}}, {"a.b.c", nil}} {
		if got := collect(x, tt.path, cmpString); !slices.Equal(got, tt.want) {
			t.Errorf("Match(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestIndexReportsOnce uses patterns whose "#" words can split a path in
// many ways; each matching pattern must still be reported exactly once.
func TestIndexReportsOnce(t *testing.T) {
	patterns := []string{
		"#", "#.#", "#.#.#.#", "a.#", "a.#.#", "#.a", "#.a.#", "#.a.#.a.#",
		"#.*.#", "*.#.*", "a.#.a", "#.#.a.#.#", "b.#", "#.b.#",
	}
	x := NewIndex[string]()
	for _, p := range patterns {
		x.Add(MustParsePattern(p), p)
	}
	for _, path := range []string{"a", "a.a", "a.a.a.a", "a.b.a.b.a", "b", "c.c.c"} {
		t.Run(path, func(t *testing.T) {
			var want []string
			for _, p := range patterns {
				if refMatch(p, path) {
					want = append(want, p)
				}
			}
			slices.Sort(want)
			if got := collect(x, path, cmpString); !slices.Equal(got, want) {
				t.Errorf("Match = %q\nwant    %q", got, want)
			}
		})
	}
}

// TestIndexManyHashes makes many "#" nodes live at once, so that the
// duplicate check switches to its map, and keeps the walk polynomial.
func TestIndexManyHashes(t *testing.T) {
	x := NewIndex[string]()
	var patterns []string
	for i := range 40 {
		p := fmt.Sprintf("#.w%d.#.x.#", i)
		patterns = append(patterns, p)
		x.Add(MustParsePattern(p), p)
	}
	patterns = append(patterns, "#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.z")
	x.Add(MustParsePattern(patterns[len(patterns)-1]), patterns[len(patterns)-1])
	path := "w1.w2.w3.x.w4.x.w5.w6.w7.w8.w9.w10.w11.w12.w13.w14.w15.x.x.x.y.y.y.y.y.y.y.y.y.y.y.x"
	var want []string
	for _, p := range patterns {
		if refMatch(p, path) {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	if got := collect(x, path, cmpString); !slices.Equal(got, want) {
		t.Errorf("Match = %q\nwant    %q", got, want)
	}
}

func TestIndexManyValues(t *testing.T) {
	x := NewIndex[int]()
	p := MustParsePattern("feeds.*")
	for i := range 1000 {
		x.Add(p, i)
		x.Add(p, i) // duplicates are ignored in the map form too
	}
	for i := 0; i < 1000; i += 2 {
		if !x.Remove(p, i) {
			t.Fatalf("Remove(%d) = false", i)
		}
	}
	got := collect(x, "feeds.x", cmpInt)
	if len(got) != 500 || x.Len() != 500 {
		t.Fatalf("got %d values, Len %d; want 500", len(got), x.Len())
	}
	for i, v := range got {
		if v != 2*i+1 {
			t.Fatalf("value %d = %d, want %d", i, v, 2*i+1)
		}
	}
	for i := 1; i < 1000; i += 2 {
		x.Remove(p, i)
	}
	if x.Len() != 0 || (x.root != nil && !x.root.empty()) {
		t.Error("index not empty after removing every value")
	}
}

func TestIndexRandomAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for round := range 50 {
		x := NewIndex[int]()
		var patterns []string
		for i := range 60 {
			p := joinWords(randWords(r, 6, testPatternAlphabet))
			patterns = append(patterns, p)
			x.Add(MustParsePattern(p), i)
		}
		// Remove a third so that pruning is exercised too.
		removed := map[int]bool{}
		for i := range patterns {
			if r.IntN(3) == 0 {
				removed[i] = true
				if !x.Remove(MustParsePattern(patterns[i]), i) {
					t.Fatalf("round %d: Remove(%q, %d) = false", round, patterns[i], i)
				}
			}
		}
		if x.Len() != len(patterns)-len(removed) {
			t.Fatalf("round %d: Len = %d, want %d", round, x.Len(), len(patterns)-len(removed))
		}
		for range 100 {
			path := joinWords(randWords(r, 7, testPathAlphabet))
			var want []int
			for i, p := range patterns {
				if !removed[i] && refMatch(p, path) {
					want = append(want, i)
				}
			}
			if got := collect(x, path, cmpInt); !slices.Equal(got, want) {
				t.Fatalf("round %d: Match(%q) = %v, want %v", round, path, got, want)
			}
		}
	}
}

func TestIndexConcurrent(t *testing.T) {
	x := NewIndex[int]()
	stable := MustParsePattern("a.#")
	x.Add(stable, -1)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			p := MustParsePattern(fmt.Sprintf("a.*.g%d", g))
			for i := range 500 {
				x.Add(p, i)
				if i%2 == 0 {
					x.Remove(p, i)
				}
			}
		})
		wg.Go(func() {
			for range 500 {
				seen := false
				x.Match("a.b.c", func(v int) { seen = seen || v == -1 })
				if !seen {
					t.Error("a stable pattern was not reported")
					return
				}
			}
		})
	}
	wg.Wait()
	if want := 1 + 4*250; x.Len() != want {
		t.Errorf("Len = %d, want %d", x.Len(), want)
	}
}

func TestIndexMatchDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	x := NewIndex[int]()
	for i, p := range []string{"a.b.c", "a.*.c", "a.#", "#.c", "#.b.#"} {
		x.Add(MustParsePattern(p), i)
	}
	n := 0
	count := func(int) { n++ }
	x.Match("a.b.c", count) // warm the scratch pool
	allocs := testing.AllocsPerRun(100, func() { x.Match("a.b.c", count) })
	if allocs > 0 {
		t.Errorf("Match allocates %.1f times per call", allocs)
	}
}
