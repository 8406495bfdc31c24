package jsonscan

import (
	"encoding/binary"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// String reads a string and returns it unescaped. The text must be valid
// UTF-8 (see the package doc for escapes).
func (r *Reader) String() (string, error) {
	if err := r.begin(String); err != nil {
		return "", err
	}
	s, decoded, err := r.scanString(r.scratch[:0], true)
	if err != nil {
		return "", err
	}
	if decoded {
		r.scratch = s[:0] // keep a grown buffer for the next escaped string
	}
	return string(s), nil
}

// StringBytes reads a string and returns it unescaped, as bytes that alias
// the text when the string has no escapes and are newly allocated when it
// has. The caller must not modify them.
func (r *Reader) StringBytes() ([]byte, error) {
	if err := r.begin(String); err != nil {
		return nil, err
	}
	s, _, err := r.scanString(nil, true)
	return s, err
}

// Word masks for finding, eight bytes at a time, the bytes a string scan
// must stop at: '"', '\\', control characters and non-ASCII bytes.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainWord reports whether none of the eight bytes in w needs attention.
func plainWord(w uint64) bool {
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	special := (quote-ones) & ^quote |
		(backslash-ones) & ^backslash |
		(w - ones*0x20) |
		w
	return special&highs == 0
}

// scanString consumes the string starting at r.pos (at its opening quote)
// and returns its content. Without escapes the content aliases the text;
// with them, and when decode is set, it is decoded by appending to dst.
// When decode is unset escapes are only checked and the result is nil.
// decoded reports whether the content was built in dst.
func (r *Reader) scanString(dst []byte, decode bool) (content []byte, decoded bool, err error) {
	data := r.data
	open := r.pos
	i := open + 1
	run := i         // start of the bytes not yet copied to dst
	escaped := false // whether dst holds the decoded prefix
	for {
		for i+8 <= len(data) && plainWord(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		if i >= len(data) {
			return nil, false, r.fail(open, "unterminated string")
		}
		switch c := data[i]; {
		case c == '"':
			r.pos = i + 1
			switch {
			case !decode:
				return nil, false, nil
			case escaped:
				return append(dst, data[run:i]...), true, nil
			}
			return data[open+1 : i], false, nil
		case c == '\\':
			if decode {
				dst = append(dst, data[run:i]...)
				escaped = true
			}
			next, decoded, err := r.escape(i, dst, decode)
			if err != nil {
				return nil, false, err
			}
			i, run, dst = next, next, decoded
		case c < 0x20:
			return nil, false, r.fail(i, "control character in string")
		case c < utf8.RuneSelf:
			i++
		default:
			_, size := utf8.DecodeRune(data[i:])
			if size == 1 { // RuneError of width 1: not UTF-8
				return nil, false, r.fail(i, "invalid UTF-8 in string")
			}
			i += size
		}
	}
}

// escape decodes the escape sequence at data[i] (a backslash), appending
// it to dst when decode is set, and returns the offset after it.
func (r *Reader) escape(i int, dst []byte, decode bool) (int, []byte, error) {
	data := r.data
	if i+1 >= len(data) {
		return 0, nil, r.fail(i, "unterminated string")
	}
	var c byte
	switch data[i+1] {
	case '"', '\\', '/':
		c = data[i+1]
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'u':
		return r.unicodeEscape(i, dst, decode)
	default:
		return 0, nil, r.fail(i, "invalid escape in string")
	}
	if decode {
		dst = append(dst, c)
	}
	return i + 2, dst, nil
}

// unicodeEscape decodes \uXXXX at data[i], joining a UTF-16 surrogate pair
// written as two escapes. Like encoding/json, it turns a surrogate that is
// not part of a valid pair into U+FFFD and leaves the escape after it to be
// decoded on its own.
func (r *Reader) unicodeEscape(i int, dst []byte, decode bool) (int, []byte, error) {
	r1, ok := hex4(r.data, i)
	if !ok {
		return 0, nil, r.fail(i, "invalid \\u escape in string")
	}
	next := i + 6
	if utf16.IsSurrogate(r1) {
		r2, ok := hex4(r.data, next)
		if pair := utf16.DecodeRune(r1, r2); ok && pair != unicode.ReplacementChar {
			r1, next = pair, next+6
		} else {
			r1 = unicode.ReplacementChar
		}
	}
	if decode {
		dst = utf8.AppendRune(dst, r1)
	}
	return next, dst, nil
}

// hex4 decodes the escape \uXXXX at data[i], if there is one.
func hex4(data []byte, i int) (rune, bool) {
	if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
		return 0, false
	}
	var v rune
	for _, c := range data[i+2 : i+6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | rune(c)
	}
	return v, true
}
