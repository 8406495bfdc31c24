package wsload

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Memory is the server's memory as its /metrics endpoint reports it.
type Memory struct {
	ResidentBytes  float64 `json:"process_resident_memory_bytes"`
	HeapInuseBytes float64 `json:"go_memstats_heap_inuse_bytes"`
}

// readMemory reads the server's resident memory and Go heap in use from
// its Prometheus /metrics endpoint.
func readMemory(ctx context.Context, hc *http.Client, server string) (Memory, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/metrics", nil)
	if err != nil {
		return Memory{}, err
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4") // not protobuf
	resp, err := hc.Do(req)
	if err != nil {
		return Memory{}, fmt.Errorf("reading /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Memory{}, fmt.Errorf("reading /metrics: HTTP %d", resp.StatusCode)
	}
	return parseMemory(resp.Body)
}

// parseMemory finds the two memory gauges in a Prometheus text exposition.
func parseMemory(r io.Reader) (Memory, error) {
	var m Memory
	want := map[string]*float64{
		"process_resident_memory_bytes": &m.ResidentBytes,
		"go_memstats_heap_inuse_bytes":  &m.HeapInuseBytes,
	}
	seen := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		end := strings.IndexAny(line, " {") // "name value" or "name{labels} value [ts]"
		if end < 0 {
			continue
		}
		dst, ok := want[line[:end]]
		if !ok {
			continue
		}
		rest := line[end:]
		if rest[0] == '{' {
			closing := strings.LastIndexByte(rest, '}')
			if closing < 0 {
				continue
			}
			rest = rest[closing+1:]
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return Memory{}, fmt.Errorf("/metrics: %s: %w", line[:end], err)
		}
		*dst = v
		delete(want, line[:end])
		seen++
	}
	if err := sc.Err(); err != nil {
		return Memory{}, fmt.Errorf("reading /metrics: %w", err)
	}
	if seen == 0 {
		return Memory{}, fmt.Errorf("/metrics has neither process_resident_memory_bytes nor go_memstats_heap_inuse_bytes")
	}
	return m, nil
}
