package alertload

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/heraldmq/herald/internal/promtext"
)

// rssSampler keeps the largest resident memory the server reported.
type rssSampler struct {
	stopOnce sync.Once
	cancel   context.CancelFunc
	done     chan struct{}
	peak     float64
}

// sampleRSS reads the server's resident memory every 2 seconds until stop.
func sampleRSS(ctx context.Context, hc *http.Client, url string) *rssSampler {
	ctx, cancel := context.WithCancel(ctx)
	s := &rssSampler{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			if m, err := promtext.FetchMemory(ctx, hc, url); err == nil {
				s.peak = max(s.peak, m.ResidentBytes)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *rssSampler) stop() float64 {
	s.stopOnce.Do(func() { s.cancel(); <-s.done })
	return s.peak
}

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
