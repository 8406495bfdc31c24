//go:build race

package paths

// raceEnabled is set when testing with -race, which makes sync.Pool drop
// items on purpose and so makes allocation counts meaningless.
const raceEnabled = true
