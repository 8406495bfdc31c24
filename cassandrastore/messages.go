package cassandrastore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// getConcurrency bounds the concurrent reads of one GetMessages call.
const getConcurrency = 32

// GetMessages reads each distinct id with its own single-partition query,
// concurrently (token-aware routing sends each to a replica; an IN over
// many partitions would make one coordinator gather them all).
func (st *Store) GetMessages(ctx context.Context, ids []uuid.UUID) ([]*cache.Message, error) {
	const op = "get messages"
	c, err := st.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	out := make([]*cache.Message, len(ids))
	pos := make(map[uuid.UUID][]int, len(ids))
	var distinct []uuid.UUID
	for i, id := range ids {
		if _, seen := pos[id]; !seen {
			distinct = append(distinct, id)
		}
		pos[id] = append(pos[id], i)
	}
	nowMs := st.nowMs()
	err = parallel(len(distinct), getConcurrency, func(k int) error {
		id := distinct[k]
		m, err := c.getMessage(ctx, &st.q, id, nowMs)
		if err != nil || m == nil {
			return err
		}
		for n, i := range pos[id] {
			if n > 0 { // each entry its own Message, sharing the byte slices
				cp := *m
				m = &cp
			}
			out[i] = m
		}
		return nil
	})
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return out, nil
}

// getMessage reads the message id; nil when it is missing or expired.
func (c *conn) getMessage(ctx context.Context, q *queries, id uuid.UUID, nowMs int64) (*cache.Message, error) {
	m := &cache.Message{ID: id}
	var meta []byte
	var paths string
	var recv, exp int64
	err := c.s.Query(q.selectMessage, [16]byte(id)).WithContext(ctx).
		Scan((*[16]byte)(&m.ReplicaID), &meta, &paths, &m.Body, &recv, &exp)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if exp <= nowMs {
		return nil, nil
	}
	m.Metadata = json.RawMessage(meta)
	m.Paths = strings.Split(paths, "\n")
	m.ReceivedAt = msTime(recv)
	m.ExpiresAt = msTime(exp)
	return m, nil
}

// insertMessage writes the messages row of m.
func (c *conn) insertMessage(ctx context.Context, q *queries, m *cache.Message, ttl int) error {
	body := m.Body
	if body == nil {
		body = []byte{} // an empty value, not a null (which is a tombstone)
	}
	meta := []byte(m.Metadata)
	if meta == nil {
		meta = []byte{}
	}
	return c.write(q.insertMessage,
		[16]byte(m.ID), [16]byte(m.ReplicaID), meta, strings.Join(m.Paths, "\n"), body,
		m.ReceivedAt.UnixMilli(), m.ExpiresAt.UnixMilli(), ttl,
	).WithContext(ctx).Exec()
}
