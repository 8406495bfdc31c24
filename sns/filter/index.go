package filter

import (
	"slices"
	"strings"
)

// The filter index: a topic with a million subscriptions, each with a
// policy such as {"state": ["CA"]}, must not test a million policies for
// every publish. IndexKeys names, for one policy, a set of (attribute,
// string value) pairs at least one of which every message it matches
// carries; MessageKeys lists the pairs a message carries. A publish then
// tests only the policies indexed under one of its pairs, and those with no
// index keys.

// IndexKey is one (attribute name, exact string value) pair, written
// "name=value". A policy key holding '=' is never indexed, so that each
// key of a policy reads one way.
type IndexKey = string

// MaxIndexKeys bounds the keys of one policy: a policy with more (a long
// list of values) is tested for every message instead. Within MaxKeys and
// MaxCombinations a policy rarely comes near it.
const MaxIndexKeys = 150

// IndexKeys returns the keys of the policy, sorted and distinct: every
// message whose attributes satisfy it carries at least one of them (as a
// String attribute or a string of a String.Array attribute). ok is false
// when there is no such set: no policy, "{}", the MessageBody scope, or an
// object with no key of exact strings alone (numbers, prefixes,
// anything-but, exists, ...) in any $or branch.
//
// Of a policy object it takes the key (or $or group) with the fewest
// values: every field of an object must match, so any one of them bounds
// the messages it matches; a $or group's keys are the union of its
// branches' keys, when every branch has some.
func (p *Policy) IndexKeys() (keys []IndexKey, ok bool) {
	if p == nil || p.root == nil || p.Scope() != ScopeMessageAttributes {
		return nil, false
	}
	keys, ok = p.root.indexKeys()
	if !ok || len(keys) > MaxIndexKeys {
		return nil, false
	}
	slices.Sort(keys)
	return slices.Compact(keys), true
}

func (n *node) indexKeys() ([]IndexKey, bool) {
	var best []IndexKey
	found := false
	take := func(k []IndexKey) {
		if !found || len(k) < len(best) {
			best, found = k, true
		}
	}
	for i := range n.fields {
		f := &n.fields[i]
		if f.child != nil || len(f.leaf) == 0 || strings.IndexByte(f.key, '=') >= 0 {
			continue
		}
		exact := true
		for j := range f.leaf {
			if f.leaf[j].op != opString {
				exact = false
				break
			}
		}
		if !exact {
			continue
		}
		k := make([]IndexKey, len(f.leaf))
		for j := range f.leaf {
			k[j] = f.key + "=" + f.leaf[j].s
		}
		take(k)
	}
	for _, group := range n.ors {
		var union []IndexKey
		all := true
		for _, alt := range group {
			k, ok := alt.indexKeys()
			if !ok {
				all = false
				break
			}
			union = append(union, k...)
		}
		if all {
			take(union)
		}
	}
	return best, found
}

// MessageKeys returns the index keys a message's attributes carry, sorted
// and distinct: a String attribute (with or without a custom label) gives
// its value, a String.Array its string elements.
func MessageKeys(attrs map[string]Attribute) []IndexKey {
	var keys []IndexKey
	var buf []value
	for name, a := range attrs {
		buf = attributeValues(a, buf[:0])
		for i := range buf {
			if buf[i].kind == kString {
				keys = append(keys, name+"="+buf[i].s)
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
