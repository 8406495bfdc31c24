package wsload

import (
	"context"
	"io"
	"net/http"

	"github.com/heraldmq/herald/internal/promtext"
)

// Memory is the server's memory as its /metrics endpoint reports it.
type Memory = promtext.Memory

// readMemory reads the server's resident memory and Go heap in use from
// its Prometheus /metrics endpoint.
func readMemory(ctx context.Context, hc *http.Client, server string) (Memory, error) {
	return promtext.FetchMemory(ctx, hc, server+"/metrics")
}

// parseMemory finds the two memory gauges in a Prometheus text exposition.
func parseMemory(r io.Reader) (Memory, error) { return promtext.ParseMemory(r) }
