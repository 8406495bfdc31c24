package pebblestore

import (
	"testing"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snstest"
)

// TestTopicStoreConformance runs the sns.Store conformance suite on a
// fresh DB per subtest.
func TestTopicStoreConformance(t *testing.T) {
	snstest.RunStore(t, func(t *testing.T) sns.Store { return openDB(t, nil, Options{}).Topics() })
}

// TestTopicStoreSharedConformance runs the suite with one DB for all
// subtests, as a shared server would be used, so that the suite's ranges
// and those of other topics and accounts meet.
func TestTopicStoreSharedConformance(t *testing.T) {
	db := openDB(t, nil, Options{})
	snstest.RunStore(t, func(t *testing.T) sns.Store { return db.Topics() })
}
