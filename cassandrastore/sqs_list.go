package cassandrastore

import (
	"context"

	"github.com/heraldmq/herald/sqs"
)

// sqsQueueSlots is the number of partitions an account's queue records are
// spread over (see the sqs_queues table). It decides where every stored
// record lives: changing it would hide the queues already created.
const sqsQueueSlots = 128

// queueSlot is the partition slot of the queue record of name.
func queueSlot(name string) int { return nameSlot(name, sqsQueueSlots) }

// ListQueues lists the account's queues with the prefix after `after`, in
// name order (slottedTable.list): it reads every slot from the later of
// prefix and after. limit <= 0 returns nothing.
func (qs *queueStore) ListQueues(ctx context.Context, account, prefix, after string, limit int) ([]*sqs.Queue, error) {
	const op = "list queues"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	cql, from := qs.q.listQueuesFrom, prefix
	if after >= prefix {
		cql, from = qs.q.listQueuesAfter, after
	}
	return qs.records.list(ctx, c, op, account, prefix, limit, cql, from)
}
