package pebblestore

import (
	"log/slog"
	"testing"
	"time"

	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/cache/cachetest"
)

// TestConformance runs the cache.Store conformance suite on a fresh DB per
// subtest, with the real clock and the background reaper running often, so
// that reaping races with the suite's reads and writes.
func TestConformance(t *testing.T) {
	cachetest.Run(t, func(t *testing.T) cache.Store {
		db, err := Open(t.TempDir(), Options{
			ReapInterval: 100 * time.Millisecond,
			Logger:       slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}
