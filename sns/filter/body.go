package filter

import (
	"errors"

	"github.com/heraldmq/herald/internal/jsonscan"
)

// maxBodyDepth bounds how deeply a body may nest, as encoding/json does.
const maxBodyDepth = 10000

// MatchBody reports whether a message body satisfies the policy. The body
// must be a JSON object of valid UTF-8; anything else matches no policy
// (except the empty one).
func (p *Policy) MatchBody(body string) bool {
	if p == nil || p.root == nil {
		return true
	}
	var d bodyDecoder
	d.r.Reset([]byte(body))
	d.r.SetMaxDepth(maxBodyDepth)
	if d.r.Kind() != jsonscan.Object {
		return false
	}
	doc, err := d.value(&member{sub: p.shape})
	if err != nil || d.r.End() != nil || doc.size == 0 {
		return false
	}
	return p.root.matchObject(&doc)
}

// jvalue is a decoded body value, reduced to what the policy reads.
type jvalue struct {
	value       // scalar, when kind is set
	object bool // an object: names and items are its members read
	array  bool // an array: items are its elements
	names  []string
	items  []jvalue
	size   int // members of an object, read or not
}

type bodyDecoder struct {
	r jsonscan.Reader
}

var errNotRead = errors.New("filter: unsupported JSON value")

// value decodes the next value as m reads it: objects keep only the members
// m.sub names.
func (d *bodyDecoder) value(m *member) (jvalue, error) {
	switch d.r.Kind() {
	case jsonscan.String:
		s, err := d.r.String()
		return jvalue{value: value{kind: kString, s: s}}, err
	case jsonscan.Number:
		text, err := d.r.Number()
		if err != nil {
			return jvalue{}, err
		}
		f, _ := parseNumber(string(text)) // syntax checked; ±Inf beyond float64
		return jvalue{value: value{kind: kNumber, n: canonical(f)}}, nil
	case jsonscan.Bool:
		b, err := d.r.Bool()
		return jvalue{value: value{kind: kBool, b: b}}, err
	case jsonscan.Null:
		if d.r.Null() {
			return jvalue{value: value{kind: kNull}}, nil
		}
	case jsonscan.Array:
		v := jvalue{array: true}
		err := d.r.Array(func(int) error {
			e, err := d.value(m)
			v.items = append(v.items, e)
			return err
		})
		return v, err
	case jsonscan.Object:
		v := jvalue{object: true}
		if m.sub == nil {
			return v, d.r.Skip() // not a leaf, and nothing below is read
		}
		err := d.r.ObjectBytes(func(name []byte) error {
			v.size++
			sub := m.sub.keys[string(name)]
			if sub == nil {
				return nil // skipped (and validated) by the Reader
			}
			key := string(name)
			e, err := d.value(sub)
			v.names = append(v.names, key)
			v.items = append(v.items, e)
			return err
		})
		return v, err
	}
	if err := d.r.Skip(); err != nil {
		return jvalue{}, err
	}
	return jvalue{}, errNotRead
}

// lookup returns the member of an object named key; the last one wins when
// a name repeats.
func (v *jvalue) lookup(key string) (*jvalue, bool) {
	for i := len(v.names) - 1; i >= 0; i-- {
		if v.names[i] == key {
			return &v.items[i], true
		}
	}
	return nil, false
}

// appendLeaves appends the scalars of v, flattening arrays; objects are not
// leaves and contribute nothing.
func (v *jvalue) appendLeaves(buf []value) []value {
	switch {
	case v.array:
		for i := range v.items {
			buf = v.items[i].appendLeaves(buf)
		}
	case !v.object && v.kind != 0:
		buf = append(buf, v.value)
	}
	return buf
}

// matchObject evaluates a policy object against a body object; obj is nil
// when the object is absent, so only exists:false can hold below it.
func (n *node) matchObject(obj *jvalue) bool {
	var buf [4]value
	for i := range n.fields {
		f := &n.fields[i]
		var raw *jvalue
		if obj != nil {
			raw, _ = obj.lookup(f.key)
		}
		if f.child != nil {
			if !f.child.matchNested(raw) {
				return false
			}
			continue
		}
		var vals []value
		if raw != nil {
			vals = raw.appendLeaves(buf[:0])
		}
		if !matchValues(f.leaf, vals) {
			return false
		}
	}
	for _, group := range n.ors {
		matched := false
		for _, alt := range group {
			if alt.matchObject(obj) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	return true
}

// matchNested evaluates a nested policy object against the body value at
// its key: an object directly, an array when one of its objects matches
// (all nested keys are then taken from the same element), and anything
// else as an absent object.
func (n *node) matchNested(raw *jvalue) bool {
	if raw == nil {
		return n.matchObject(nil)
	}
	switch {
	case raw.object:
		return n.matchObject(raw)
	case raw.array:
		objects := 0
		for i := range raw.items {
			if e := &raw.items[i]; e.object {
				objects++
				if n.matchObject(e) {
					return true
				}
			}
		}
		if objects > 0 {
			return false
		}
	}
	return n.matchObject(nil)
}
