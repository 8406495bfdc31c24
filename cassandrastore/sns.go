package cassandrastore

import (
	"context"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
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
	// serial is the consistency of the Paxos phase of the topic records'
	// lightweight transactions, as for queue records (queueStore.serial).
	serial gocql.Consistency
}

func newTopicStore(st *Store) *topicStore {
	ts := &topicStore{st: st, q: newSNSQueries(st.opts.Keyspace), serial: gocql.Serial}
	if strings.HasPrefix(strings.ToUpper(st.opts.Consistency), "LOCAL_") {
		ts.serial = gocql.LocalSerial
	}
	return ts
}

// enter returns the connection for one call of op (see Store.enter).
func (ts *topicStore) enter(ctx context.Context, op string) (*conn, error) {
	return ts.st.enter(ctx, op)
}

func topicNotFound(name string) error {
	return herald.Errorf(herald.ENotFound, "topic %s does not exist", name)
}

func subNotFound(id uuid.UUID) error {
	return herald.Errorf(herald.ENotFound, "subscription %s does not exist", id)
}

// Check that topicStore implements the contract.
var _ sns.Store = (*topicStore)(nil)
