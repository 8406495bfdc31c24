package promtext

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// PeakRSS keeps the largest resident memory a server's /metrics reported
// while it was sampled.
type PeakRSS struct {
	stopOnce sync.Once
	cancel   context.CancelFunc
	done     chan struct{}
	peak     float64
}

// SamplePeakRSS reads the resident memory at url (a /metrics page) now and
// every interval until Stop.
func SamplePeakRSS(ctx context.Context, hc *http.Client, url string, every time.Duration) *PeakRSS {
	ctx, cancel := context.WithCancel(ctx)
	s := &PeakRSS{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if m, err := FetchMemory(ctx, hc, url); err == nil {
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

// Stop ends the sampling and returns the peak in bytes (0 if no read
// succeeded).
func (s *PeakRSS) Stop() float64 {
	s.stopOnce.Do(func() { s.cancel(); <-s.done })
	return s.peak
}
