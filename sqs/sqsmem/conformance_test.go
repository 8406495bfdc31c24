package sqsmem_test

import (
	"testing"

	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
	"github.com/heraldmq/herald/sqs/sqstest"
)

// TestStoreConformance runs the Store suite on a fresh store per subtest.
func TestStoreConformance(t *testing.T) {
	t.Parallel()
	sqstest.RunStore(t, func(t *testing.T) sqs.Store { return sqsmem.NewStore() })
}

// TestStoreConformanceShared runs it with every subtest on one store, as an
// engine on a shared server does: the suite must not assume an empty store.
func TestStoreConformanceShared(t *testing.T) {
	t.Parallel()
	shared := sqsmem.NewStore()
	sqstest.RunStore(t, func(t *testing.T) sqs.Store { return shared })
}

// TestIndexConformance runs the Index suite on a fresh index per subtest.
func TestIndexConformance(t *testing.T) {
	t.Parallel()
	sqstest.RunIndex(t, func(t *testing.T) sqs.Index { return sqsmem.NewIndex(sqsmem.IndexOptions{}) })
}

// TestIndexConformanceShared runs it with every subtest on one index,
// bounded tightly so that queues are evicted while the suite runs (those
// being rebuilt or in use never are).
func TestIndexConformanceShared(t *testing.T) {
	t.Parallel()
	shared := sqsmem.NewIndex(sqsmem.IndexOptions{MaxQueues: 1000})
	sqstest.RunIndex(t, func(t *testing.T) sqs.Index { return shared })
}
