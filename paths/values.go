package paths

// addValue stores v at n and reports whether it was new. Most nodes carry a
// value or two; some (a popular feed) carry millions, and those keep them in
// a map so that adding and removing stay cheap.
func (n *node[V]) addValue(v V) bool {
	if m := n.more; m != nil && m.vals != nil {
		if _, ok := m.vals[v]; ok {
			return false
		}
		m.vals[v] = struct{}{}
		return true
	}
	for _, x := range n.vals {
		if x == v {
			return false
		}
	}
	if len(n.vals) < smallValues {
		n.vals = append(n.vals, v)
		return true
	}
	big := make(map[V]struct{}, 2*smallValues)
	for _, x := range n.vals {
		big[x] = struct{}{}
	}
	big[v] = struct{}{}
	n.grow().vals = big
	n.vals = nil
	return true
}

// removeValue deletes v from n and reports whether it was there.
func (n *node[V]) removeValue(v V) bool {
	if m := n.more; m != nil && m.vals != nil {
		if _, ok := m.vals[v]; !ok {
			return false
		}
		delete(m.vals, v)
		if len(m.vals) == 0 {
			m.vals = nil
			n.tidy()
		}
		return true
	}
	for i, x := range n.vals {
		if x == v {
			n.vals = deleteSwap(n.vals, i)
			return true
		}
	}
	return false
}

// eachValue calls fn for every value stored at n.
func (n *node[V]) eachValue(fn func(V)) {
	for _, v := range n.vals {
		fn(v)
	}
	if m := n.more; m != nil {
		for v := range m.vals {
			fn(v)
		}
	}
}
