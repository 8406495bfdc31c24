// Package limits keeps one tenant from exhausting a Herald shared by many:
// request and byte rates per account and door (SQS, SNS, the cache's HTTP
// API, WebSocket publishes, AMQP ingest, rollup events), each set for
// every account or for one, and checked by the domain services on every
// action (sqs.Limited, sns.Limited, cache.Service, rollup.Service).
//
// A [Rule] is written "[ACCOUNT/]DOOR[.bytes][:NAME]=RATE/s[:BURST]" or
// "...=off" (see ParseRule and docs/operations.md, "Limits per account");
// the --limit flag and the config file's "limit:" list give them, and
// PUT /v1/admin/limits replaces them at run time. No rule, no limit: the
// embedded default limits nothing.
//
// A [Limiter] keeps a token bucket (golang.org/x/time/rate) per account,
// door and kind that some rule covers, and answers an action over its rate
// with a *herald.Error of code herald.EThrottled carrying when to retry;
// each edge maps it to its protocol's throttling answer. With a [Shared]
// store (redisindex.Limits, on Cassandra) every admitted action is taken
// from the cluster's twin of its bucket as well, so that a rate holds for
// all nodes together (shared.go; the tolerance is in docs/operations.md).
package limits
