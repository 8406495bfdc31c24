package alertload

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/heraldmq/herald/internal/promtext"
)

// The server's counters a run reads.
const (
	cpuMetric       = "process_cpu_seconds_total"
	publishedMetric = "herald_sns_published_total"
	readMetric      = "herald_sns_subscriptions_read_total"
)

// idleCPU measures the server's CPU over d with no load from the
// benchmark: percent of one core.
func idleCPU(ctx context.Context, hc *http.Client, url string, d time.Duration) (float64, error) {
	read := func() (float64, error) {
		got, err := promtext.Fetch(ctx, hc, url, cpuMetric)
		if err != nil {
			return 0, err
		}
		v, ok := got[cpuMetric]
		if !ok {
			return 0, fmt.Errorf("the server's /metrics has no %s", cpuMetric)
		}
		return v, nil
	}
	a, err := read()
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(d):
	}
	b, err := read()
	if err != nil {
		return 0, err
	}
	return 100 * (b - a) / time.Since(t0).Seconds(), nil
}
