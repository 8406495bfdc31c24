package loadgen

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunStopsAfterRequestsAndCountsEverything(t *testing.T) {
	var calls atomic.Int64
	r := Run(context.Background(), "op", Config{Concurrency: 4, Requests: 100}, func(ctx context.Context, w, seq int) (int, error) {
		if calls.Add(1)%10 == 0 {
			return 0, errors.New("every tenth call fails")
		}
		return 2, nil
	})
	if calls.Load() != 100 {
		t.Fatalf("op called %d times, want exactly the 100 requests", calls.Load())
	}
	if r.Calls != 90 || r.Errors != 10 || r.Items != 180 {
		t.Fatalf("result %+v, want 90 successful calls, 10 errors, 180 items", r)
	}
	if r.FirstError == "" || r.P50 > r.P99 || r.P99 > r.Max {
		t.Fatalf("result %+v lacks the first error or has unordered percentiles", r)
	}
}

func TestRunStopsAfterDuration(t *testing.T) {
	start := time.Now()
	r := Run(context.Background(), "op", Config{Concurrency: 2, Duration: 200 * time.Millisecond}, func(ctx context.Context, w, seq int) (int, error) {
		select {
		case <-time.After(5 * time.Millisecond):
			return 1, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	})
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("a 200ms run took %s", d)
	}
	if r.Calls == 0 || r.Errors != 0 {
		t.Fatalf("result %+v: calls cut short by the end of the run must not count as errors", r)
	}
}

func TestQuantileNearestRank(t *testing.T) {
	sorted := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 5}, {0.9, 9}, {0.99, 10}, {0.0, 1}} {
		if got := quantile(sorted, tc.q); got != tc.want {
			t.Errorf("quantile(%v) = %v, want %v", tc.q, got, tc.want)
		}
	}
}
