// Package timeconv converts times to the integer forms the storage engines
// keep in keys and columns, saturating instead of overflowing.
package timeconv

import (
	"math"
	"time"
)

// FloorMs converts t to Unix milliseconds rounding down, saturating at the
// int64 limits; exact is false when t has a sub-millisecond part.
func FloorMs(t time.Time) (ms int64, exact bool) {
	sec := t.Unix()
	switch {
	case sec >= math.MaxInt64/1000:
		return math.MaxInt64, false
	case sec <= math.MinInt64/1000:
		return math.MinInt64, false
	}
	ns := int64(t.Nanosecond())
	return sec*1000 + ns/1_000_000, ns%1_000_000 == 0
}

// CeilMs converts t to Unix milliseconds rounding up, saturating.
func CeilMs(t time.Time) int64 {
	ms, exact := FloorMs(t)
	if !exact && ms != math.MaxInt64 {
		ms++
	}
	return ms
}
