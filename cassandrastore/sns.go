package cassandrastore

import (
	"context"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sns"
)

// topicStore is the Cassandra implementation of sns.Store. It shares the
// cache Store's connection and keyspace; its tables are the sns_* ones
// (sns_schema.go).
type topicStore struct {
	st *Store
	q  snsQueries
	// records are the topic records (sns_topics).
	records slottedTable[sns.Topic]
}

func newTopicStore(st *Store) *topicStore {
	q := newSNSQueries(st.opts.Keyspace)
	return &topicStore{st: st, q: q, records: topicRecords(q, st.opts.serialConsistency())}
}

// enter returns the connection for one call of op (see Store.enter).
func (ts *topicStore) enter(ctx context.Context, op string) (*conn, error) {
	return ts.st.enter(ctx, op)
}

func subNotFound(id uuid.UUID) error {
	return herald.Errorf(herald.ENotFound, "subscription %s does not exist", id)
}

// Check that topicStore implements the contract.
var _ sns.Store = (*topicStore)(nil)
