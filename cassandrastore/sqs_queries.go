package cassandrastore

import "fmt"

// sqsQueries are the CQL statements of the SQS tables for one keyspace,
// built once so that the driver prepares each once per connection.
type sqsQueries struct {
	insertQueue, selectQueue, updateQueue, deleteQueue string
	listQueuesFrom, listQueuesAfter                    string

	insertMessage, selectMessages, selectMessage string
	scanBucket, scanBucketAfter                  string
	updateState, deleteMessages, deletePartition string
	selectPurgeCandidates                        string

	insertBucket, selectBuckets string

	insertUnindexed, selectUnindexed, deleteUnindexed string
}

// queueColumns are the columns of a queue record as scanQueue reads them.
const queueColumns = `id, name, shards, attributes, tags, created_ns, modified_ns, purged_ns, home_dc`

// messageColumns are the columns of a message as scanMessage reads them.
const messageColumns = `pos, body, attrs, sender_id, sent_ns, expires_ns, group_id, dedup_id, sequence, dlq_source, ` +
	`receive_count, first_receive_ns, visible_ns`

func newSQSQueries(ks string) sqsQueries {
	f := func(format string) string { return fmt.Sprintf(format, ks) }
	return sqsQueries{
		insertQueue: f(`INSERT INTO %s.sqs_queues (account, slot, name, id, shards, attributes, tags, created_ns, modified_ns, purged_ns, home_dc) ` +
			`VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS`),
		selectQueue: f(`SELECT ` + queueColumns + ` FROM %s.sqs_queues WHERE account = ? AND slot = ? AND name = ?`),
		updateQueue: f(`UPDATE %s.sqs_queues SET shards = ?, attributes = ?, tags = ?, created_ns = ?, modified_ns = ?, purged_ns = ? ` +
			`WHERE account = ? AND slot = ? AND name = ? IF id = ?`),
		deleteQueue:     f(`DELETE FROM %s.sqs_queues WHERE account = ? AND slot = ? AND name = ? IF id = ?`),
		listQueuesFrom:  f(`SELECT ` + queueColumns + ` FROM %s.sqs_queues WHERE account = ? AND slot = ? AND name >= ?`),
		listQueuesAfter: f(`SELECT ` + queueColumns + ` FROM %s.sqs_queues WHERE account = ? AND slot = ? AND name > ?`),

		insertMessage: f(`INSERT INTO %s.sqs_messages (queue_id, shard, bucket, pos, body, attrs, sender_id, sent_ns, expires_ns, ` +
			`group_id, dedup_id, sequence, dlq_source, receive_count, first_receive_ns, visible_ns) ` +
			`VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TTL ?`),
		selectMessages: f(`SELECT ` + messageColumns + ` FROM %s.sqs_messages WHERE queue_id = ? AND shard = ? AND bucket = ? AND pos IN ?`),
		selectMessage:  f(`SELECT ` + messageColumns + ` FROM %s.sqs_messages WHERE queue_id = ? AND shard = ? AND bucket = ? AND pos = ?`),
		scanBucket:     f(`SELECT ` + messageColumns + ` FROM %s.sqs_messages WHERE queue_id = ? AND shard = ? AND bucket = ?`),
		scanBucketAfter: f(`SELECT ` + messageColumns + ` FROM %s.sqs_messages ` +
			`WHERE queue_id = ? AND shard = ? AND bucket = ? AND pos > ?`),
		updateState: f(`UPDATE %s.sqs_messages USING TTL ? SET receive_count = ?, first_receive_ns = ?, visible_ns = ? ` +
			`WHERE queue_id = ? AND shard = ? AND bucket = ? AND pos = ?`),
		deleteMessages:        f(`DELETE FROM %s.sqs_messages WHERE queue_id = ? AND shard = ? AND bucket = ? AND pos IN ?`),
		deletePartition:       f(`DELETE FROM %s.sqs_messages WHERE queue_id = ? AND shard = ? AND bucket = ?`),
		selectPurgeCandidates: f(`SELECT pos, sent_ns FROM %s.sqs_messages WHERE queue_id = ? AND shard = ? AND bucket = ?`),

		insertBucket:  f(`INSERT INTO %s.sqs_buckets (queue_id, shard, bucket) VALUES (?, ?, ?) USING TIMESTAMP ? AND TTL ?`),
		selectBuckets: f(`SELECT bucket FROM %s.sqs_buckets WHERE queue_id = ? AND shard = ? AND bucket >= ?`),

		insertUnindexed: f(`INSERT INTO %s.sqs_unindexed (slot, queue_id, marked_ns) VALUES (?, ?, ?) USING TTL ?`),
		selectUnindexed: f(`SELECT queue_id, WRITETIME(marked_ns) FROM %s.sqs_unindexed WHERE slot = ?`),
		// USING TIMESTAMP <write time read>: a mark written again after
		// the read has a later timestamp and survives the delete.
		deleteUnindexed: f(`DELETE FROM %s.sqs_unindexed USING TIMESTAMP ? WHERE slot = ? AND queue_id = ?`),
	}
}
