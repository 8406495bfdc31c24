package access

import (
	"slices"

	"github.com/heraldmq/herald/paths"
)

// Grants is what a client may do, from the "herald" claim of its token.
// The zero Grants allows nothing; [AllowAll] allows everything.
type Grants struct {
	Subscribe []string `json:"subscribe,omitempty"` // patterns
	Publish   []string `json:"publish,omitempty"`   // patterns
	Queues    []string `json:"queues,omitempty"`    // queue names

	all bool
}

// AllowAll returns Grants that allow every subscription, publish and
// queue, for anonymous access in development.
func AllowAll() Grants { return Grants{all: true} }

// All reports whether g allows everything.
func (g Grants) All() bool { return g.all }

// CanSubscribe reports whether g allows subscribing to pattern: every path
// pattern can match must be matched by one granted subscribe pattern. An
// invalid pattern is never allowed.
func (g Grants) CanSubscribe(pattern string) bool {
	if g.all {
		return paths.ValidatePattern(pattern) == nil
	}
	for _, granted := range g.Subscribe {
		if paths.Contains(granted, pattern) {
			return true
		}
	}
	return false
}

// CanPublish reports whether g allows publishing a message under path: it
// must match a granted publish pattern. An invalid path is never allowed.
func (g Grants) CanPublish(path string) bool {
	if paths.Validate(path) != nil {
		return false
	}
	if g.all {
		return true
	}
	for _, granted := range g.Publish {
		p, err := paths.ParsePattern(granted)
		if err == nil && p.Match(path) {
			return true
		}
	}
	return false
}

// CanQueue reports whether g allows consuming the queue named name.
func (g Grants) CanQueue(name string) bool {
	return name != "" && (g.all || slices.Contains(g.Queues, name))
}
