package paths

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// matchByState runs the State API over the words of path.
func matchByState(p Pattern, path string) bool {
	s := p.Start()
	for _, w := range Split(path) {
		s = p.Step(s, w)
	}
	return p.Accepts(s)
}

func TestStateAgreesWithMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		pat := joinWords(randWords(r, 7, testPatternAlphabet))
		path := randWords(r, 8, testPathAlphabet)
		p := MustParsePattern(pat)
		s := p.Start()
		for i, w := range path {
			s = p.Step(s, w)
			prefix := joinWords(path[:i+1])
			if got, want := p.Accepts(s), p.Match(prefix); got != want {
				t.Fatalf("%q: Accepts after %q = %v, Match = %v", pat, prefix, got, want)
			}
		}
	}
}

func TestStateEmptyPrefix(t *testing.T) {
	tests := []struct {
		pattern string
		accepts bool // matches the path of zero words
	}{
		{"#", true},
		{"#.#", true},
		{"a", false},
		{"*", false},
		{"#.a", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			p := MustParsePattern(tt.pattern)
			s := p.Start()
			if got := p.Accepts(s); got != tt.accepts {
				t.Errorf("Accepts(Start()) = %v, want %v", got, tt.accepts)
			}
			if !p.Alive(s) {
				t.Error("Start() is not alive")
			}
		})
	}
}

// TestAliveBruteForce checks Alive against trying every short continuation.
// A live state can always be finished with at most one word per non-"#"
// pattern word (and at least one word), so that length bounds the search.
func TestAliveBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := append(slices.Clone(testPathAlphabet), "zz") // "zz" is in no pattern
	for range 3000 {
		patWords := randWords(r, 5, testPatternAlphabet)
		pat := joinWords(patWords)
		p := MustParsePattern(pat)
		maxExt := 0
		for _, w := range patWords {
			if w != "#" {
				maxExt++
			}
		}
		maxExt = max(maxExt, 1)
		var prefix []string // zero to three words
		for range r.IntN(4) {
			prefix = append(prefix, alphabet[r.IntN(len(alphabet))])
		}
		s := p.Start()
		for _, w := range prefix {
			s = p.Step(s, w)
		}
		want := false
		eachExtension(alphabet, maxExt, func(ext []string) bool {
			want = refMatchWords(patWords, append(slices.Clone(prefix), ext...))
			return !want
		})
		if got := p.Alive(s); got != want {
			t.Fatalf("pattern %q after %q: Alive = %v, brute force = %v", pat, prefix, got, want)
		}
	}
}

// eachExtension calls fn with every word sequence of length 1..maxLen over
// alphabet until fn returns false.
func eachExtension(alphabet []string, maxLen int, fn func([]string) bool) {
	var rec func(ext []string) bool
	rec = func(ext []string) bool {
		if len(ext) > 0 && !fn(ext) {
			return false
		}
		if len(ext) == maxLen {
			return true
		}
		for _, w := range alphabet {
			if !rec(append(ext, w)) {
				return false
			}
		}
		return true
	}
	rec(make([]string, 0, maxLen))
}

func TestNextConsistent(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []string{"a", "b", "c", "zz"}
	for range 5000 {
		pat := joinWords(randWords(r, 6, testPatternAlphabet))
		p := MustParsePattern(pat)
		s := p.Start()
		for _, w := range randWords(r, 6, alphabet) {
			checkNext(t, p, s, alphabet)
			s = p.Step(s, w)
		}
		checkNext(t, p, s, alphabet)
	}
}

func checkNext(t *testing.T, p Pattern, s State, alphabet []string) {
	t.Helper()
	lits, any := p.Next(s)
	if !slices.IsSorted(lits) || len(slices.Compact(slices.Clone(lits))) != len(lits) {
		t.Fatalf("%q: Next literals %q are not sorted and unique", p, lits)
	}
	if !p.Alive(s) && (any || len(lits) > 0) {
		t.Fatalf("%q: dead state offers next words %q, any=%v", p, lits, any)
	}
	if any && len(lits) > 0 {
		t.Fatalf("%q: Next returned both literals and any", p)
	}
	for _, w := range alphabet {
		n := p.Step(s, w)
		dead := !p.Accepts(n) && !p.Alive(n)
		listed := slices.Contains(lits, w)
		if !any && !listed && !dead {
			t.Fatalf("%q: word %q is not offered by Next but leads to a live state", p, w)
		}
		if listed && dead {
			t.Fatalf("%q: word %q is offered by Next but leads to a dead state", p, w)
		}
	}
}

func TestNextExamples(t *testing.T) {
	tests := []struct {
		pattern string
		prefix  string
		lits    []string
		any     bool
	}{
		{"a.b", "", []string{"a"}, false},
		{"a.b", "a", []string{"b"}, false},
		{"a.b", "a.b", nil, false},
		{"a.b", "x", nil, false},
		{"a.*", "a", nil, true},
		{"#.a", "", nil, true},
		{"a.#", "a", nil, true},
		{"a.#.b", "", []string{"a"}, false},
		{"a.b.c", "a", []string{"b"}, false},
		{"#.x.y", "q.x", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" after "+tt.prefix, func(t *testing.T) {
			p := MustParsePattern(tt.pattern)
			s := p.Start()
			for _, w := range Split(tt.prefix) {
				s = p.Step(s, w)
			}
			lits, any := p.Next(s)
			if !slices.Equal(lits, tt.lits) || any != tt.any {
				t.Errorf("Next = %q, %v; want %q, %v", lits, any, tt.lits, tt.any)
			}
		})
	}
}

// TestStateWalkTree shows the intended use: walking a tree of stored paths
// and visiting only children that can lead to a match.
func TestStateWalkTree(t *testing.T) {
	stored := []string{"a.b.c", "a.b.d", "a.x.c", "b.b.c", "a.b", "a.b.c.d"}
	type tree map[string]tree
	root := tree{}
	for _, path := range stored {
		n := root
		for _, w := range Split(path) {
			if n[w] == nil {
				n[w] = tree{}
			}
			n = n[w]
		}
	}
	p := MustParsePattern("a.*.c")
	var found []string
	var walk func(n tree, s State, prefix []string)
	walk = func(n tree, s State, prefix []string) {
		if len(prefix) > 0 && p.Accepts(s) {
			found = append(found, strings.Join(prefix, "."))
		}
		if !p.Alive(s) {
			return
		}
		lits, any := p.Next(s)
		for w, child := range n {
			if any || slices.Contains(lits, w) {
				walk(child, p.Step(s, w), append(prefix, w))
			}
		}
	}
	walk(root, p.Start(), nil)
	slices.Sort(found)
	if want := []string{"a.b.c", "a.x.c"}; !slices.Equal(found, want) {
		t.Errorf("found %q, want %q", found, want)
	}
}
