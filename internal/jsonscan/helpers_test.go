package jsonscan

import (
	"errors"
	"strings"
	"testing"
)

// wantErr describes an expected *SyntaxError; the zero value expects none.
type wantErr struct {
	offset int
	reason string // substring of the reason
}

func (w wantErr) none() bool { return w.reason == "" }

// checkErr asserts that err matches want.
func checkErr(t *testing.T, err error, want wantErr) {
	t.Helper()
	if want.none() {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error = %v, want a *SyntaxError with %q at offset %d", err, want.reason, want.offset)
	}
	if se.Offset != want.offset || !strings.Contains(se.Reason, want.reason) {
		t.Fatalf("error = %v, want %q at offset %d", err, want.reason, want.offset)
	}
}

// readAll runs read on a Reader over input, then End, and returns the
// first error.
func readAll(input string, read func(r *Reader) error) error {
	r := NewReader([]byte(input))
	if err := read(r); err != nil {
		return err
	}
	return r.End()
}
