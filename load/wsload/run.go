package wsload

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Run opens the connections, measures the server's memory, publishes the
// messages and waits for their deliveries. The returned Result is filled
// as far as the run got, also with an error.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	res := &Result{Protocol: cfg.Protocol, Connections: cfg.Connections, Patterns: cfg.Patterns, Messages: cfg.Messages, Rate: cfg.Rate}
	if res.FileLimit, err = RaiseFileLimit(); err != nil {
		res.Warnings = append(res.Warnings, "raising the open-file limit: "+err.Error())
	}
	if need := uint64(cfg.Connections) + 64; res.FileLimit > 0 && res.FileLimit < need {
		res.Warnings = append(res.Warnings, fmt.Sprintf("open-file limit %d is below the %d this run needs: connections will fail", res.FileLimit, need))
	}
	for _, w := range res.Warnings {
		cfg.progress("warning: %s", w)
	}

	before, memErr := readMemory(ctx, cfg.HTTPClient, cfg.Server)

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	rec := newRecorder(cfg.Messages, cfg.Connections*cfg.Messages/cfg.Patterns+cfg.Messages)
	subscribers := make([]int, cfg.Patterns) // connected subscribers of each pattern
	var (
		readers sync.WaitGroup
		opened  []*subscriber
	)
	defer readers.Wait()
	defer func() { closeAll(opened) }() // the readers end when their connections do
	defer stop()

	cfg.progress("opening %d connections to %s (%d at a time)", cfg.Connections, cfg.wsURL(), cfg.DialConcurrency)
	start := time.Now()
	connectErr := openAll(runCtx, cfg, func(i int, s *subscriber) {
		subscribers[i%cfg.Patterns]++
		opened = append(opened, s)
		readers.Go(func() {
			defer s.ws.CloseNow()
			s.read(runCtx, rec)
		})
	}, res)
	res.ConnectSeconds = time.Since(start).Seconds()
	if res.ConnectSeconds > 0 {
		res.ConnectsPerSecond = float64(res.Connected) / res.ConnectSeconds
	}
	cfg.progress("%d connected in %.1fs (%d failed)", res.Connected, res.ConnectSeconds, res.ConnectFailures)
	if connectErr != nil {
		return res, connectErr
	}
	if res.Connected == 0 {
		return res, fmt.Errorf("no connection could be opened: %s", res.ConnectError)
	}

	if memErr == nil && cfg.Settle > 0 {
		select {
		case <-time.After(cfg.Settle):
		case <-ctx.Done():
			return res, ctx.Err()
		}
	}
	if memErr == nil {
		var after Memory
		if after, memErr = readMemory(ctx, cfg.HTTPClient, cfg.Server); memErr == nil {
			res.setMemory(before, after)
		}
	}
	if memErr != nil {
		res.MemoryError = memErr.Error()
		cfg.progress("memory not measured: %v", memErr)
	}

	cfg.progress("publishing %d messages at %g/s", cfg.Messages, cfg.Rate)
	expected, err := publishAll(ctx, cfg, subscribers, res)
	if err != nil {
		return res, err
	}
	res.Expected = expected
	deadline := time.Now().Add(cfg.Timeout)
	for rec.delivered.Load() < expected && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	closeAll(opened)
	readers.Wait()
	rec.collect(opened)
	res.setDeliveries(rec)
	return res, ctx.Err()
}

// closeAll closes the run's connections (again: a no-op).
func closeAll(opened []*subscriber) {
	for _, s := range opened {
		s.ws.CloseNow()
	}
}

// openAll opens cfg.Connections subscribed connections, DialConcurrency at
// a time, and hands each to opened; failures are counted in res.
func openAll(ctx context.Context, cfg Config, opened func(int, *subscriber), res *Result) error {
	var (
		next   atomic.Int64
		mu     sync.Mutex
		wg     sync.WaitGroup
		words  = (cfg.Messages + 63) / 64
		url    = cfg.wsURL()
		report = max(cfg.Connections/10, 1)
	)
	for range min(cfg.DialConcurrency, cfg.Connections) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= cfg.Connections {
					return
				}
				c, err := connect(ctx, cfg, url, i)
				mu.Lock()
				if err != nil {
					res.ConnectFailures++
					if res.ConnectError == "" {
						res.ConnectError = err.Error()
					}
				} else {
					res.Connected++
					opened(i, &subscriber{ws: c, proto: cfg.proto(), seen: make([]uint64, words)})
					if res.Connected%report == 0 {
						cfg.progress("  %d connected", res.Connected)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// publishAll publishes the messages at cfg.Rate, message n to pattern or
// channel n % Patterns, and returns how many deliveries the published ones owe.
func publishAll(ctx context.Context, cfg Config, subscribers []int, res *Result) (int64, error) {
	publish := cfg.proto().publisher(cfg)
	var (
		expected atomic.Int64
		mu       sync.Mutex
		wg       sync.WaitGroup
		interval = time.Duration(float64(time.Second) / cfg.Rate)
		start    = time.Now()
	)
	for n := range cfg.Messages {
		if wait := time.Until(start.Add(time.Duration(n) * interval)); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				wg.Wait()
				return expected.Load(), ctx.Err()
			}
		}
		k := n % cfg.Patterns
		wg.Go(func() {
			sent := time.Now()
			err := publish(ctx, k, body(n, sent))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.PublishFailures++
				if res.PublishError == "" {
					res.PublishError = err.Error()
				}
				return
			}
			res.Published++
			expected.Add(int64(subscribers[k]))
		})
	}
	wg.Wait()
	cfg.progress("published %d (%d failed) in %.1fs", res.Published, res.PublishFailures, time.Since(start).Seconds())
	return expected.Load(), ctx.Err()
}

func (c Config) progress(format string, args ...any) {
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, format+"\n", args...)
	}
}
