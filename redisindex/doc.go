// Package redisindex keeps the SQS Index (sqs.Index) and the long-poll
// Notifier (sqs.Notifier) in Redis, for Herald nodes that run on Cassandra:
// every node sees the same receivable messages, in-flight timeouts and
// receive counts, and a send on one node wakes long polls on the others.
//
// Every operation on a queue is one Lua script, so it is atomic, and all
// the keys of a queue carry the queue ID as a hash tag, so a queue lives in
// one Redis Cluster slot. Key layout, for prefix P (default "herald:sqs:")
// and queue ID Q:
//
//	P{Q}:m        hash: b = "2" once built (the "loaded" marker, naming this layout),
//	              e = the index epoch it was built (or is being rebuilt) under, s = add sequence,
//	              rp = an interrupted rebuild's position (lua/rebuildadd.lua)
//	P{Q}:d        hash: message id (16 bytes) -> "seq:receives:firstReceiveMs:group"
//	P{Q}:v        zset: member -> visible-at (ms); every tracked message
//	P{Q}:f        zset: member -> end of visibility timeout (ms); received messages
//	              (on standard queues, those past their end came back: Receive
//	              hands them out first)
//	P{Q}:gs       zset (FIFO): group -> sequence of its head (plus 2^52 when the
//	              head came back from a receive); groups not blocked
//	P{Q}:gb       zset (FIFO): group -> end of its block (ms)
//	P{Q}:o:GROUP  zset (FIFO): the group's members in send order (each behind
//	              its 19-hex-digit order key, all of score 0)
//	P{Q}:lock     string: rebuild lease token (SET NX PX)
//	P{Q}:dd:KEY   string: message id first sent with deduplication KEY (SET PX)
//	Pnotify:Q     pub/sub channel: "queue Q may have messages"
//
// A member is the message's 12-hex-digit add sequence followed by its 16
// id bytes, so that messages of equal visible-at time sort in add order.
//
// A FIFO group is kept in send order, whatever order its messages are added
// in: the order key is the 60-bit time and the clock sequence of the
// message's version 1 ID (sqs.SentBefore), so a rebuild that adds an old
// backlog after newer sends puts it ahead of them.
//
// A queue marked built by an older layout (b = "1", groups as lists in add
// order) is forgotten when first seen and rebuilt from the Store.
//
// The index epoch (sqs.IndexEpochs, sqs.IndexQueue.Epoch) is a number per
// data center, kept in Cassandra, that every built marker must match:
// Receive, Counts and Missing forget a state written under an older epoch
// (as for an older layout: the queue is rebuilt from the Store) and answer
// sqs.ErrStaleEpoch for a newer one, which the node reads again. A marker
// without e (written before epochs existed) counts as epoch 0, so the
// layout stays "2": nodes of an older release, which ignore e, go on using
// the states newer ones build. Bumping the epoch ('herald sqs-reindex')
// makes a data center's Redis forget every queue, lazily, on next use,
// and nothing else in that Redis.
//
// The loaded marker exists because an empty Redis and an empty queue look
// alike: after a flush, a restart or a failover the marker is gone, Receive
// and Counts return sqs.ErrNotBuilt and the Service rebuilds the queue from
// the Store. A queue with no messages keeps only its marker, and only for
// Options.IdleExpiry after its last receive, so millions of idle queues
// cost Redis nothing; the rebuild of an empty queue is cheap.
//
// Times come from the caller (ReceiveRequest.Now and the like), never from
// Redis, and are kept at millisecond precision.
//
// Redis that cannot be reached, or answers too slowly, makes every
// operation fail within Options.Timeout with a herald EUnavailable error,
// so that the Service degrades to the Store alone.
//
// With Options.AutoPipeline (herald's default, --redis-pipeline) the
// scripts and publishes of concurrent callers share one write and one
// read through go-redis's automatic pipeline (pipeline.go); each caller
// still waits only until its own context ends.
//
// Limits (limits.go) keeps the buckets of the rate limits that every node
// shares (limits.Shared), under "rate:" + Prefix + "limit:"; unlike the
// index, they take their time from Redis, so that all nodes count alike.
package redisindex
