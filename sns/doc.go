// Package sns is Herald's SNS-compatible topic service: topics,
// subscriptions (http/https endpoints, Herald queues, cache paths) and
// durable fan-out of published messages over Herald's own queues, so that
// nothing is lost while delivery workers are down or endpoints fail.
//
// The wire-independent API is API (api.go); the durable records are in a
// Store (store.go) each engine implements; the protocol edge is awsapi.
package sns
