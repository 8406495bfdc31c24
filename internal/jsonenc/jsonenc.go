// Package jsonenc writes JSON strings: Herald's one string escaper, used
// wherever JSON is written by hand (the AWS edge's hot answers, SNS
// notification envelopes, the SQS load generator). It escapes what JSON
// needs and not the HTML characters encoding/json escapes by default, and
// skips plain text eight bytes at a time (BenchmarkAppendString: 7 times
// encoding/json's speed on plain text, 1.3 times on an escape-dense JSON
// body).
package jsonenc

import (
	"slices"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped as encoding/json
// escapes it except for its HTML-safety escapes of <, > and &, which JSON
// does not need: control characters, U+2028 and U+2029 (which some
// JavaScript parsers take for line ends) are escaped, and invalid UTF-8
// becomes U+FFFD, so that the text is always valid JSON.
func AppendString(dst []byte, s string) []byte {
	dst = slices.Grow(dst, len(s)+2)
	dst = append(dst, '"')
	start := 0 // s[start:i] is plain text not yet copied
	for i := 0; i < len(s); {
		// Message bodies are mostly plain ASCII: skip it a word at a time,
		// then byte by byte up to the byte that stopped the word.
		for i+8 <= len(s) {
			w := s[i : i+8]
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			if !plainWord(x) {
				break
			}
			i += 8
		}
		for i < len(s) && plainByte[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			dst = appendEscape(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainByte marks the bytes a JSON string holds as they are and that need
// no UTF-8 decoding: printable ASCII other than '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendEscape appends the escape of the ASCII byte c: '"', '\\' or a
// control character.
func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// plainWord reports whether none of the eight bytes of x needs attention:
// no '"', '\\', control character or non-ASCII byte. It is the classic
// "has a zero byte" bit trick, applied to x xor each special byte; a
// false alarm only sends the caller the slow way.
func plainWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ (ones * '"')
	backslash := x ^ (ones * '\\')
	special := (quote-ones)&^quote |
		(backslash-ones)&^backslash |
		(x - ones*0x20) | // borrows set the high bit of bytes below 0x20
		x // non-ASCII bytes have the high bit set
	return special&highs == 0
}
