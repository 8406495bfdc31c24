package policy

import (
	"strings"
	"unicode/utf8"
)

// match reports whether s matches pattern, in which '*' stands for any run
// of characters (none included) and '?' for exactly one; with fold, letters
// are compared ignoring case. Characters are UTF-8 sequences; a byte that
// is not valid UTF-8 counts as one character and equals only itself.
//
// The matcher is iterative: on a mismatch it returns to the last '*' seen
// and lets it take one more character. That is enough for patterns with
// only '*' and '?', and costs at most len(pattern)*len(s) steps.
func match(pattern, s string, fold bool) bool {
	p, i := 0, 0
	star, mark := -1, 0 // position after the last '*' in pattern; where its run ends in s
	for i < len(s) {
		if p < len(pattern) {
			switch pattern[p] {
			case '*':
				p++
				star, mark = p, i
				continue
			case '?':
				_, w := utf8.DecodeRuneInString(s[i:])
				p++
				i += w
				continue
			default:
				_, pw := utf8.DecodeRuneInString(pattern[p:])
				_, sw := utf8.DecodeRuneInString(s[i:])
				if sameChar(pattern[p:p+pw], s[i:i+sw], fold) {
					p += pw
					i += sw
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[mark:])
		mark += w
		p, i = star, mark
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// sameChar compares two characters, each one UTF-8 sequence or one invalid
// byte.
func sameChar(a, b string, fold bool) bool {
	if a == b {
		return true
	}
	if !fold || len(a) == 1 && a[0] >= utf8.RuneSelf || len(b) == 1 && b[0] >= utf8.RuneSelf {
		return false
	}
	return strings.EqualFold(a, b)
}

// matchARN matches an ARN against an ARN pattern part by part: both must
// have the six colon-separated parts of an ARN (the sixth may hold more
// colons), and each part of s must match the pattern's part, with
// wildcards, case-sensitively.
func matchARN(pattern, s string) bool {
	for range 5 {
		pi := strings.IndexByte(pattern, ':')
		si := strings.IndexByte(s, ':')
		if pi < 0 || si < 0 || !match(pattern[:pi], s[:si], false) {
			return false
		}
		pattern, s = pattern[pi+1:], s[si+1:]
	}
	return match(pattern, s, false)
}
