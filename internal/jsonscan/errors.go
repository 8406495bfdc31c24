package jsonscan

import "fmt"

// SyntaxError reports where and why the text could not be read.
type SyntaxError struct {
	Offset int    // byte offset in the text at which the problem was found
	Reason string // short description, e.g. "expected string, found number"
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.Offset, e.Reason)
}
