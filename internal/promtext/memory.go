package promtext

import (
	"context"
	"errors"
	"io"
	"net/http"
)

// The gauges Go's Prometheus client exports for a process's memory.
const (
	residentBytes  = "process_resident_memory_bytes"
	heapInuseBytes = "go_memstats_heap_inuse_bytes"
)

// Memory is a server's memory as its /metrics page reports it.
type Memory struct {
	ResidentBytes  float64 `json:"process_resident_memory_bytes"`
	HeapInuseBytes float64 `json:"go_memstats_heap_inuse_bytes"`
}

// ParseMemory reads the two memory gauges from a /metrics page; it fails
// when the page has neither.
func ParseMemory(r io.Reader) (Memory, error) {
	got, err := Parse(r, residentBytes, heapInuseBytes)
	if err != nil {
		return Memory{}, err
	}
	if len(got) == 0 {
		return Memory{}, errors.New("/metrics has neither " + residentBytes + " nor " + heapInuseBytes)
	}
	return Memory{ResidentBytes: got[residentBytes], HeapInuseBytes: got[heapInuseBytes]}, nil
}

// FetchMemory reads the memory gauges from the /metrics page at url.
func FetchMemory(ctx context.Context, hc *http.Client, url string) (Memory, error) {
	got, err := Fetch(ctx, hc, url, residentBytes, heapInuseBytes)
	if err != nil {
		return Memory{}, err
	}
	if len(got) == 0 {
		return Memory{}, errors.New("/metrics has neither " + residentBytes + " nor " + heapInuseBytes)
	}
	return Memory{ResidentBytes: got[residentBytes], HeapInuseBytes: got[heapInuseBytes]}, nil
}
