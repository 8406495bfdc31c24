package snsmem_test

import (
	"testing"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snsmem"
	"github.com/heraldmq/herald/sns/snstest"
)

func TestStoreConformance(t *testing.T) {
	snstest.RunStore(t, func(t *testing.T) sns.Store { return snsmem.NewStore() })
}

// TestStoreSharedConformance gives every subtest the same store, as engines
// on a shared server do, to check that the suite never assumes emptiness.
func TestStoreSharedConformance(t *testing.T) {
	shared := snsmem.NewStore()
	snstest.RunStore(t, func(t *testing.T) sns.Store { return shared })
}
