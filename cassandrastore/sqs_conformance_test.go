package cassandrastore

import (
	"testing"

	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqstest"
)

// TestSQSConformance runs the queue store's suite with every subtest on the
// package's shared keyspace (the suite's subtests use fresh accounts and
// queue IDs, so they share it, as Herald nodes share a cluster).
func TestSQSConformance(t *testing.T) {
	st := sharedStore(t)
	sqstest.RunStore(t, func(t *testing.T) sqs.Store { return st.Queues() })
}
