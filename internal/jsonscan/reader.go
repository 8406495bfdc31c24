package jsonscan

import (
	"bytes"
	"fmt"
)

// DefaultMaxDepth is how deeply objects and arrays may nest by default.
// Known AWS request shapes nest a handful of levels; the limit only has to
// stop hostile input from recursing without bound.
const DefaultMaxDepth = 64

// Kind is the type of a JSON value, as seen from its first byte.
type Kind uint8

const (
	Invalid Kind = iota // end of text, or a byte no value can start with
	Null
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"invalid", "null", "bool", "number", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// kindOf maps a value's first byte to its Kind; bytes no value starts with
// map to Invalid.
var kindOf = func() (t [256]Kind) {
	t['{'] = Object
	t['['] = Array
	t['"'] = String
	t['t'], t['f'] = Bool, Bool
	t['n'] = Null
	t['-'] = Number
	for c := '0'; c <= '9'; c++ {
		t[c] = Number
	}
	return t
}()

// Reader reads one JSON text. The caller drives it: each value method
// consumes exactly one value of the expected kind (skipping whitespace
// before it), and End checks that nothing but whitespace follows.
//
// The zero Reader reads an empty text; use NewReader or Reset.
type Reader struct {
	data     []byte
	pos      int // offset of the next unread byte
	depth    int // objects and arrays currently open
	maxDepth int
	err      error  // first error; every later call returns it
	scratch  []byte // reused buffer for strings with escapes
}

// NewReader returns a Reader over data with DefaultMaxDepth. Strings and
// byte slices the Reader returns may alias data, which must not change while
// they are in use.
func NewReader(data []byte) *Reader {
	r := &Reader{}
	r.Reset(data)
	return r
}

// Reset makes r read data from the start, keeping its scratch buffer.
func (r *Reader) Reset(data []byte) {
	*r = Reader{data: data, maxDepth: DefaultMaxDepth, scratch: r.scratch[:0]}
}

// SetMaxDepth sets how deeply objects and arrays may nest (at least 1).
func (r *Reader) SetMaxDepth(n int) { r.maxDepth = max(n, 1) }

// Offset is the byte offset of the next unread byte.
func (r *Reader) Offset() int { return r.pos }

// Err returns the first error the Reader met, or nil.
func (r *Reader) Err() error { return r.err }

// Errorf reports a problem with the value at the current offset, for
// callers checking the meaning of what they read (an unknown or repeated
// member, say). It does not stop the Reader; returning it from an Object or
// Array callback does.
func (r *Reader) Errorf(format string, args ...any) error {
	return &SyntaxError{Offset: r.pos, Reason: fmt.Sprintf(format, args...)}
}

func (r *Reader) fail(offset int, reason string) error {
	if r.err == nil {
		r.err = &SyntaxError{Offset: offset, Reason: reason}
	}
	return r.err
}

// keep records an error returned by a caller's callback, so the Reader stops.
func (r *Reader) keep(err error) error {
	if r.err == nil {
		r.err = err
	}
	return r.err
}

func (r *Reader) skipSpace() {
	i, data := r.pos, r.data
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	r.pos = i
}

// describe names what is at offset i, for error reasons.
func (r *Reader) describe(i int) string {
	if i >= len(r.data) {
		return "end of text"
	}
	if k := kindOf[r.data[i]]; k != Invalid {
		return k.String()
	}
	return fmt.Sprintf("character %q", r.data[i])
}

// Kind skips whitespace and reports the kind of the next value without
// consuming it. It returns Invalid at the end of the text, on a byte no
// value starts with, or after an error.
func (r *Reader) Kind() Kind {
	if r.err != nil {
		return Invalid
	}
	r.skipSpace()
	if r.pos >= len(r.data) {
		return Invalid
	}
	return kindOf[r.data[r.pos]]
}

// begin positions r at the next value and checks that it is of kind want.
func (r *Reader) begin(want Kind) error {
	if r.err != nil {
		return r.err
	}
	if got := r.Kind(); got != want {
		return r.fail(r.pos, "expected "+want.String()+", found "+r.describe(r.pos))
	}
	return nil
}

// End checks that only whitespace remains after the values read.
func (r *Reader) End() error {
	if r.err != nil {
		return r.err
	}
	r.skipSpace()
	if r.pos != len(r.data) {
		return r.fail(r.pos, "unexpected "+r.describe(r.pos)+" after top-level value")
	}
	return nil
}

// Bool reads true or false.
func (r *Reader) Bool() (bool, error) {
	if err := r.begin(Bool); err != nil {
		return false, err
	}
	rest := r.data[r.pos:]
	switch {
	case bytes.HasPrefix(rest, litTrue):
		r.pos += len(litTrue)
		return true, nil
	case bytes.HasPrefix(rest, litFalse):
		r.pos += len(litFalse)
		return false, nil
	}
	return false, r.fail(r.pos, "invalid literal")
}

// Null consumes a null if one comes next and reports whether it did; it
// consumes nothing otherwise (nor after an error).
func (r *Reader) Null() bool {
	if r.Kind() != Null || !bytes.HasPrefix(r.data[r.pos:], litNull) {
		return false
	}
	r.pos += len(litNull)
	return true
}

var (
	litTrue  = []byte("true")
	litFalse = []byte("false")
	litNull  = []byte("null")
)

// Skip consumes the next value of any kind, checking its syntax as fully as
// the typed methods would (strings included).
func (r *Reader) Skip() error {
	switch r.Kind() {
	case Object:
		return r.ObjectBytes(func([]byte) error { return r.Skip() })
	case Array:
		return r.Array(func(int) error { return r.Skip() })
	case String:
		_, _, err := r.scanString(nil, false)
		return err
	case Number:
		_, _, err := r.scanNumber()
		return err
	case Bool:
		_, err := r.Bool()
		return err
	case Null:
		if r.Null() {
			return nil
		}
		return r.fail(r.pos, "invalid literal")
	}
	if r.err != nil {
		return r.err
	}
	return r.fail(r.pos, "expected value, found "+r.describe(r.pos))
}
