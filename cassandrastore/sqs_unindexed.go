package cassandrastore

import (
	"context"
	"hash/fnv"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
)

// Unindexed queues: a few rows in sqsUnindexedSlots partitions, one per
// queue whose Index may lack messages. Each data center has slots of its
// own (unindexedSlot0): a mark says that its Redis missed a send, so only
// its own nodes may take it; a node of the other data center dropping its
// own Redis state instead would leave the mark's Redis wrong.

const (
	// sqsUnindexedSlots spreads marks over partitions (see the table).
	sqsUnindexedSlots = 8
	// sqsUnindexedTTL bounds how long a mark waits to be taken: past the
	// longest retention period, every message it stood for has expired.
	sqsUnindexedTTL = 30 * 24 * time.Hour
)

// unindexedSlot0 is the first of the data center localDC's slots: 0 in
// one data center (LocalDC empty), the slots of every mark written before
// data centers had slots of their own; otherwise a multiple of
// sqsUnindexedSlots derived from the name (FNV-1a), never 0, within a CQL
// int. Two data center names that share a base would share slots, which
// costs one rebuild too many, never a missed one.
func unindexedSlot0(localDC string) int {
	if localDC == "" {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(localDC))
	return int(h.Sum32()>>5|1) * sqsUnindexedSlots
}

// unindexedSlot is queueID's slot among this data center's.
func (qs *queueStore) unindexedSlot(queueID uuid.UUID) int {
	return unindexedSlot0(qs.st.opts.LocalDC) + shardOf(queueID, sqsUnindexedSlots)
}

// MarkUnindexed writes the queue's mark (again: a later write survives a
// concurrent take, see deleteUnindexed).
func (qs *queueStore) MarkUnindexed(ctx context.Context, queueID uuid.UUID) error {
	const op = "mark unindexed"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return err
	}
	err = c.write(qs.q.insertUnindexed, qs.unindexedSlot(queueID), cqlUUID(queueID),
		qs.st.opts.Now().UnixNano(), int(sqsUnindexedTTL/time.Second)).WithContext(ctx).Exec()
	if err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// TakeUnindexed reads up to limit marks, slot after slot, and deletes each
// at the write time it was read with, so that a mark written again
// meanwhile stays for the next take. Two processes taking at once may both
// return a queue: one rebuild too many, never one too few.
func (qs *queueStore) TakeUnindexed(ctx context.Context, limit int) ([]uuid.UUID, error) {
	const op = "take unindexed"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	type mark struct {
		slot int
		id   uuid.UUID
		ts   int64
	}
	var marks []mark
	start, first := int(qs.takeStart.Add(1)), unindexedSlot0(qs.st.opts.LocalDC)
	for i := 0; i < sqsUnindexedSlots && len(marks) < limit; i++ {
		slot := first + (start+i)%sqsUnindexedSlots
		iter := c.s.Query(qs.q.selectUnindexed, slot).PageSize(pageSize(limit - len(marks))).WithContext(ctx).Iter()
		var id gocql.UUID
		var ts int64
		for len(marks) < limit && iter.Scan(&id, &ts) {
			marks = append(marks, mark{slot, uuid.UUID(id), ts})
		}
		if err := iter.Close(); err != nil {
			return nil, herald.Unavailable(op, err)
		}
	}
	err = parallel(len(marks), sqsConcurrency, func(i int) error {
		m := marks[i]
		return c.write(qs.q.deleteUnindexed, m.ts, m.slot, cqlUUID(m.id)).WithContext(ctx).Exec()
	})
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	ids := make([]uuid.UUID, len(marks))
	for i, m := range marks {
		ids[i] = m.id
	}
	return ids, nil
}
