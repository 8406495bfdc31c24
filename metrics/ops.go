package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldmq/herald/internal/buildinfo"
	"github.com/heraldmq/herald/sqs"
)

// BuildInfo exposes herald_build_info: always 1, labelled with the
// binary's version, commit and Go version.
func BuildInfo(info buildinfo.Info) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "herald_build_info",
		Help: "Always 1; its labels say which Herald this is: version, commit (VCS revision) and go_version.",
		ConstLabels: prometheus.Labels{
			"version": info.Version, "commit": info.Commit, "go_version": info.GoVersion,
		},
	}, func() float64 { return 1 })
}

// StoreSize exposes herald_store_size_bytes, read by size on each scrape
// (the embedded store's disk usage).
func StoreSize(size func(context.Context) (uint64, error)) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "herald_store_size_bytes",
		Help: "Bytes the embedded store occupies on disk (Pebble's tables, WAL and manifests).",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		n, err := size(ctx)
		if err != nil {
			return 0
		}
		return float64(n)
	})
}

// queueLabels name one queue on the per-queue series.
var queueLabels = []string{"account", "region", "queue"}

// QueueCollector exposes per-queue series for at most limit queues
// (sqs.Service.QueueMetrics chooses them: all while there are at most
// limit, else the deepest), read on each scrape.
type QueueCollector struct {
	read  func(ctx context.Context, limit int) []sqs.QueueMetric
	limit int

	visible, inFlight, delayed, oldest         *prometheus.Desc
	sent, received, deleted, deadLettered, lim *prometheus.Desc
}

// NewQueueCollector returns the per-queue collector of svc; limit <= 0
// exports no per-queue series (only herald_sqs_queue_metrics_limit).
func NewQueueCollector(svc *sqs.Service, limit int) *QueueCollector {
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, queueLabels, nil) }
	return &QueueCollector{
		read: svc.QueueMetrics, limit: limit,
		visible:      d("herald_sqs_queue_messages_visible", "Messages receivable now (ApproximateNumberOfMessages), per queue (at most --metrics-queue-limit queues, the deepest)."),
		inFlight:     d("herald_sqs_queue_messages_in_flight", "Messages received and not yet deleted or visible again (ApproximateNumberOfMessagesNotVisible), per queue."),
		delayed:      d("herald_sqs_queue_messages_delayed", "Messages not yet visible because of a delay (ApproximateNumberOfMessagesDelayed), per queue."),
		oldest:       d("herald_sqs_queue_oldest_message_age_seconds", "Age of the oldest message stored in the queue (visible, in flight or delayed), from its SentTimestamp; 0 when empty."),
		sent:         d("herald_sqs_queue_messages_sent_total", "Messages sent to the queue through this node since it started."),
		received:     d("herald_sqs_queue_messages_received_total", "Messages received from the queue through this node since it started."),
		deleted:      d("herald_sqs_queue_messages_deleted_total", "Messages deleted from the queue through this node since it started."),
		deadLettered: d("herald_sqs_queue_messages_dead_lettered_total", "Messages this node moved into the queue as its dead-letter queue (maxReceiveCount exceeded) since it started."),
		lim:          prometheus.NewDesc("herald_sqs_queue_metrics_limit", "Most queues the per-queue series name (--metrics-queue-limit); 0 turns them off.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *QueueCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.visible, c.inFlight, c.delayed, c.oldest, c.sent, c.received, c.deleted, c.deadLettered, c.lim} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *QueueCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.lim, prometheus.GaugeValue, float64(max(0, c.limit)))
	if c.limit <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, m := range c.read(ctx, c.limit) {
		lv := []string{m.Account, m.Region, m.Name}
		ch <- prometheus.MustNewConstMetric(c.visible, prometheus.GaugeValue, float64(m.Visible), lv...)
		ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, float64(m.InFlight), lv...)
		ch <- prometheus.MustNewConstMetric(c.delayed, prometheus.GaugeValue, float64(m.Delayed), lv...)
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, m.OldestAge.Seconds(), lv...)
		ch <- prometheus.MustNewConstMetric(c.sent, prometheus.CounterValue, float64(m.Sent), lv...)
		ch <- prometheus.MustNewConstMetric(c.received, prometheus.CounterValue, float64(m.Received), lv...)
		ch <- prometheus.MustNewConstMetric(c.deleted, prometheus.CounterValue, float64(m.Deleted), lv...)
		ch <- prometheus.MustNewConstMetric(c.deadLettered, prometheus.CounterValue, float64(m.DeadLettered), lv...)
	}
}
