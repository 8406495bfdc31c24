//go:build race

package cache_test

// raceEnabled is true when the tests run with the race detector, which makes
// the exhaustive paging sweeps too slow; they then use fewer limits.
const raceEnabled = true
