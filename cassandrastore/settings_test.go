package cassandrastore

import (
	"testing"

	"github.com/heraldmq/herald/limits"
	"github.com/heraldmq/herald/limits/limitstest"
)

// TestSettings: a setting written through one store is read through
// another on the same keyspace, as another node would.
func TestSettings(t *testing.T) {
	st := sharedStore(t)
	limitstest.Store(t, st, func() limits.Store {
		return openTest(t, shared.addr, Options{Keyspace: shared.ks})
	})
}
