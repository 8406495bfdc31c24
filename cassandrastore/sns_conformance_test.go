package cassandrastore

import (
	"testing"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snstest"
)

// TestSNSConformance runs the topic store's suite with every subtest on
// the package's shared keyspace (the suite's subtests use fresh accounts
// and topic IDs, so they share it, as Herald nodes share a cluster).
func TestSNSConformance(t *testing.T) {
	st := sharedStore(t)
	snstest.RunStore(t, func(t *testing.T) sns.Store { return st.Topics() })
}
