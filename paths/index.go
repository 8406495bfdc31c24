package paths

import (
	"strings"
	"sync"
)

// Index maps patterns to values and finds, for a path, every (pattern, value)
// pair whose pattern matches it. Lookups cost time proportional to the path
// length and the number of trie branches the path can follow, not to the
// number of patterns.
//
// The patterns form a trie keyed by pattern words. Walking a path through it
// keeps the set of trie nodes whose pattern prefix matches the words read so
// far, the way an NFA is simulated; because it is a set, a pattern whose "#"
// words can split a path in several ways (such as "#.a.#" against "a.a.a") is
// still reported once, and the work per word stays bounded by the number of
// live nodes.
//
// An Index is safe for concurrent use. The zero Index is empty and ready to
// use.
type Index[V comparable] struct {
	mu      sync.RWMutex
	root    *node[V]  // nil until the first Add
	n       int       // (pattern, value) pairs
	scratch sync.Pool // of *matchScratch[V]
}

// matchScratch holds the buffers of one Match call, reused through a pool so
// that lookups do not allocate.
type matchScratch[V comparable] struct {
	cur, next []*node[V]
	loops     []*node[V]            // "#" nodes that took the current word
	seen      map[*node[V]]struct{} // the same, when there are many
}

// NewIndex returns an empty index.
func NewIndex[V comparable]() *Index[V] {
	return &Index[V]{}
}

// Len returns the number of (pattern, value) pairs in the index.
func (x *Index[V]) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.n
}

// Add registers v under p. Adding a pair that is already there does nothing.
// Patterns are told apart as written: v under "#" and v under "#.#" are two
// pairs, and a path matching both reports v twice.
// Adding under the zero Pattern does nothing either, as it matches no path.
func (x *Index[V]) Add(p Pattern, v V) {
	if p.words == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.root == nil {
		x.root = &node[V]{}
	}
	n := x.root
	for _, w := range p.words {
		n = n.child(w, true)
	}
	if n.addValue(v) {
		x.n++
	}
}

// Remove unregisters v under p and reports whether the pair was there. Trie
// nodes left without patterns are freed.
func (x *Index[V]) Remove(p Pattern, v V) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if p.words == nil || x.root == nil {
		return false
	}
	var trail [MaxWords + 1]*node[V]
	trail[0] = x.root
	for i, w := range p.words {
		if trail[i+1] = trail[i].child(w, false); trail[i+1] == nil {
			return false
		}
	}
	last := len(p.words)
	if !trail[last].removeValue(v) {
		return false
	}
	x.n--
	for i := last; i > 0 && trail[i].empty(); i-- {
		trail[i-1].dropChild(p.words[i-1])
	}
	return true
}

// Match calls fn once for every (pattern, value) pair in the index whose
// pattern matches path. The path is assumed to be valid (see [Validate]).
//
// fn runs while the index is read-locked, so it should be quick, and it must
// not call methods of the same index: Add and Remove would deadlock, and so
// may Match and Len once a writer is waiting.
func (x *Index[V]) Match(path string, fn func(V)) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.root == nil {
		return
	}
	sc, _ := x.scratch.Get().(*matchScratch[V])
	if sc == nil {
		sc = new(matchScratch[V])
	}
	defer x.scratch.Put(sc)

	sc.loops = sc.loops[:0]
	cur := addHashes(append(sc.cur[:0], x.root), sc)
	next := sc.next[:0]
	for rest, more := path, path != ""; more && len(cur) > 0; {
		var w string
		w, rest, more = strings.Cut(rest, ".")
		h := hashWord(w)
		next, sc.loops = next[:0], sc.loops[:0]
		for _, n := range cur {
			if c := n.literal(w, h); c != nil {
				next = append(next, c)
			}
			if m := n.more; m != nil {
				if m.star != nil {
					next = append(next, m.star)
				}
				if m.loop {
					next = append(next, n) // its "#" takes this word too
					sc.loops = append(sc.loops, n)
				}
			}
		}
		cur, next = addHashes(next, sc), cur
	}
	for _, n := range cur {
		n.eachValue(fn)
	}
	sc.keep(cur, next)
}

// keep stores the buffers of a finished Match for the next one, emptied so
// that they do not pin nodes a later Remove drops. Buffers grown by a freak
// lookup are let go rather than cleared on every call after it.
func (sc *matchScratch[V]) keep(cur, next []*node[V]) {
	const maxKept = 1024
	if cap(cur) > maxKept || cap(next) > maxKept || cap(sc.loops) > maxKept || len(sc.seen) > maxKept {
		*sc = matchScratch[V]{}
		return
	}
	clear(cur[:cap(cur)])
	clear(next[:cap(next)])
	clear(sc.loops[:cap(sc.loops)])
	clear(sc.seen)
	sc.cur, sc.next, sc.loops = cur[:0], next[:0], sc.loops[:0]
}

// addHashes extends set with the "#" children of its members, transitively:
// a "#" may match zero words. A "#" node already in set because its "#" took
// the current word (it is in sc.loops) is not added twice; no other node can
// be reached twice, as each has a single parent that is itself in set once.
func addHashes[V comparable](set []*node[V], sc *matchScratch[V]) []*node[V] {
	useMap := len(sc.loops) > 16
	if useMap {
		if sc.seen == nil {
			sc.seen = make(map[*node[V]]struct{}, len(sc.loops))
		}
		clear(sc.seen)
		for _, n := range sc.loops {
			sc.seen[n] = struct{}{}
		}
	}
	for i := 0; i < len(set); i++ {
		h := set[i].wild(true)
		if h == nil {
			continue
		}
		if useMap {
			if _, dup := sc.seen[h]; dup {
				continue
			}
		} else if containsNode(sc.loops, h) {
			continue
		}
		set = append(set, h)
	}
	return set
}

func containsNode[V comparable](list []*node[V], n *node[V]) bool {
	for _, m := range list {
		if m == n {
			return true
		}
	}
	return false
}
