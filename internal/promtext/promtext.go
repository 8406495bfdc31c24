// Package promtext reads chosen samples from a Prometheus text exposition
// (a /metrics page): the load generators use it to read Herald's memory
// and counters before and after a run.
package promtext

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Parse returns the values of the samples named in want, each written as
// it appears on the page: `name{label="value"}` (labels in the page's
// order) for one labelled sample, or a bare "name", which takes the first
// sample of that name whatever its labels. Samples not on the page are
// absent from the result.
func Parse(r io.Reader, want ...string) (map[string]float64, error) {
	wanted := make(map[string]bool, len(want))
	for _, w := range want {
		wanted[w] = true
	}
	got := make(map[string]float64, len(want))
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		key, rest := splitSample(line)
		if !wanted[key] {
			bare, _, labelled := strings.Cut(key, "{")
			if _, seen := got[bare]; !labelled || !wanted[bare] || seen {
				continue
			}
			key = bare
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("/metrics: %s: %w", key, err)
		}
		got[key] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading /metrics: %w", err)
	}
	return got, nil
}

// splitSample splits "name{labels} value [timestamp]" (or "name value")
// into the sample's key and the rest of the line.
func splitSample(line string) (key, rest string) {
	if i := strings.IndexByte(line, '{'); i >= 0 && i < strings.IndexByte(line+" ", ' ') {
		if j := strings.LastIndexByte(line, '}'); j > i {
			return line[:j+1], line[j+1:]
		}
	}
	if i := strings.IndexByte(line, ' '); i >= 0 {
		return line[:i], line[i:]
	}
	return line, ""
}

// Fetch reads the /metrics page at url (text format) and parses it.
func Fetch(ctx context.Context, hc *http.Client, url string, want ...string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	// Ask for the text format: a server may prefer protobuf otherwise.
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reading /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("reading /metrics: HTTP %d", resp.StatusCode)
	}
	return Parse(resp.Body, want...)
}
