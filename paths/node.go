package paths

import (
	"hash/maphash"
	"strings"
)

// Most trie nodes of a large index are leaves holding a value or two, or
// inner nodes with a single child, so a node is kept to one 64-byte cache
// line: few literal children live in a short slice, and the parts that fewer
// nodes need (wildcard children, many values, the "#" flag) live in a
// separate nodeMore, allocated on demand.

// Thresholds at which a node moves its literal children or its values from a
// short slice to a map.
const (
	smallChildren = 8
	smallValues   = 8
)

// wordSeed keys the word hashes stored beside literal children, which let a
// lookup skip children without comparing strings.
var wordSeed = maphash.MakeSeed()

func hashWord(w string) uint64 { return maphash.String(wordSeed, w) }

// node is one trie node: the pattern prefix spelled by the words on the way
// down from the root.
type node[V comparable] struct {
	edges []edge[V]           // children for literal words, while few
	big   map[string]*node[V] // children for literal words, when many
	vals  []V                 // values of patterns ending here, while few
	more  *nodeMore[V]        // nil unless needed
}

type nodeMore[V comparable] struct {
	star *node[V]       // child for "*"
	hash *node[V]       // child for "#"
	vals map[V]struct{} // values, when many
	loop bool           // this node was reached by a "#" word, which can repeat
}

// edge leads to the child for one literal word.
type edge[V comparable] struct {
	hash  uint64 // hashWord(word)
	word  string
	child *node[V]
}

func (n *node[V]) empty() bool {
	m := n.more
	return len(n.edges) == 0 && len(n.big) == 0 && len(n.vals) == 0 &&
		(m == nil || m.star == nil && m.hash == nil && len(m.vals) == 0)
}

func (n *node[V]) grow() *nodeMore[V] {
	if n.more == nil {
		n.more = &nodeMore[V]{}
	}
	return n.more
}

// tidy drops n.more once it holds nothing.
func (n *node[V]) tidy() {
	if m := n.more; m != nil && m.star == nil && m.hash == nil && m.vals == nil && !m.loop {
		n.more = nil
	}
}

// literal returns the child for literal word w, whose hashWord is h, or nil.
func (n *node[V]) literal(w string, h uint64) *node[V] {
	if n.big != nil {
		return n.big[w]
	}
	for i := range n.edges {
		if e := &n.edges[i]; e.hash == h && e.word == w {
			return e.child
		}
	}
	return nil
}

// child returns the child of n for pattern word w, creating it if create is
// set; otherwise it may return nil.
func (n *node[V]) child(w string, create bool) *node[V] {
	var c *node[V]
	switch w {
	case "*":
		if c = n.wild(false); c == nil && create {
			c = &node[V]{}
			n.grow().star = c
		}
	case "#":
		if c = n.wild(true); c == nil && create {
			c = &node[V]{more: &nodeMore[V]{loop: true}}
			n.grow().hash = c
		}
	default:
		h := hashWord(w)
		if c = n.literal(w, h); c == nil && create {
			c = &node[V]{}
			// Clone so the trie does not keep the caller's whole pattern.
			n.putLiteral(strings.Clone(w), h, c)
		}
	}
	return c
}

func (n *node[V]) wild(hash bool) *node[V] {
	switch m := n.more; {
	case m == nil:
		return nil
	case hash:
		return m.hash
	default:
		return m.star
	}
}

func (n *node[V]) putLiteral(w string, h uint64, c *node[V]) {
	if n.big != nil {
		n.big[w] = c
		return
	}
	if len(n.edges) < smallChildren {
		n.edges = append(n.edges, edge[V]{h, w, c})
		return
	}
	big := make(map[string]*node[V], 2*smallChildren)
	for _, e := range n.edges {
		big[e.word] = e.child
	}
	big[w] = c
	n.big = big
	n.edges = nil
}

// dropChild removes the child for pattern word w.
func (n *node[V]) dropChild(w string) {
	switch m := n.more; {
	case w == "*":
		m.star = nil
	case w == "#":
		m.hash = nil
	case n.big != nil:
		delete(n.big, w)
		if len(n.big) == 0 {
			n.big = nil
		}
	default:
		for i := range n.edges {
			if n.edges[i].word == w {
				n.edges = deleteSwap(n.edges, i)
				break
			}
		}
	}
	n.tidy()
}

// deleteSwap removes s[i] by moving the last element into its place.
func deleteSwap[T any](s []T, i int) []T {
	last := len(s) - 1
	s[i] = s[last]
	var zero T
	s[last] = zero
	if last == 0 {
		return nil
	}
	return s[:last]
}
