package cassandrastore

import (
	"context"
	"errors"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// ListTopics reads every slot of the account after `after`, concurrently,
// and merges them in name order until it has limit topics or every slot
// is exhausted. Names spread evenly over the slots, so each slot is read
// in pages of a little more than its share of limit; a slot whose page
// runs out fetches the next one only when the merge needs it. limit <= 0
// returns nothing.
func (ts *topicStore) ListTopics(ctx context.Context, account, after string, limit int) ([]*sns.Topic, error) {
	const op = "list topics"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	share := (limit + snsTopicSlots - 1) / snsTopicSlots
	page := min(limit, 2*share+8)
	slots := make([]*topicSlotReader, snsTopicSlots)
	defer func() {
		for _, s := range slots {
			if s != nil {
				s.iter.Close()
			}
		}
	}()
	err = parallel(snsTopicSlots, snsConcurrency, func(slot int) error {
		var q *gocql.Query
		if after == "" {
			q = c.s.Query(ts.q.listTopics, accountKey(account), slot)
		} else {
			q = c.s.Query(ts.q.listTopicsAfter, accountKey(account), slot, after)
		}
		s := &topicSlotReader{iter: q.PageSize(page).WithContext(ctx).Iter(), account: account}
		slots[slot] = s
		return s.next()
	})
	var out []*sns.Topic
	for err == nil && len(out) < limit {
		var first *topicSlotReader
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

// topicSlotReader reads one slot's topic records in name order; head is
// the next record, nil once there is none.
type topicSlotReader struct {
	iter    *gocql.Iter
	account string
	head    *sns.Topic
}

// next moves head to the slot's next record.
func (s *topicSlotReader) next() error {
	s.head = nil
	t, ok, err := scanTopic(s.iter, s.account)
	if err != nil {
		return herald.Errorf(herald.EInternal, "list topics: %v", err)
	}
	if !ok {
		return s.iter.Close() // the end, or the error that ended it
	}
	s.head = t
	return nil
}
