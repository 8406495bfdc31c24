package sqsload

import (
	"context"
	"io"

	"github.com/heraldmq/herald/internal/promtext"
)

// Memory is the server's memory as its /metrics endpoint reports it.
type Memory = promtext.Memory

// ReadMemory reads the server's resident memory and Go heap in use from
// its Prometheus /metrics endpoint.
func (c *Client) ReadMemory(ctx context.Context) (Memory, error) {
	return promtext.FetchMemory(ctx, c.http, c.endpoint+"metrics")
}

// parseMemory finds the two memory gauges in a Prometheus text exposition.
func parseMemory(r io.Reader) (Memory, error) { return promtext.ParseMemory(r) }
