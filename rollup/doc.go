// Package rollup is Herald's real-time rollups: exact counters per scope,
// dimension and period, fed by events from any door (queues, topics, AMQP,
// cache paths, direct posts), with threshold triggers.
//
// This package holds the domain: what a rollup Definition is and how it is
// validated (definition.go), how time is cut into period buckets
// (period.go), what an event is and how a message body is read as events
// (event.go), which counter rows one event updates (row.go), and how the
// events of one flush are combined in memory so that store writes grow with
// the distinct rows touched, not with events × rows (batch.go).
//
// The model. A Definition names the members of an event that identify it
// (ID) and date it (Time); Scopes, ordered lists of members whose values
// select whose counters an event updates (a channel; a channel and a video);
// Metrics, members holding integer deltas (negative for gauges); Dimensions,
// members whose values split every scope's counters (country, city); and
// DrillDowns, explicit pairs of dimensions counted together (city → site).
// Every event updates, for each scope it has all members of and for each
// Period, the bucket of its time: the scope's total row, one row per
// dimension it carries a value for, and one per drill-down it carries both
// values of. A row holds one exact integer per metric.
//
// Rows are grouped so that no partition grows without bound: a partition
// is one (scope values, period, bucket, dimension), and its rows are that
// dimension's values; an "all" period's single bucket is bounded by the
// dimension's cardinality alone.
package rollup
