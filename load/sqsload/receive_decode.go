package sqsload

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// decodeReceiveAnswer appends the messages of a ReceiveMessage answer to
// into, keeping only MessageId and ReceiptHandle.
//
// It walks the JSON once and skips bodies and attributes byte-wise:
// encoding/json's Unmarshal validates and then decodes every byte of a
// batch of ten 1 KiB bodies, which made it the largest client-side cost of
// a receive load. Structurally malformed JSON is still an error, not a guess.
func decodeReceiveAnswer(data []byte, into []Message) ([]Message, error) {
	s := scanner{data: data}
	err := s.object(func(key []byte) error {
		if string(key) != "Messages" {
			return s.skipValue()
		}
		if s.literal("null") {
			return nil
		}
		return s.array(func() error {
			var m Message
			err := s.object(func(key []byte) error {
				switch string(key) {
				case "MessageId":
					return s.stringInto(&m.MessageID)
				case "ReceiptHandle":
					return s.stringInto(&m.ReceiptHandle)
				}
				return s.skipValue()
			})
			into = append(into, m)
			return err
		})
	})
	if err == nil {
		if s.ws(); s.i != len(s.data) {
			err = s.fail("trailing data")
		}
	}
	return into, err
}

// scanner is a cursor over one JSON document.
type scanner struct {
	data []byte
	i    int
}

func (s *scanner) fail(what string) error {
	return fmt.Errorf("ReceiveMessage answer: %s at byte %d", what, s.i)
}

func (s *scanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips whitespace and consumes c if it comes next.
func (s *scanner) next(c byte) bool {
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// literal consumes word (null, true, false) if it comes next.
func (s *scanner) literal(word string) bool {
	s.ws()
	if bytes.HasPrefix(s.data[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// object walks an object, calling member with each key once the cursor is
// at the key's value.
func (s *scanner) object(member func(key []byte) error) error {
	if !s.next('{') {
		return s.fail("want an object")
	}
	if s.next('}') {
		return nil
	}
	for {
		key, _, err := s.rawString()
		if err != nil {
			return err
		}
		if !s.next(':') {
			return s.fail("want ':'")
		}
		if err := member(key); err != nil {
			return err
		}
		if s.next('}') {
			return nil
		}
		if !s.next(',') {
			return s.fail("want ',' or '}'")
		}
	}
}

// array walks an array, calling element with the cursor at each element.
func (s *scanner) array(element func() error) error {
	if !s.next('[') {
		return s.fail("want an array")
	}
	if s.next(']') {
		return nil
	}
	for {
		if err := element(); err != nil {
			return err
		}
		if s.next(']') {
			return nil
		}
		if !s.next(',') {
			return s.fail("want ',' or ']'")
		}
	}
}

// rawString consumes a string and returns its bytes between the quotes and
// whether they hold escapes.
func (s *scanner) rawString() (raw []byte, escaped bool, err error) {
	if !s.next('"') {
		return nil, false, s.fail("want a string")
	}
	// Local copies keep the loop in registers: bodies are most of the bytes.
	data, start := s.data, s.i
	for i := start; i < len(data); i++ {
		c := data[i]
		if c > '\\' {
			continue
		}
		switch {
		case c == '"':
			s.i = i + 1
			return data[start:i], escaped, nil
		case c == '\\':
			escaped = true
			i++
		case c < 0x20:
			s.i = i
			return nil, false, s.fail("control character in a string")
		}
	}
	s.i = len(data)
	return nil, false, s.fail("unterminated string")
}

// stringInto consumes a string value into dst; null leaves dst empty.
func (s *scanner) stringInto(dst *string) error {
	if s.literal("null") {
		return nil
	}
	start := s.i
	raw, escaped, err := s.rawString()
	if err != nil {
		return err
	}
	if !escaped {
		*dst = string(raw)
		return nil
	}
	// Escapes are rare in ids and handles; let encoding/json undo them.
	if err := json.Unmarshal(bytes.TrimLeft(s.data[start:s.i], " \t\r\n"), dst); err != nil {
		return s.fail("bad string escape")
	}
	return nil
}

// skipValue consumes any value.
func (s *scanner) skipValue() error {
	s.ws()
	if s.i >= len(s.data) {
		return s.fail("want a value")
	}
	switch c := s.data[s.i]; c {
	case '"':
		_, _, err := s.rawString()
		return err
	case '{':
		return s.object(func([]byte) error { return s.skipValue() })
	case '[':
		return s.array(s.skipValue)
	default:
		// A number or true/false/null: up to the next delimiter.
		start := s.i
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if s.i == start {
					return s.fail("want a value")
				}
				return nil
			}
			s.i++
		}
		return nil
	}
}
