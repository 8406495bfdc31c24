package paths

import (
	"strings"
)

// containBudget bounds the state pairs Contains explores; past it the
// answer is a conservative false.
const containBudget = 1 << 16

// Contains reports whether every path that pattern inner can match is also
// matched by pattern outer, for AMQP topic patterns ("*" is one word, "#"
// zero or more; see package paths). Either pattern being invalid gives
// false.
//
// It runs both patterns as automata over an alphabet of the literal words
// they name plus one word standing for every other, following the subset
// of outer states alongside the subset of inner states, and fails on any
// non-empty word sequence that inner accepts and outer does not. Paths of
// more than MaxWords words are taken into account, so in rare cases
// where only that bound makes inner contained, the answer is false.
func Contains(outer, inner string) bool {
	if ValidatePattern(outer) != nil || ValidatePattern(inner) != nil {
		return false
	}
	o, in := newNFA(outer), newNFA(inner)
	alphabet := []string{""} // "" stands for every word named by neither
	seen := map[string]bool{}
	for _, w := range append(append([]string(nil), o.words...), in.words...) {
		if w != "*" && w != "#" && !seen[w] {
			seen[w] = true
			alphabet = append(alphabet, w)
		}
	}
	type pair struct{ in, out uint64 }
	start := pair{in.closure(1), o.closure(1)}
	visited := map[pair]bool{start: true}
	queue := []pair{start}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, w := range alphabet {
			q := pair{in.step(p.in, w), o.step(p.out, w)}
			if q.in == 0 {
				continue // inner cannot go on this way
			}
			if in.accepts(q.in) && !o.accepts(q.out) {
				return false
			}
			if !visited[q] {
				if len(visited) >= containBudget {
					return false
				}
				visited[q] = true
				queue = append(queue, q)
			}
		}
	}
	return true
}

// nfa is a pattern as an automaton: state i (bit i of a set) means the
// first i pattern words have been used; state len(words) accepts.
type nfa struct{ words []string }

func newNFA(pattern string) nfa { return nfa{strings.Split(pattern, ".")} }

// closure adds to set the states reachable by letting "#" words match
// nothing.
func (a nfa) closure(set uint64) uint64 {
	for i, w := range a.words {
		if w == "#" && set&(1<<i) != 0 {
			set |= 1 << (i + 1)
		}
	}
	return set
}

// step returns the states after one more path word w ("" stands for a word
// no pattern names).
func (a nfa) step(set uint64, w string) uint64 {
	var next uint64
	for i, pw := range a.words {
		if set&(1<<i) == 0 {
			continue
		}
		switch {
		case pw == "#":
			next |= 1 << i
		case pw == "*" || (w != "" && pw == w):
			next |= 1 << (i + 1)
		}
	}
	return a.closure(next)
}

func (a nfa) accepts(set uint64) bool { return set&(1<<len(a.words)) != 0 }
