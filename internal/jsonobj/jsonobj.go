// Package jsonobj reads JSON objects strictly: member names match exactly
// (encoding/json matches struct fields case-insensitively), a name may appear
// only once, the text must be valid UTF-8 and nothing may follow the object.
// Herald's edges use it wherever a lenient reading could let what is stored
// differ from what a client meant, or from what another JSON reader sees.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Members calls fn with the name and raw value of each member of the JSON
// object data, in order. It fails when data is not one valid JSON object in
// UTF-8, when a name repeats, or when fn fails.
func Members(data []byte, fn func(name string, value json.RawMessage) error) error {
	if !utf8.Valid(data) {
		return errors.New("the JSON text is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil {
		return syntaxError(err)
	} else if tok != json.Delim('{') {
		return errors.New("a JSON object is required")
	}
	var seen []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return syntaxError(err)
		}
		name := tok.(string) // inside an object, More() means a member name follows
		for _, s := range seen {
			if s == name {
				return fmt.Errorf("member %q appears more than once", name)
			}
		}
		seen = append(seen, name)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return syntaxError(err)
		}
		if err := fn(name, value); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return syntaxError(err)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return errors.New("data follows the JSON object")
	}
	return nil
}

func syntaxError(err error) error {
	if err.Error() == "EOF" {
		return errors.New("the JSON text ends early")
	}
	return err
}
