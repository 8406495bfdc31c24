package snsload

import (
	"context"
	"time"

	"github.com/heraldmq/herald/internal/promtext"
)

// deliveredMetric is the line of Herald's /metrics counting successful SNS
// deliveries.
const deliveredMetric = `herald_sns_deliveries_total{outcome="delivered"}`

// Delivered reads the server's count of successful SNS deliveries from its
// /metrics endpoint; ok is false when the server does not export it.
func (c *Client) Delivered(ctx context.Context) (n float64, ok bool, err error) {
	got, err := promtext.Fetch(ctx, c.http, c.endpoint+"metrics", deliveredMetric)
	if err != nil {
		return 0, false, err
	}
	n, ok = got[deliveredMetric]
	return n, ok, nil
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
