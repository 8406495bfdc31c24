package snsload

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// deliveredMetric is the line of Herald's /metrics counting successful SNS
// deliveries.
const deliveredMetric = `herald_sns_deliveries_total{outcome="delivered"}`

// Delivered reads the server's count of successful SNS deliveries from its
// /metrics endpoint; ok is false when the server does not export it.
func (c *Client) Delivered(ctx context.Context) (n float64, ok bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint+"metrics", nil)
	if err != nil {
		return 0, false, err
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, false, fmt.Errorf("reading /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, false, fmt.Errorf("reading /metrics: HTTP %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		if rest, found := strings.CutPrefix(sc.Text(), deliveredMetric+" "); found {
			v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
			return v, err == nil, err
		}
	}
	return 0, false, sc.Err()
}

// waitDelivered polls the server's delivered count every interval until it
// reaches target or ctx ends, and returns when it did, from start.
func (c *Client) waitDelivered(ctx context.Context, target float64, start time.Time, interval time.Duration) (*time.Duration, error) {
	for {
		n, ok, err := c.Delivered(ctx)
		if err != nil || !ok {
			return nil, err
		}
		if n >= target {
			d := time.Since(start)
			return &d, nil
		}
		select {
		case <-ctx.Done():
			return nil, nil
		case <-time.After(interval):
		}
	}
}
