//go:build !unix

package wsload

// RaiseFileLimit does nothing where there are no rlimits; 0 means unknown.
func RaiseFileLimit() (uint64, error) { return 0, nil }
