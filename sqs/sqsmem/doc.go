// Package sqsmem holds the in-process parts of the queue service:
//
//   - [NewIndex], the production [sqs.Index] of embedded Herald (with the
//     Pebble store behind it): per queue a heap of receivable messages (or,
//     on FIFO queues, of receivable message groups) and a map by message id,
//     each queue under its own lock, idle queues evicted so that millions of
//     queues cost little;
//   - [NewNotifier], the in-process [sqs.Notifier] that wakes long polls;
//   - [NewStore], a simple reference [sqs.Store] kept in maps, for the unit
//     tests of the Service and the self-test of the conformance suite.
package sqsmem
