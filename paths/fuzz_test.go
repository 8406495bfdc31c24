package paths

import (
	"slices"
	"strings"
	"testing"
)

func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		"a", "feeds.breaking-news.12345", "s.2014-02-01T09:39Z", "", ".", "a..b",
		"a.", ".a", "a.*", "#", "a*", "caf\u00e9", "a b", strings.Repeat("a.", 40),
		strings.Repeat("x", 129),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pathErr, patErr := Validate(s), ValidatePattern(s)
		for _, err := range []error{pathErr, patErr} {
			if e, ok := err.(*Error); err != nil && (!ok || e.Input != s || e.Reason == "") {
				t.Fatalf("bad error %#v for %q", err, s)
			}
		}
		if patErr == nil {
			p, err := ParsePattern(s)
			if err != nil || p.String() != s {
				t.Fatalf("ParsePattern(%q) = %q, %v after ValidatePattern accepted it", s, p, err)
			}
			if !IsPattern(s) && pathErr != nil {
				t.Fatalf("%q is a valid pattern without wildcards but not a valid path: %v", s, pathErr)
			}
		}
		if pathErr != nil {
			return
		}
		if patErr != nil {
			t.Fatalf("valid path %q is not a valid pattern: %v", s, patErr)
		}
		if IsPattern(s) {
			t.Fatalf("valid path %q reported as a pattern", s)
		}
		words := Split(s)
		if strings.Join(words, ".") != s {
			t.Fatalf("Split(%q) = %q does not join back", s, words)
		}
		if len(words) < 1 || len(words) > MaxWords || len(s) > MaxBytes {
			t.Fatalf("%q: %d words, %d bytes accepted", s, len(words), len(s))
		}
		for _, w := range words {
			if len(w) < 1 || len(w) > MaxWordBytes || badByte(w) >= 0 {
				t.Fatalf("%q: bad word %q accepted", s, w)
			}
		}
		if got := HashKey(s); got != words[len(words)-1] {
			t.Fatalf("HashKey(%q) = %q", s, got)
		}
		if got, want := Collection(s), strings.Join(words[:len(words)-1], "."); got != want {
			t.Fatalf("Collection(%q) = %q, want %q", s, got, want)
		}
		if !MustParsePattern(s).Match(s) {
			t.Fatalf("path %q as a pattern does not match itself", s)
		}
	})
}

// fuzzPattern returns s if it is a valid pattern, else a pattern built from
// its bytes, so that no fuzz input is wasted.
func fuzzPattern(s string) string {
	if ValidatePattern(s) == nil {
		return s
	}
	return wordsFromBytes(s, testPatternAlphabet)
}

func fuzzPath(s string) string {
	if Validate(s) == nil {
		return s
	}
	return wordsFromBytes(s, testPathAlphabet)
}

func FuzzPatternMatch(f *testing.F) {
	for _, c := range matchCases {
		f.Add(c.pattern, c.path)
	}
	f.Add("\x04\x04\x00\x04", "\x00\x00\x00")
	f.Fuzz(func(t *testing.T, pat, path string) {
		pat, path = fuzzPattern(pat), fuzzPath(path)
		p := MustParsePattern(pat)
		got := p.Match(path)
		if want := refMatch(pat, path); got != want {
			t.Fatalf("%q.Match(%q) = %v, reference says %v", pat, path, got, want)
		}
		s := p.Start()
		words := Split(path)
		for i, w := range words {
			lits, any := p.Next(s)
			next := p.Step(s, w)
			if !any && !slices.Contains(lits, w) && (p.Alive(next) || p.Accepts(next)) {
				t.Fatalf("%q after %q: Next = %q, false, yet %q keeps it alive", pat, words[:i], lits, w)
			}
			if !p.Alive(s) && (p.Alive(next) || p.Accepts(next)) {
				t.Fatalf("%q after %q: dead state came back to life", pat, words[:i])
			}
			s = next
		}
		if p.Accepts(s) != got {
			t.Fatalf("%q on %q: State API says %v, Match says %v", pat, path, p.Accepts(s), got)
		}
	})
}

type fuzzPair struct {
	pattern string
	value   int
}

func FuzzIndex(f *testing.F) {
	f.Add("a.b.c a.* # #.# a.#.# #.a.#", "a.b.c", uint8(0))
	f.Add("*.# #.* *.*.# #.b.#", "a.b", uint8(3))
	f.Add("\x04\x04 \x04\x00\x04 \x03\x04\x03", "\x00\x00\x00\x00", uint8(5))
	f.Fuzz(func(t *testing.T, patterns, path string, removeMask uint8) {
		path = fuzzPath(path)
		x := NewIndex[fuzzPair]()
		var pairs []fuzzPair
		for i, field := range strings.Fields(patterns) {
			if i == 64 {
				break
			}
			pair := fuzzPair{fuzzPattern(field), i % 3} // values repeat across patterns
			p := MustParsePattern(pair.pattern)
			x.Add(p, pair)
			x.Add(p, pair) // no effect
			if !slices.Contains(pairs, pair) {
				pairs = append(pairs, pair)
			}
		}
		check := func(stage string) {
			t.Helper()
			if x.Len() != len(pairs) {
				t.Fatalf("%s: Len = %d, want %d", stage, x.Len(), len(pairs))
			}
			seen := map[fuzzPair]int{}
			x.Match(path, func(v fuzzPair) { seen[v]++ })
			for _, pair := range pairs {
				want := 0
				if refMatch(pair.pattern, path) {
					want = 1
				}
				if seen[pair] != want {
					t.Fatalf("%s: %q on %q reported %d times, want %d", stage, pair.pattern, path, seen[pair], want)
				}
				delete(seen, pair)
			}
			if len(seen) > 0 {
				t.Fatalf("%s: reported pairs never added: %v", stage, seen)
			}
		}
		check("after Add")
		kept := pairs[:0]
		for i, pair := range pairs {
			if removeMask&(1<<(i%8)) != 0 {
				if !x.Remove(MustParsePattern(pair.pattern), pair) {
					t.Fatalf("Remove(%q, %d) = false", pair.pattern, pair.value)
				}
			} else {
				kept = append(kept, pair)
			}
		}
		pairs = kept
		check("after Remove")
		if len(pairs) == 0 && x.root != nil && !x.root.empty() {
			t.Fatal("trie not pruned after removing every pair")
		}
	})
}
