package metrics

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// observers caches, per label combination, the counter and histogram
// that one answered request updates, so that a request finds both with one
// map lookup instead of each vector hashing and checking its label values
// again. Combinations are as bounded as the vectors' own series.
type observers struct {
	counts *prometheus.CounterVec   // labels: a, b, status
	took   *prometheus.HistogramVec // labels: a, b
	mu     sync.RWMutex
	byKey  map[observerKey]observer
}

type observerKey struct {
	a, b   string
	status int
}

type observer struct {
	count prometheus.Counter
	took  prometheus.Observer
}

func newObservers(counts *prometheus.CounterVec, took *prometheus.HistogramVec) *observers {
	return &observers{counts: counts, took: took, byKey: make(map[observerKey]observer)}
}

// of returns the instruments of labels a, b and status.
func (o *observers) of(a, b string, status int) observer {
	k := observerKey{a, b, status}
	o.mu.RLock()
	ob, ok := o.byKey[k]
	o.mu.RUnlock()
	if ok {
		return ob
	}
	ob = observer{count: o.counts.WithLabelValues(a, b, strconv.Itoa(status)), took: o.took.WithLabelValues(a, b)}
	o.mu.Lock()
	o.byKey[k] = ob
	o.mu.Unlock()
	return ob
}
