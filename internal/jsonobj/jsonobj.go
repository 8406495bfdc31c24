// Package jsonobj reads JSON objects strictly: member names match exactly
// (encoding/json matches struct fields case-insensitively), a name may appear
// only once, the text must be valid UTF-8 and nothing may follow the object.
// Herald's edges use it wherever a lenient reading could let what is stored
// differ from what a client meant, or from what another JSON reader sees.
//
// It walks the object's members with a small scanner that checks the
// object's structure and string values itself and hands every other value to
// encoding/json's validator: about one pass over the text, with no copies,
// instead of encoding/json's decoder machinery per member. A fuzz test holds
// it to encoding/json's verdicts.
package jsonobj

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Members calls fn with the name and raw value of each member of the JSON
// object data, in order. The values alias data. It fails when data is not
// one valid JSON object in UTF-8, when a name repeats, or when fn fails.
func Members(data []byte, fn func(name string, value json.RawMessage) error) error {
	if !utf8.Valid(data) {
		return errors.New("the JSON text is not valid UTF-8")
	}
	members, err := split(data)
	if err != nil {
		return err
	}
	for i, m := range members {
		for _, earlier := range members[:i] {
			if earlier.name == m.name {
				return fmt.Errorf("member %q appears more than once", m.name)
			}
		}
	}
	for _, m := range members {
		if err := fn(m.name, m.value); err != nil {
			return err
		}
	}
	return nil
}

type member struct {
	name  string
	value json.RawMessage
}

// split finds the members of the object in data and checks that the whole
// text is valid JSON: the object's own structure here, each value with
// encoding/json, except strings, which checkString validates in one quick
// pass (a request's largest value is its base64 body, a string).
func split(data []byte) ([]member, error) {
	invalid := func() ([]member, error) {
		var v any
		if err := json.Unmarshal(data, &v); err != nil { // for its message
			return nil, syntaxError(err)
		}
		return nil, errors.New("a JSON object is required")
	}
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return invalid()
	}
	var members []member
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		i++
	} else {
		for {
			if i == len(data) || data[i] != '"' {
				return invalid()
			}
			end, ok := checkString(data, i)
			if !ok {
				return invalid()
			}
			name, err := unquote(data[i:end])
			if err != nil {
				return invalid()
			}
			i = skipSpace(data, end)
			if i == len(data) || data[i] != ':' {
				return invalid()
			}
			i = skipSpace(data, i+1)
			if i == len(data) {
				return invalid()
			}
			var vend int
			if data[i] == '"' {
				if vend, ok = checkString(data, i); !ok {
					return invalid()
				}
			} else {
				vend = skipValue(data, i)
				if vend > len(data) || !json.Valid(data[i:vend]) {
					return invalid()
				}
			}
			members = append(members, member{name, json.RawMessage(data[i:vend:vend])})
			i = skipSpace(data, vend)
			if i == len(data) {
				return invalid()
			}
			if data[i] == '}' {
				i++
				break
			}
			if data[i] != ',' {
				return invalid()
			}
			i = skipSpace(data, i+1)
		}
	}
	if skipSpace(data, i) != len(data) {
		return nil, errors.New("data follows the JSON object")
	}
	return members, nil
}

// checkString checks the JSON string starting at data[i] (a quote) and
// returns the index just past it: no raw control characters, only valid
// escapes. (UTF-8 validity is checked for the whole text beforehand.)
// special8 reports whether one of the eight bytes of w is a quote, a
// backslash or below 0x20 (the classic has-zero-byte test, exact about
// whether such a byte exists; checkString then looks at each byte).
func special8(w uint64) bool {
	return below(w, 0x20)|below(w^'"'*ones, 1)|below(w^'\\'*ones, 1) != 0
}

const ones, highs = 0x0101010101010101, 0x8080808080808080

// below has the high bit set in some byte when a byte of w is below n
// (n at most 0x80); below(x, 1) finds a zero byte.
func below(w, n uint64) uint64 { return (w - n*ones) & ^w & highs }

func checkString(data []byte, i int) (end int, ok bool) {
	for i++; i < len(data); i++ {
		// Eight plain bytes at a time: most of a long string (a base64
		// body) has no quote, backslash or control byte.
		for i+8 <= len(data) && !special8(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		if i == len(data) {
			break
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			i++
			if i == len(data) {
				return 0, false
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(data) {
					return 0, false
				}
				for _, h := range data[i+1 : i+5] {
					if !isHex(h) {
						return 0, false
					}
				}
				i += 4
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipValue and skipString find the end of a value; skipValue may run past
// the end of malformed text (it then returns an index beyond len(data) or
// a value json.Valid refuses), which split checks.

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at data[i].
func skipString(data []byte, i int) int {
	for i++; i < len(data) && data[i] != '"'; i++ {
		if data[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// skipValue returns the index just past the value starting at data[i].
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = skipString(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(data) + 1
	default: // number, true, false, null
		for i < len(data) && !isDelimiter(data[i]) {
			i++
		}
		return i
	}
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// unquote decodes a JSON string literal, taking the fast way when it has no
// escapes.
func unquote(lit []byte) (string, error) {
	inner := lit[1 : len(lit)-1]
	for _, c := range inner {
		if c == '\\' {
			var s string
			err := json.Unmarshal(lit, &s)
			return s, err
		}
	}
	return string(inner), nil
}

func syntaxError(err error) error {
	switch msg := err.Error(); {
	case msg == "unexpected end of JSON input":
		return errors.New("the JSON text ends early")
	case strings.Contains(msg, "after top-level value"):
		return errors.New("data follows the JSON object")
	}
	return err
}
