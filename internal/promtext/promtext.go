// Package promtext reads chosen samples from a Prometheus text exposition
// (a /metrics page): the load generators and the end-to-end tests use it to
// read Herald's memory and counters before and after a run. The page is
// parsed by prometheus/common's expfmt; this package only picks samples.
package promtext

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Parse returns the values of the samples named in want. A name is written
// `name{label="value",...}` for one labelled sample (labels in any order,
// all of the sample's), or as a bare "name", which takes the first sample
// of that name whatever its labels. A histogram's or summary's count and
// sum are named with their suffix, as on the page (`name_count{...}`).
// Samples not on the page are absent from the result.
func Parse(r io.Reader, want ...string) (map[string]float64, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("reading /metrics: %w", err)
	}
	got := make(map[string]float64, len(want))
	for _, w := range want {
		name, labels, bare := splitKey(w)
		if v, ok := pick(families, name, labels, bare); ok {
			got[w] = v
		}
	}
	return got, nil
}

// splitKey splits `name{a="x",b="y"}` into its name and labels; bare is
// true for a key without braces.
func splitKey(key string) (name string, labels map[string]string, bare bool) {
	name, rest, labelled := strings.Cut(key, "{")
	if !labelled {
		return name, nil, true
	}
	labels = map[string]string{}
	for _, pair := range strings.Split(strings.TrimSuffix(rest, "}"), ",") {
		k, v, _ := strings.Cut(pair, "=")
		labels[k] = strings.Trim(v, `"`)
	}
	return name, labels, false
}

// pick finds the sample name{labels} among families: a counter, gauge or
// untyped sample, or the count or sum of a histogram or summary.
func pick(families map[string]*dto.MetricFamily, name string, labels map[string]string, bare bool) (float64, bool) {
	family, suffix := families[name], ""
	if family == nil {
		for _, s := range []string{"_count", "_sum"} {
			if base, ok := strings.CutSuffix(name, s); ok && families[base] != nil {
				family, suffix = families[base], s
			}
		}
	}
	if family == nil {
		return 0, false
	}
	for _, m := range family.GetMetric() {
		if bare || sameLabels(m.GetLabel(), labels) {
			return value(m, suffix)
		}
	}
	return 0, false
}

// sameLabels reports whether a sample has exactly the labels want.
func sameLabels(have []*dto.LabelPair, want map[string]string) bool {
	if len(have) != len(want) {
		return false
	}
	for _, l := range have {
		if v, ok := want[l.GetName()]; !ok || v != l.GetValue() {
			return false
		}
	}
	return true
}

// value is the value of sample m, or of its count or sum (suffix).
func value(m *dto.Metric, suffix string) (float64, bool) {
	switch {
	case suffix == "_count" && m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount()), true
	case suffix == "_sum" && m.Histogram != nil:
		return m.Histogram.GetSampleSum(), true
	case suffix == "_count" && m.Summary != nil:
		return float64(m.Summary.GetSampleCount()), true
	case suffix == "_sum" && m.Summary != nil:
		return m.Summary.GetSampleSum(), true
	case suffix != "":
		return 0, false
	case m.Counter != nil:
		return m.Counter.GetValue(), true
	case m.Gauge != nil:
		return m.Gauge.GetValue(), true
	case m.Untyped != nil:
		return m.Untyped.GetValue(), true
	}
	return 0, false
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
