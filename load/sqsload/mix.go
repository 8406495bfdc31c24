package sqsload

import (
	"fmt"
	"strconv"
	"strings"
)

// Mix is what each worker does in one cycle: Sends send calls, then
// Receives receive calls, then, when Delete is set, delete calls for every
// message it received in the cycle.
type Mix struct {
	Sends    int
	Receives int
	Delete   bool
}

// ParseMix reads a mix such as "send=1,receive=1,delete=1" (a send, a
// receive and a delete of what was received), "send" or "receive". A name
// without a count counts 1; delete takes 0 or 1, as it deletes exactly
// what the cycle received.
func ParseMix(text string) (Mix, error) {
	var m Mix
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, count, hasCount := strings.Cut(part, "=")
		n := 1
		if hasCount {
			var err error
			if n, err = strconv.Atoi(strings.TrimSpace(count)); err != nil || n < 0 {
				return Mix{}, fmt.Errorf("mix %q: %q is not a count", text, part)
			}
		}
		switch strings.TrimSpace(name) {
		case "send":
			m.Sends = n
		case "receive":
			m.Receives = n
		case "delete":
			if n > 1 {
				return Mix{}, fmt.Errorf("mix %q: delete is 0 or 1 (it deletes what the cycle received)", text)
			}
			m.Delete = n == 1
		default:
			return Mix{}, fmt.Errorf("mix %q: unknown action %q (send, receive, delete)", text, name)
		}
	}
	if m.Sends == 0 && m.Receives == 0 {
		return Mix{}, fmt.Errorf("mix %q: nothing to do; name send and/or receive", text)
	}
	if m.Delete && m.Receives == 0 {
		return Mix{}, fmt.Errorf("mix %q: delete needs receive", text)
	}
	return m, nil
}

// String renders the mix as ParseMix reads it.
func (m Mix) String() string {
	var parts []string
	if m.Sends > 0 {
		parts = append(parts, "send="+strconv.Itoa(m.Sends))
	}
	if m.Receives > 0 {
		parts = append(parts, "receive="+strconv.Itoa(m.Receives))
	}
	if m.Delete {
		parts = append(parts, "delete=1")
	}
	return strings.Join(parts, ",")
}
