package cassandrastore

import (
	"testing"

	"github.com/heraldmq/herald/rollup/rolluptest"
)

// BenchmarkRollupQueries: top 10 of 1,000 cities over 30 days and a
// 30-day series (rolluptest.BenchQueries).
func BenchmarkRollupQueries(b *testing.B) {
	rolluptest.BenchQueries(b, sharedStore(b).Rollups())
}
