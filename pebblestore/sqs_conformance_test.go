package pebblestore

import (
	"log/slog"
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqstest"
)

// TestQueueStoreConformance runs the sqs.Store conformance suite on a fresh
// DB per subtest, with the real clock and the background reaper running
// often, so that reaping races with the suite's reads and writes.
func TestQueueStoreConformance(t *testing.T) {
	sqstest.RunStore(t, func(t *testing.T) sqs.Store {
		db := openDB(t, nil, Options{
			ReapInterval: 50 * time.Millisecond,
			Logger:       slog.New(slog.DiscardHandler),
		})
		return db.Queues()
	})
}
