// Package rollups is 'herald bench rollups': a load generator shaped like
// the LoopLogic analytics of docs/background.md. It defines a rollup fed by
// an SQS queue (3 scopes × 5 periods × 16 dimensions + 2 drill-downs, 18
// metrics: 285 rows and 5,130 counters per event), sends events with
// Zipf-distributed channels, videos, countries, cities and sites through
// SendMessageBatch (10 events per message, 10 messages per call), measures
// freshness (send → visible in a query) with probe events, and at the end
// checks the server's totals against its own reference count.
//
// It loads only the server it is given (loopback in practice), bounded in
// time and rate.
package rollups
