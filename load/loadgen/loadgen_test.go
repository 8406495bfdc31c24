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

func TestSummarizeComputesRatesAndPercentiles(t *testing.T) {
	latencies := make([]time.Duration, 0, 1000)
	for i := 1000; i >= 1; i-- {
		latencies = append(latencies, time.Duration(i)*time.Microsecond)
	}
	r := Summarize(Result{Name: "x", Items: 4000, Elapsed: 2 * time.Second}, latencies)
	if r.Calls != 1000 || r.CallsPerSec != 500 || r.ItemsPerSec != 2000 {
		t.Fatalf("result %+v, want 1000 calls at 500/s and 2000 items/s", r)
	}
	want := []time.Duration{500 * time.Microsecond, 900 * time.Microsecond, 950 * time.Microsecond, 990 * time.Microsecond, 999 * time.Microsecond, 1000 * time.Microsecond}
	got := []time.Duration{r.P50, r.P90, r.P95, r.P99, r.P999, r.Max}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("p50/p90/p95/p99/p99.9/max = %v, want %v", got, want)
		}
	}
	if empty := Summarize(Result{Name: "none", Errors: 3, Elapsed: time.Second}, nil); empty.Calls != 0 || empty.P99 != 0 || empty.Errors != 3 {
		t.Fatalf("empty summary %+v", empty)
	}
}

func TestPacedRunKeepsItsRateAndCountsQueueingDelay(t *testing.T) {
	// 200 calls/s for 1 s: about 200 calls, however many workers there are.
	r := Run(context.Background(), "paced", Config{Concurrency: 8, Duration: time.Second, Rate: 200},
		func(ctx context.Context, w, seq int) (int, error) {
			if Scheduled(ctx).IsZero() {
				return 0, errors.New("a paced call carries no due time")
			}
			return 1, nil
		})
	if r.Errors > 0 || r.Calls < 170 || r.Calls > 205 {
		t.Fatalf("paced run made %d calls (%d errors: %s), want about 200", r.Calls, r.Errors, r.FirstError)
	}

	// One worker, 100 calls/s, each call taking 30 ms: calls fall behind
	// their due times, and the latencies show it (well over 30 ms).
	slow := Run(context.Background(), "behind", Config{Concurrency: 1, Duration: time.Second, Rate: 100},
		func(ctx context.Context, w, seq int) (int, error) {
			time.Sleep(30 * time.Millisecond)
			return 1, nil
		})
	if slow.P99 < 200*time.Millisecond {
		t.Fatalf("a server falling behind shows p99 %v; the delay since each call was due is hidden", slow.P99)
	}
}
