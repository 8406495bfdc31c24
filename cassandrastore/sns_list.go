package cassandrastore

import (
	"context"

	"github.com/heraldmq/herald/sns"
)

// ListTopics lists the account's topics after `after`, in name order
// (slottedTable.list). limit <= 0 returns nothing.
func (ts *topicStore) ListTopics(ctx context.Context, account, after string, limit int) ([]*sns.Topic, error) {
	const op = "list topics"
	c, err := ts.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	if after == "" {
		return ts.records.list(ctx, c, op, account, "", limit, ts.q.listTopics)
	}
	return ts.records.list(ctx, c, op, account, "", limit, ts.q.listTopicsAfter, after)
}
