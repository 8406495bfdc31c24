package awsapi

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// jsonResponse is the body of a successful JSON 1.0 answer.
type jsonResponse interface {
	appendJSON(dst []byte) ([]byte, error)
}

// marshaled answers with encoding/json's rendering of v: the rarely called
// actions, where a hand-written encoder would buy nothing.
type marshaled struct{ v any }

func (m marshaled) appendJSON(dst []byte) ([]byte, error) {
	data, err := json.Marshal(m.v)
	return append(dst, data...), err
}

// emptyResult is the {} of actions that answer nothing.
type emptyResult struct{}

func (emptyResult) appendJSON(dst []byte) ([]byte, error) { return append(dst, "{}"...), nil }

// jsonBuffers holds response buffers. Buffers that grew past
// maxPooledBuffer (a receive of large messages) are left to the
// collector rather than pinned in the pool.
var jsonBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

const maxPooledBuffer = 1 << 20

// writeJSONResponse renders resp into a pooled buffer and writes it with
// its Content-Length, so that net/http neither chunks nor buffers twice.
func writeJSONResponse(w http.ResponseWriter, status int, resp jsonResponse) error {
	bp := jsonBuffers.Get().(*[]byte)
	body, err := resp.appendJSON((*bp)[:0])
	if err == nil {
		writeJSONBody(w, status, body)
	}
	if cap(body) <= maxPooledBuffer {
		*bp = body[:0]
		jsonBuffers.Put(bp)
	}
	return err
}

func writeJSONBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", jsonContentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// appendMember appends "name": to dst, after a comma unless it opens the
// object. Names are constants that need no escaping.
func appendMember(dst []byte, name string) []byte {
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}

// appendStringMember appends "name":"value".
func appendStringMember(dst []byte, name, value string) []byte {
	return appendString(appendMember(dst, name), value)
}

// appendOptionalString appends "name":"value" unless value is empty, as
// encoding/json's omitempty does.
func appendOptionalString(dst []byte, name, value string) []byte {
	if value == "" {
		return dst
	}
	return appendStringMember(dst, name, value)
}

// appendStringMap appends m as an object with its names in order, as
// encoding/json renders maps.
func appendStringMap(dst []byte, m map[string]string) []byte {
	var buf [16]string
	names := buf[:0]
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	dst = append(dst, '{')
	for i, name := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, name)
		dst = append(dst, ':')
		dst = appendString(dst, m[name])
	}
	return append(dst, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json
// escapes it except for its HTML-safety escapes of <, > and &, which JSON
// does not need: control characters, U+2028 and U+2029 (which some
// JavaScript parsers take for line ends) are escaped, and invalid UTF-8
// becomes U+FFFD, so that the text is always valid JSON.
func appendString(dst []byte, s string) []byte {
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

// appendBase64 appends b as a base64 JSON string, as encoding/json renders
// []byte.
func appendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}
