package herald

import (
	"strconv"
	"unicode/utf8"
)

// Bounds on client input echoed in error messages.
const (
	// ClipBytes is the most bytes of one echoed value Clip keeps.
	ClipBytes = 200
	// ClipMessageBytes is the most bytes of a whole client-facing error
	// message ClipMessage keeps.
	ClipMessageBytes = 1024
)

// Clip bounds a piece of client input (a name, a URL, a value) that an
// error message repeats back to the client. A string of at most ClipBytes
// bytes is returned unchanged; a longer one is cut to its first ClipBytes
// bytes or fewer, on a UTF-8 rune boundary, and followed by "…(N bytes)"
// where N is the length of s. An error message then stays small however
// large the request was.
func Clip(s string) string { return clip(s, ClipBytes) }

// ClipMessage bounds a whole client-facing error message in the same way
// as Clip, keeping at most ClipMessageBytes bytes of it. Protocol edges
// apply it where they write error messages, as a safety net for messages
// built from input that was not clipped.
func ClipMessage(s string) string { return clip(s, ClipMessageBytes) }

// clip keeps at most limit bytes of s, ending on a rune boundary, and
// appends the original length when anything was cut.
func clip(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	// In valid UTF-8 a rune starts at most UTFMax-1 bytes before any
	// position; input that is not UTF-8 is cut at the limit.
	for back := 0; back < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(s[cut]); back++ {
		cut--
	}
	if !utf8.RuneStart(s[cut]) {
		cut = limit
	}
	return s[:cut] + "…(" + strconv.Itoa(len(s)) + " bytes)"
}
