package cassandrastore

import (
	"context"
	"errors"
	"hash/fnv"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// sqsQueueSlots is the number of partitions an account's queue records are
// spread over (see the sqs_queues table). It decides where every stored
// record lives: changing it would hide the queues already created.
const sqsQueueSlots = 128

// queueSlot is the partition slot of the queue record of name.
func queueSlot(name string) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % sqsQueueSlots)
}

// ListQueues reads every slot of the account from the later of prefix and
// after, concurrently, and merges them in name order until it has limit
// names or no slot has another name with the prefix. Names are spread
// evenly over the slots, so each slot is read in pages of a little more
// than its share of limit, and a slot whose share runs out fetches its next
// page only when the merge needs it. limit <= 0 returns nothing.
func (qs *queueStore) ListQueues(ctx context.Context, account, prefix, after string, limit int) ([]*sqs.Queue, error) {
	const op = "list queues"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	cql, from := qs.q.listQueuesFrom, prefix
	if after >= prefix {
		cql, from = qs.q.listQueuesAfter, after
	}
	share := (limit + sqsQueueSlots - 1) / sqsQueueSlots
	page := min(limit, 2*share+8)
	slots := make([]*slotReader, sqsQueueSlots)
	defer func() {
		for _, s := range slots {
			if s != nil {
				s.iter.Close()
			}
		}
	}()
	err = parallel(sqsQueueSlots, sqsListConcurrency, func(slot int) error {
		iter := c.s.Query(cql, accountKey(account), slot, from).PageSize(page).WithContext(ctx).Iter()
		s := &slotReader{iter: iter, account: account, prefix: prefix}
		slots[slot] = s
		return s.next()
	})
	var out []*sqs.Queue
	for err == nil && len(out) < limit {
		var first *slotReader
		for _, s := range slots {
			if s.head != nil && (first == nil || s.head.Name < first.head.Name) {
				first = s
			}
		}
		if first == nil {
			break
		}
		out = append(out, first.head)
		err = first.next()
	}
	var herr *herald.Error
	if errors.As(err, &herr) {
		return nil, err
	}
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return out, nil
}

// sqsListConcurrency bounds the concurrent slot reads of ListQueues.
const sqsListConcurrency = 32

// slotReader reads one slot's queue records in name order; head is the
// next record with the prefix, nil once there is none.
type slotReader struct {
	iter            *gocql.Iter
	account, prefix string
	head            *sqs.Queue
}

// next moves head to the slot's next record with the prefix. Records are
// in name order, so the first name without the prefix ends the slot.
func (s *slotReader) next() error {
	s.head = nil
	q, ok, err := scanQueue(s.iter, s.account)
	if err != nil {
		return herald.Errorf(herald.EInternal, "list queues: %v", err)
	}
	if !ok {
		return s.iter.Close() // the end, or the error that ended it
	}
	if strings.HasPrefix(q.Name, s.prefix) {
		s.head = q
	}
	return nil
}
