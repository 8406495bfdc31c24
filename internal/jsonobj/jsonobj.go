// Package jsonobj reads JSON objects strictly: member names match exactly
// (encoding/json matches struct fields case-insensitively), a name may appear
// only once, the text must be valid UTF-8 and nothing may follow the object.
// Herald's edges use it wherever a lenient reading could let what is stored
// differ from what a client meant, or from what another JSON reader sees.
//
// It validates the text with encoding/json first, then walks the members of
// the (now known valid) object with a small scanner that only has to find
// where each value ends: one validating pass and one light pass, with no
// copies, instead of encoding/json's decoder machinery per member.
package jsonobj

import (
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
	if !json.Valid(data) {
		var v any
		if err := json.Unmarshal(data, &v); err != nil { // for its message
			return syntaxError(err)
		}
		return errors.New("invalid JSON")
	}
	i := skipSpace(data, 0)
	if data[i] != '{' {
		return errors.New("a JSON object is required")
	}
	i = skipSpace(data, i+1)
	var seen []string
	for data[i] != '}' {
		end := skipString(data, i)
		name, err := unquote(data[i:end])
		if err != nil {
			return err
		}
		for _, s := range seen {
			if s == name {
				return fmt.Errorf("member %q appears more than once", name)
			}
		}
		seen = append(seen, name)
		i = skipSpace(data, end)
		i = skipSpace(data, i+1) // the colon
		end = skipValue(data, i)
		if err := fn(name, json.RawMessage(data[i:end:end])); err != nil {
			return err
		}
		i = skipSpace(data, end)
		if data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return nil
}

// The scanners below run on text json.Valid accepted, so they only find
// boundaries and never meet malformed input.

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at data[i].
func skipString(data []byte, i int) int {
	for i++; data[i] != '"'; i++ {
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
		for ; ; i++ {
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
