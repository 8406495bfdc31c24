package filter

import (
	"strings"

	"github.com/heraldmq/herald/internal/jsonscan"
)

// MatchAttributes reports whether message attributes satisfy the policy.
func (p *Policy) MatchAttributes(attrs map[string]Attribute) bool {
	if p == nil || p.root == nil {
		return true
	}
	if len(attrs) == 0 {
		return false
	}
	if p.existsFalse && !anyComparable(attrs) {
		return false
	}
	return p.root.matchAttributes(attrs)
}

func (n *node) matchAttributes(attrs map[string]Attribute) bool {
	for i := range n.fields {
		f := &n.fields[i]
		var one [1]value
		var vals []value
		if a, ok := attrs[f.key]; ok {
			vals = attributeValues(a, one[:0])
		}
		if !matchValues(f.leaf, vals) {
			return false
		}
	}
	for _, group := range n.ors {
		matched := false
		for _, alt := range group {
			if alt.matchAttributes(attrs) {
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

// baseType is the data type without a custom label, except that
// String.Array stays whole.
func baseType(dataType string) string {
	if dataType == "String.Array" {
		return dataType
	}
	if i := strings.IndexByte(dataType, '.'); i >= 0 {
		return dataType[:i]
	}
	return dataType
}

func anyComparable(attrs map[string]Attribute) bool {
	for _, a := range attrs {
		if baseType(a.DataType) != "Binary" {
			return true
		}
	}
	return false
}

// attributeValues appends the comparable values of an attribute to buf. A
// Binary attribute, a malformed Number and a malformed String.Array have
// none, as if absent.
func attributeValues(a Attribute, buf []value) []value {
	switch baseType(a.DataType) {
	case "String":
		return append(buf, value{kind: kString, s: a.Value})
	case "Number":
		if f, ok := parseNumber(a.Value); ok {
			return append(buf, value{kind: kNumber, n: canonical(f)})
		}
	case "String.Array":
		return appendArrayValues(buf, a.Value)
	}
	return buf
}

// appendArrayValues appends the scalars of a String.Array value, flattening
// nested arrays and ignoring objects. A value that is not a well-formed
// JSON array contributes nothing.
func appendArrayValues(buf []value, text string) []value {
	var d bodyDecoder
	d.r.Reset([]byte(text))
	d.r.SetMaxDepth(maxBodyDepth)
	if d.r.Kind() != jsonscan.Array {
		return buf
	}
	v, err := d.value(&member{leaf: true})
	if err != nil || d.r.End() != nil {
		return buf
	}
	return v.appendLeaves(buf)
}
