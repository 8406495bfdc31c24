package policy

import "sync"

// Cache keeps parsed policies by their text, so that a resource's policy
// is parsed once however often it is evaluated. It is safe for concurrent
// use; its zero value is ready.
type Cache struct {
	mu sync.Mutex
	m  map[string]*Policy
}

// maxCached bounds a Cache; past it, the cache starts over.
const maxCached = 1024

// Get returns text parsed. A text that no longer parses (stored before
// policies were validated) is the empty policy: it allows and denies
// nothing.
func (c *Cache) Get(text string) *Policy {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.m[text]; ok {
		return p
	}
	p, err := Parse(text)
	if err != nil {
		p, _ = Parse("")
	}
	if c.m == nil || len(c.m) >= maxCached {
		c.m = make(map[string]*Policy)
	}
	c.m[text] = p
	return p
}
