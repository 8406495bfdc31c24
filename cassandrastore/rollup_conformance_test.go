package cassandrastore

import (
	"testing"

	"github.com/heraldmq/herald/rollup"
	"github.com/heraldmq/herald/rollup/rolluptest"
)

func TestRollupStoreConformance(t *testing.T) {
	st := sharedStore(t)
	rolluptest.RunStore(t, func(t *testing.T) rollup.Store { return st.Rollups() })
}

// TestRollupStorePairConformance: two stores on one keyspace are two
// Herald nodes.
func TestRollupStorePairConformance(t *testing.T) {
	addr := cassandraAddr(t)
	a := sharedStore(t)
	b := openTest(t, addr, Options{Keyspace: shared.ks})
	rolluptest.RunStorePair(t, func(t *testing.T) (rollup.Store, rollup.Store) { return a.Rollups(), b.Rollups() })
}
