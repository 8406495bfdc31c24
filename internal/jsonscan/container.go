package jsonscan

// Object reads an object, calling fn with each member's unescaped name in
// order. fn reads the member's value with one value method; if fn returns
// nil without reading it, the value is skipped (still validated), so
// callers ignore members by doing nothing and reject them by returning an
// error. An error from fn stops the Reader and is returned as is.
//
// Each name is a new string; ObjectBytes avoids that allocation.
func (r *Reader) Object(fn func(name string) error) error {
	return r.ObjectBytes(func(name []byte) error { return fn(string(name)) })
}

// ObjectBytes is Object with the name as bytes, which alias the text unless
// the name contains escapes. Compare with switch string(name) { ... }, which
// does not allocate.
func (r *Reader) ObjectBytes(fn func(name []byte) error) error {
	if err := r.begin(Object); err != nil {
		return err
	}
	if err := r.open(); err != nil {
		return err
	}
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == '}' {
		return r.close()
	}
	for {
		r.skipSpace()
		if r.pos >= len(r.data) || r.data[r.pos] != '"' {
			return r.fail(r.pos, "expected member name, found "+r.describe(r.pos))
		}
		name, _, err := r.scanString(nil, true)
		if err != nil {
			return err
		}
		r.skipSpace()
		if r.pos >= len(r.data) || r.data[r.pos] != ':' {
			return r.fail(r.pos, "expected ':' after member name, found "+r.describe(r.pos))
		}
		r.pos++
		if err := r.element(func() error { return fn(name) }); err != nil {
			return err
		}
		switch r.next() {
		case ',':
			r.pos++
		case '}':
			return r.close()
		default:
			return r.fail(r.pos, "expected ',' or '}' after object member, found "+r.describe(r.pos))
		}
	}
}

// Array reads an array, calling fn with the index of each element in
// order. fn reads the element with one value method; if it returns nil
// without reading it, the element is skipped (still validated). An error
// from fn stops the Reader and is returned as is.
func (r *Reader) Array(fn func(i int) error) error {
	if err := r.begin(Array); err != nil {
		return err
	}
	if err := r.open(); err != nil {
		return err
	}
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == ']' {
		return r.close()
	}
	for i := 0; ; i++ {
		if err := r.element(func() error { return fn(i) }); err != nil {
			return err
		}
		switch r.next() {
		case ',':
			r.pos++
		case ']':
			return r.close()
		default:
			return r.fail(r.pos, "expected ',' or ']' after array element, found "+r.describe(r.pos))
		}
	}
}

// element lets read consume one value, skipping it if read did not.
func (r *Reader) element(read func() error) error {
	r.skipSpace()
	start := r.pos
	if err := read(); err != nil {
		return r.keep(err)
	}
	if r.err != nil { // read swallowed an error of ours
		return r.err
	}
	if r.pos == start {
		return r.Skip()
	}
	return nil
}

// next skips whitespace and returns the next byte, or 0 at the end.
func (r *Reader) next() byte {
	r.skipSpace()
	if r.pos >= len(r.data) {
		return 0
	}
	return r.data[r.pos]
}

// open consumes '{' or '[' and enters one nesting level.
func (r *Reader) open() error {
	if r.depth >= r.maxDepth {
		return r.fail(r.pos, "nesting too deep")
	}
	r.depth++
	r.pos++
	return nil
}

// close consumes '}' or ']' and leaves one nesting level.
func (r *Reader) close() error {
	r.depth--
	r.pos++
	return nil
}
