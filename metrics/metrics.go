// Package metrics holds Herald's Prometheus instruments: HTTP requests by
// route and status with latency histograms, SQS and SNS requests by
// action, the latency of every storage operation (decorators of the cache
// and queue stores and of the SQS Index), per-queue gauges, and the
// node's summary for the console.
// Each Herald process has one Metrics, served at GET /metrics.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is one process's registry and instruments.
type Metrics struct {
	Registry        *prometheus.Registry
	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	storeDuration   *prometheus.HistogramVec
	indexDuration   *prometheus.HistogramVec
	awsRequests     *prometheus.CounterVec
	awsDuration     *prometheus.HistogramVec
	httpObservers   *observers // requests and requestDuration
	awsObservers    *observers // awsRequests and awsDuration
}

// New returns a registry holding Herald's instruments and the Go runtime
// and process collectors.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_http_requests_total",
			Help: "HTTP requests answered, by route, method and status code.",
		}, []string{"route", "method", "status"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "herald_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route and method.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 18),
		}, []string{"route", "method"}),
		storeDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "herald_store_operation_duration_seconds",
			Help:    "Time of one storage engine operation, by operation and result (ok or error).",
			Buckets: prometheus.ExponentialBuckets(0.00001, 2, 22),
		}, []string{"op", "result"}),
		indexDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "herald_sqs_index_operation_duration_seconds",
			Help:    "Time of one operation of the SQS Index (Redis on the Cassandra engine, in process on the embedded one), by operation and result (ok or error).",
			Buckets: prometheus.ExponentialBuckets(0.00001, 2, 22),
		}, []string{"op", "result"}),
		awsRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_aws_requests_total",
			Help: "SQS and SNS API requests answered, by service, action and HTTP status code.",
		}, []string{"service", "action", "status"}),
		awsDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "herald_aws_request_duration_seconds",
			Help:    "Time to answer an SQS or SNS API request, by service and action (long polls included).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 19),
		}, []string{"service", "action"}),
	}
	m.httpObservers = newObservers(m.requests, m.requestDuration)
	m.awsObservers = newObservers(m.awsRequests, m.awsDuration)
	m.Registry.MustRegister(m.requests, m.requestDuration, m.storeDuration, m.indexDuration, m.awsRequests, m.awsDuration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// ObserveRequest records one answered HTTP request.
func (m *Metrics) ObserveRequest(route, method string, status int, d time.Duration) {
	o := m.httpObservers.of(route, method, status)
	o.count.Inc()
	o.took.Observe(d.Seconds())
}

// ObserveAWS records one answered SQS or SNS request (awsapi.Config.Observe).
func (m *Metrics) ObserveAWS(service, action string, status int, d time.Duration) {
	o := m.awsObservers.of(service, action, status)
	o.count.Inc()
	o.took.Observe(d.Seconds())
}

// ObserveStore records one storage operation.
func (m *Metrics) ObserveStore(op string, err error, d time.Duration) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.storeDuration.WithLabelValues(op, result).Observe(d.Seconds())
}

// ObserveIndex records one SQS Index operation.
func (m *Metrics) ObserveIndex(op string, err error, d time.Duration) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.indexDuration.WithLabelValues(op, result).Observe(d.Seconds())
}
