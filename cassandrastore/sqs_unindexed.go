package cassandrastore

import (
	"context"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
)

// Unindexed queues: a few rows in sqsUnindexedSlots partitions, one per
// queue whose Index may lack messages.

const (
	// sqsUnindexedSlots spreads marks over partitions (see the table).
	sqsUnindexedSlots = 8
	// sqsUnindexedTTL bounds how long a mark waits to be taken: past the
	// longest retention period, every message it stood for has expired.
	sqsUnindexedTTL = 30 * 24 * time.Hour
)

// MarkUnindexed writes the queue's mark (again: a later write survives a
// concurrent take, see deleteUnindexed).
func (qs *queueStore) MarkUnindexed(ctx context.Context, queueID uuid.UUID) error {
	const op = "mark unindexed"
	c, err := qs.enter(ctx, op)
	if err != nil {
		return err
	}
	err = c.write(qs.q.insertUnindexed, shardOf(queueID, sqsUnindexedSlots), cqlUUID(queueID),
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
	start := int(qs.takeStart.Add(1))
	for i := 0; i < sqsUnindexedSlots && len(marks) < limit; i++ {
		slot := (start + i) % sqsUnindexedSlots
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
