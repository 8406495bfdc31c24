package cassandrastore

import (
	"context"
	"errors"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/heraldmq/herald"
)

// slotListConcurrency bounds the concurrent slot reads of one list.
const slotListConcurrency = 32

// list reads every slot of the account with cql, which binds (account,
// slot) and then from, concurrently, and merges them in name order until
// it has limit records or no slot has another name with the prefix. Names
// are spread evenly over the slots, so each slot is read in pages of a
// little more than its share of limit, and a slot whose share runs out
// fetches its next page only when the merge needs it. limit <= 0 returns
// nothing.
func (t *slottedTable[T]) list(ctx context.Context, c *conn, op, account, prefix string, limit int, cql string, from ...any) ([]*T, error) {
	if limit <= 0 {
		return nil, nil
	}
	share := (limit + t.slots - 1) / t.slots
	page := min(limit, 2*share+8)
	slots := make([]*slotReader[T], t.slots)
	defer func() {
		for _, s := range slots {
			if s != nil {
				s.iter.Close()
			}
		}
	}()
	err := parallel(t.slots, slotListConcurrency, func(slot int) error {
		args := append([]any{accountKey(account), slot}, from...)
		iter := c.s.Query(cql, args...).PageSize(page).WithContext(ctx).Iter()
		s := &slotReader[T]{t: t, iter: iter, op: op, account: account, prefix: prefix}
		slots[slot] = s
		return s.next()
	})
	var out []*T
	for err == nil && len(out) < limit {
		var first *slotReader[T]
		for _, s := range slots {
			if s.head != nil && (first == nil || t.key(s.head).name < t.key(first.head).name) {
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

// slotReader reads one slot's records in name order; head is the next
// record with the prefix, nil once there is none.
type slotReader[T any] struct {
	t                   *slottedTable[T]
	iter                *gocql.Iter
	op, account, prefix string
	head                *T
}

// next moves head to the slot's next record with the prefix. Records are
// in name order, so the first name without the prefix ends the slot.
func (s *slotReader[T]) next() error {
	s.head = nil
	rec, ok, err := s.t.scan(s.iter, s.account)
	if err != nil {
		return herald.Errorf(herald.EInternal, "%s: %v", s.op, err)
	}
	if !ok {
		return s.iter.Close() // the end, or the error that ended it
	}
	if strings.HasPrefix(s.t.key(rec).name, s.prefix) {
		s.head = rec
	}
	return nil
}
