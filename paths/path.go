package paths

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on paths and patterns.
const (
	MaxWords     = 32  // most words in a path or pattern
	MaxBytes     = 512 // longest path or pattern, dots included
	MaxWordBytes = 128 // longest single word
)

// Error reports why a path or pattern is invalid.
type Error struct {
	Input  string // the rejected path or pattern
	Reason string // what is wrong with it, naming the word or byte position
}

// maxShown bounds how much of the input Error quotes, so that a hostile
// 100 KB input does not end up verbatim in a log line.
const maxShown = 80

func (e *Error) Error() string {
	in := e.Input
	if len(in) > maxShown {
		in = in[:maxShown] + "..."
	}
	return fmt.Sprintf("paths: %q: %s", in, e.Reason)
}

// wordByte marks the bytes allowed in a literal word.
var wordByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	t['_'], t[':'], t['-'] = true, true, true
	return t
}()

// Validate reports whether path is a well-formed path. It returns nil or an
// *[Error]. Wildcards are not allowed in paths.
func Validate(path string) error { return validate(path, false) }

// ValidatePattern reports whether pattern is a well-formed pattern. It returns
// nil or an *[Error]. Every valid path is also a valid pattern.
func ValidatePattern(pattern string) error { return validate(pattern, true) }

func validate(s string, pattern bool) error {
	kind := "path"
	if pattern {
		kind = "pattern"
	}
	fail := func(format string, args ...any) error {
		return &Error{Input: s, Reason: kind + " " + fmt.Sprintf(format, args...)}
	}
	if s == "" {
		return fail("is empty")
	}
	if len(s) > MaxBytes {
		return fail("is %d bytes long; the limit is %d", len(s), MaxBytes)
	}
	if n := strings.Count(s, ".") + 1; n > MaxWords {
		return fail("has %d words; the limit is %d", n, MaxWords)
	}
	start := 0
	for i := 1; ; i++ {
		end := strings.IndexByte(s[start:], '.')
		last := end < 0
		if last {
			end = len(s)
		} else {
			end += start
		}
		w := s[start:end]
		switch {
		case w != "":
		case i == 1:
			return fail("starts with a dot")
		case last:
			return fail("ends with a dot")
		default:
			return fail("has an empty word %d (dots at bytes %d and %d)", i, start-1, start)
		}
		if len(w) > MaxWordBytes {
			return fail("word %d is %d bytes long; the limit is %d", i, len(w), MaxWordBytes)
		}
		if !pattern || (w != "*" && w != "#") {
			if j := badByte(w); j >= 0 {
				return fail("word %d %s", i, describeBad(w, j, pattern))
			}
		}
		if last {
			return nil
		}
		start = end + 1
	}
}

// badByte returns the offset of the first byte of w not allowed in a word,
// or -1.
func badByte(w string) int {
	for j := 0; j < len(w); j++ {
		if !wordByte[w[j]] {
			return j
		}
	}
	return -1
}

// describeBad explains why byte j of word w is not allowed.
func describeBad(w string, j int, pattern bool) string {
	c := w[j]
	switch {
	case (c == '*' || c == '#') && pattern:
		return fmt.Sprintf("%q mixes the wildcard %q with other characters; a wildcard must be a whole word", w, c)
	case c == '*' || c == '#':
		return fmt.Sprintf("%q contains the wildcard %q, which only patterns may use", w, c)
	}
	r, size := utf8.DecodeRuneInString(w[j:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("has the invalid byte 0x%02x at offset %d (allowed: A-Z a-z 0-9 _ : -)", c, j)
	}
	return fmt.Sprintf("%q has the invalid character %q at offset %d (allowed: A-Z a-z 0-9 _ : -)", w, r, j)
}

// Split returns the dot-separated words of path without validating it. The
// empty string has no words.
func Split(path string) []string {
	if path == "" {
		return nil
	}
	return strings.Split(path, ".")
}

// Collection returns all words of path but the last, joined by dots: the
// collection the message lives in. It is empty for a one-word path.
func Collection(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return ""
}

// HashKey returns the last word of path: the message's key within its
// collection.
func HashKey(path string) string {
	return path[strings.LastIndexByte(path, '.')+1:]
}

// IsPattern reports whether s has a word that is a wildcard, "*" or "#". It
// does not validate s.
func IsPattern(s string) bool {
	for rest := s; ; {
		w, tail, more := strings.Cut(rest, ".")
		if w == "*" || w == "#" {
			return true
		}
		if !more {
			return false
		}
		rest = tail
	}
}
