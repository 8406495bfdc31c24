// Package sqs is Herald's SQS-compatible queue service: the domain that
// lets the official AWS SDKs (aws-sdk-go-v2, boto3, ...) talk to Herald
// without changes, whatever the engine underneath.
//
// It holds:
//   - the wire-independent rules: AWS error codes and their HTTP statuses
//     (errors.go), queue names, ARNs and URLs, queue attributes and limits,
//     redrive policies, message checks and the MD5 digests the SDKs verify;
//   - API, the actions as the protocol edges call them (awsapi speaks JSON
//     1.0 and Query/XML and maps each action onto it), and Service, which
//     implements it and authorizes every action against the caller's
//     identity and the queue's policy (authorize.go); queues are named by
//     account, region and name (region.go);
//   - the interfaces Service needs and the engines implement: Store, the
//     durable queue records and messages (pebblestore, cassandrastore);
//     Index, visibility, order and receive counts, a cache rebuilt from the
//     Store whenever it is lost (sqsmem, redisindex); Notifier, the
//     long-poll wake-ups. sqstest.RunStore and sqstest.RunIndex hold every
//     engine to one contract;
//   - the multi-data-center pieces: fences (dc.go), and an Index and a
//     Notifier spanning the data centers (index_dc.go, notifier_dc.go).
//
// A send is written to the Store before it is answered and then to the
// Index, so a failing Index can only cause duplicates, never a loss: while
// the Index is unreachable, receives are served from the Store ("degraded
// mode") and the affected queues are rebuilt once it is back
// (ARCHITECTURE.md, "The path of one queue message").
package sqs
