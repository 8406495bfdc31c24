package paths

import (
	"math/bits"
	"strings"
)

// Pattern is a parsed, validated pattern. The zero Pattern matches nothing.
// Patterns are immutable and safe to share between goroutines.
type Pattern struct {
	s     string
	words []string // the words of s; "*" and "#" are wildcards
	star  uint64   // bit i set: words[i] is "*"
	hash  uint64   // bit i set: words[i] is "#"
}

// ParsePattern validates s and parses it. Every valid path is a valid
// pattern that matches only itself.
func ParsePattern(s string) (Pattern, error) {
	if err := ValidatePattern(s); err != nil {
		return Pattern{}, err
	}
	p := Pattern{s: s, words: strings.Split(s, ".")}
	for i, w := range p.words {
		switch w {
		case "*":
			p.star |= 1 << i
		case "#":
			p.hash |= 1 << i
		}
	}
	return p, nil
}

// MustParsePattern is like [ParsePattern] but panics if s is invalid. It is
// meant for patterns fixed in source code.
func MustParsePattern(s string) Pattern {
	p, err := ParsePattern(s)
	if err != nil {
		panic(err)
	}
	return p
}

// String returns the pattern as written.
func (p Pattern) String() string { return p.s }

// literal reports whether p has no wildcards.
func (p Pattern) literal() bool { return p.star|p.hash == 0 }

// LiteralPrefix returns the words before the first wildcard: every matching
// path starts with them. For a pattern without wildcards it is all words. The
// caller owns the returned slice.
func (p Pattern) LiteralPrefix() []string {
	n := bits.TrailingZeros64(p.star | p.hash)
	if n > len(p.words) {
		n = len(p.words)
	}
	return append([]string(nil), p.words[:n]...)
}

// Match reports whether path matches p. The path is assumed to be valid (see
// [Validate]); for other input the answer is meaningless but Match is safe.
func (p Pattern) Match(path string) bool {
	switch {
	case p.words == nil:
		return false
	case p.literal():
		return path == p.s
	case path == "":
		return p.Accepts(p.Start()) // zero words; only "#" runs accept
	case p.hash == 0:
		return p.matchFixed(path)
	case p.hash&(p.hash-1) == 0:
		return p.matchOneHash(path)
	}
	s := p.Start()
	for rest, more := path, true; more && s.set != 0; {
		var w string
		w, rest, more = strings.Cut(rest, ".")
		s = p.Step(s, w)
	}
	return p.Accepts(s)
}

// takes reports whether pattern word i accepts path word w.
func (p Pattern) takes(i int, w string) bool {
	return p.star&(1<<i) != 0 || p.words[i] == w
}

// matchFixed matches a pattern without "#": word for word.
func (p Pattern) matchFixed(path string) bool {
	rest := path
	for i := range p.words {
		w, tail, more := strings.Cut(rest, ".")
		if !p.takes(i, w) {
			return false
		}
		if more != (i < len(p.words)-1) {
			return false // path is longer or shorter than the pattern
		}
		rest = tail
	}
	return true
}

// matchOneHash matches a pattern with a single "#": the words before it must
// match the start of the path, the words after it the end, and the "#" takes
// whatever lies between.
func (p Pattern) matchOneHash(path string) bool {
	k, n := bits.TrailingZeros64(p.hash), len(p.words)
	if strings.Count(path, ".")+1 < n-1 {
		return false // too short for the words around the "#"
	}
	rest := path
	for i := 0; i < k; i++ {
		w, tail, _ := strings.Cut(rest, ".")
		if !p.takes(i, w) {
			return false
		}
		rest = tail
	}
	for i := n - 1; i > k; i-- {
		j := strings.LastIndexByte(rest, '.')
		if !p.takes(i, rest[j+1:]) {
			return false
		}
		rest = rest[:max(j, 0)]
	}
	return true
}
