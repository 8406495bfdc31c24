package cassandrastore

import (
	"context"
	"sync/atomic"

	"github.com/heraldmq/herald/sqs"
)

// queueStore is the Cassandra implementation of sqs.Store. It shares the
// cache Store's connection, keyspace, clock and liveness marks; its tables
// are the sqs_* ones (sqs_schema.go).
type queueStore struct {
	st *Store
	q  sqsQueries
	// records are the queue records (sqs_queues).
	records slottedTable[sqs.Queue]
	// takeStart rotates the first slot TakeUnindexed reads, so that a
	// small limit does not always serve the same slots.
	takeStart atomic.Uint32
}

// sqsDefaultShards is DefaultShards. With Redis holding the order and the
// visibility, shards in Cassandra only spread a busy queue's writes over
// partitions (and so over replicas) and bound a partition to a shard's
// share of one minute; a call by id computes its partition (sqs.ShardOf),
// so shards cost a scan (an Index rebuild) one pass per shard, nothing
// else. 4 spreads a hot queue over 4 replica sets and keeps a bucket below
// the tombstone threshold up to about 4,000 messages/s (see
// sqs_schema.go). Busier queues get more: a deployment sets its own
// default (--sqs-shards, sqs.Config.Shards) and a queue its own count at
// creation (the herald:shards tag, sqs.ShardsTag). A queue keeps the count
// it was created with, whatever the default later: every call reads
// q.Shards (shardCount), never this.
const sqsDefaultShards = 4

func newQueueStore(st *Store) *queueStore {
	q := newSQSQueries(st.opts.Keyspace)
	return &queueStore{st: st, q: q, records: queueRecords(q, st.opts.serialConsistency())}
}

// DefaultShards is the shard count of new queues: see sqsDefaultShards.
func (qs *queueStore) DefaultShards() int { return sqsDefaultShards }

// shardCount is the number of shards of q (at least 1).
func shardCount(q *sqs.Queue) int { return max(q.Shards, 1) }

// enter returns the connection for one call of op (see Store.enter).
func (qs *queueStore) enter(ctx context.Context, op string) (*conn, error) {
	return qs.st.enter(ctx, op)
}

// Check that queueStore implements the contract.
var _ sqs.Store = (*queueStore)(nil)
