package cassandrastore

import (
	"testing"

	"github.com/heraldmq/herald/cache"
)

// TestEpochSharedByEveryStoreOnTheKeyspace: another process (here another
// Store) on the same keyspace reads the epoch the first one stored.
func TestEpochSharedByEveryStoreOnTheKeyspace(t *testing.T) {
	first := sharedStore(t)
	want := first.Epoch()
	if !cache.ValidEpoch(want) {
		t.Fatalf("Epoch() = %q", want)
	}
	other := openTest(t, shared.addr, Options{Keyspace: shared.ks})
	if got := other.Epoch(); got != want {
		t.Errorf("a second store on keyspace %s has epoch %q, want %q", shared.ks, got, want)
	}
}
