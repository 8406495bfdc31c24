package policy

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxMessage bounds the length of an Error's message.
const maxMessage = 512

// newError builds an *Error for the member at path ("" for the document).
func newError(path, msg string) *Error {
	if path != "" {
		msg = path + ": " + msg
	}
	if len(msg) > maxMessage {
		cut := maxMessage - len("...")
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "..."
	}
	return &Error{Message: msg}
}

// echo quotes s for an error message in at most limit bytes of ASCII,
// shortening it with "..." when it is longer.
func echo(s string, limit int) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		_, w := utf8.DecodeRuneInString(s[i:])
		q := strconv.QuoteToASCII(s[i : i+w])
		q = q[1 : len(q)-1]
		if b.Len()+len(q) > limit-len(`..."`) {
			b.WriteString("...")
			break
		}
		b.WriteString(q)
		i += w
	}
	b.WriteByte('"')
	return b.String()
}

// name renders a member name taken from the document for a path: as it is
// when it is short and plain, quoted otherwise.
func name(s string) string {
	if s == "" || len(s) > 64 {
		return echo(s, 48)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' || c == '.' {
			return echo(s, 48)
		}
	}
	return s
}

// kindOf returns the first byte of a JSON value: '{', '[', '"', 't', 'f',
// 'n', or a digit or '-' for numbers; 0 when raw is empty.
func kindOf(raw json.RawMessage) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// describe names the type of a JSON value for an error message, quoting
// strings and short scalars.
func describe(raw json.RawMessage) string {
	switch kindOf(raw) {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return "the string " + echo(s, 80)
		}
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case 0:
		return "nothing"
	}
	return "the number " + echo(string(bytes.TrimSpace(raw)), 40)
}

// member is one name/value pair of a JSON object, in document order.
type member struct {
	name  string
	value json.RawMessage
}

// objectMembers lists the members of the JSON object raw, refusing
// anything else and names that appear twice.
func objectMembers(raw json.RawMessage, path string) ([]member, *Error) {
	if kindOf(raw) != '{' {
		return nil, newError(path, "must be an object, got "+describe(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, newError(path, "cannot be read: "+err.Error())
	}
	var out []member
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, newError(path, "cannot be read: "+err.Error())
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, newError(path, "cannot be read: "+err.Error())
		}
		if seen[key] {
			return nil, newError(path, "member "+echo(key, 60)+" appears more than once")
		}
		seen[key] = true
		out = append(out, member{name: key, value: v})
	}
	return out, nil
}

// stringValue reads a JSON string.
func stringValue(raw json.RawMessage, path string) (string, *Error) {
	if kindOf(raw) != '"' {
		return "", newError(path, "must be a string, got "+describe(raw))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", newError(path, "cannot be read: "+err.Error())
	}
	return s, nil
}

// stringList reads a non-empty string or a non-empty array of non-empty
// strings.
func stringList(raw json.RawMessage, path string) ([]string, *Error) {
	switch kindOf(raw) {
	case '"':
		s, err := stringValue(raw, path)
		if err != nil {
			return nil, err
		}
		if s == "" {
			return nil, newError(path, "must not be an empty string")
		}
		return []string{s}, nil
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, newError(path, "cannot be read: "+err.Error())
		}
		if len(items) == 0 {
			return nil, newError(path, "must not be an empty array")
		}
		out := make([]string, 0, len(items))
		for i, item := range items {
			p := path + "[" + strconv.Itoa(i) + "]"
			s, err := stringValue(item, p)
			if err != nil {
				return nil, err
			}
			if s == "" {
				return nil, newError(p, "must not be an empty string")
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, newError(path, "must be a string or an array of strings, got "+describe(raw))
}
