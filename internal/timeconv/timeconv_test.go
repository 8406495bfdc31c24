package timeconv

import (
	"math"
	"testing"
	"time"
)

func TestFloorAndCeilMs(t *testing.T) {
	cases := []struct {
		t           time.Time
		floor, ceil int64
		exact       bool
	}{
		{time.UnixMilli(1500), 1500, 1500, true},
		{time.Unix(1, 500_000_001), 1500, 1501, false},
		{time.Unix(-1, 999_999_999), -1, 0, false},
		{time.Unix(math.MaxInt64/1000+1, 0), math.MaxInt64, math.MaxInt64, false},
		{time.Unix(math.MinInt64/1000-1, 0), math.MinInt64, math.MinInt64 + 1, false},
	}
	for _, tc := range cases {
		floor, exact := FloorMs(tc.t)
		if floor != tc.floor || exact != tc.exact || CeilMs(tc.t) != tc.ceil {
			t.Errorf("%v: FloorMs = %d, %v; CeilMs = %d; want %d, %v; %d", tc.t, floor, exact, CeilMs(tc.t), tc.floor, tc.exact, tc.ceil)
		}
	}
}
