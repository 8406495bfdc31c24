package paths

import (
	"math/bits"
	"slices"
)

// State is where a [Pattern]'s matcher stands after reading some words of a
// path: the set of pattern positions the words read so far can have led to.
// Position i means "words[:i] of the pattern are matched"; position
// len(words) means the whole pattern is. A State is a small value; copy it
// freely. It is only meaningful with the Pattern that produced it.
//
// The zero State is dead: it accepts nothing and has no future.
type State struct {
	set uint64
}

// closure returns the positions reachable from position i without reading a
// word: i itself and, while "#" words follow, the positions after them.
func (p Pattern) closure(i int) uint64 {
	run := bits.TrailingZeros64(^(p.hash >> i)) // "#" words starting at i
	return (uint64(1)<<(run+1) - 1) << i
}

// Start returns the state before any word has been read.
func (p Pattern) Start() State {
	if p.words == nil {
		return State{}
	}
	return State{p.closure(0)}
}

// Step returns the state after reading word in state s.
func (p Pattern) Step(s State, word string) State {
	var next uint64
	end := len(p.words)
	for set := s.set; set != 0; set &= set - 1 {
		i := bits.TrailingZeros64(set)
		switch {
		case i >= end:
		case p.hash&(1<<i) != 0:
			next |= p.closure(i) // "#" takes the word and may take more
		case p.star&(1<<i) != 0 || p.words[i] == word:
			next |= p.closure(i + 1)
		}
	}
	return State{next}
}

// Accepts reports whether the words read to reach s form a path matching p.
func (p Pattern) Accepts(s State) bool {
	return p.words != nil && s.set&(1<<len(p.words)) != 0
}

// Alive reports whether reading one or more further words from s could reach
// a state that accepts. (The limits on path length are not considered.)
func (p Pattern) Alive(s State) bool {
	return s.set&(1<<len(p.words)-1) != 0
}

// Next tells which next words can keep s alive or make it accept. If any is
// true, every word may. Otherwise only the words in literals can, and every
// other word leads to a dead state; literals is sorted and free of
// duplicates, and empty when s is not [Pattern.Alive].
func (p Pattern) Next(s State) (literals []string, any bool) {
	end := len(p.words)
	for set := s.set; set != 0; set &= set - 1 {
		i := bits.TrailingZeros64(set)
		switch {
		case i >= end:
		case (p.star|p.hash)&(1<<i) != 0:
			return nil, true
		default:
			literals = append(literals, p.words[i])
		}
	}
	slices.Sort(literals)
	return slices.Compact(literals), false
}
