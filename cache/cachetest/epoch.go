package cachetest

import (
	"testing"

	"github.com/heraldmq/herald/cache"
)

// testEpoch checks that a store in use names its incarnation with
// NewEpoch's shape, and that the name does not change while it is used.
func (s *suite) testEpoch(t *testing.T) {
	e := s.start(t)
	e.put(e.msg("a", e.now, e.path("a"))) // a store that connects lazily has connected
	first := e.store.Epoch()
	if !cache.ValidEpoch(first) {
		t.Fatalf("Epoch() = %q, want 16 lowercase hex digits", first)
	}
	e.put(e.msg("b", e.now, e.path("b")))
	if got := e.store.Epoch(); got != first {
		t.Fatalf("Epoch() changed from %q to %q while the store was in use", first, got)
	}
}
