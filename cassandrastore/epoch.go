package cassandrastore

import (
	"context"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/heraldmq/herald/cache"
)

// Epoch names the keyspace's incarnation (cache.Store.Epoch); "" until
// the store has connected.
func (st *Store) Epoch() string {
	if c := st.conn.Load(); c != nil {
		return c.epoch
	}
	return ""
}

// ensureEpoch reads the keyspace's epoch, storing a new one first in a
// keyspace that has none (new, or written before epochs existed). The
// lightweight transaction makes every process, in every data center, read
// the same one.
func ensureEpoch(ctx context.Context, s *gocql.Session, keyspace string) (string, error) {
	read := func() (string, error) {
		var e string
		err := s.Query(fmt.Sprintf(`SELECT epoch FROM %s.epoch WHERE name = 'epoch'`, keyspace)).
			WithContext(ctx).Consistency(gocql.Serial).Scan(&e)
		return e, err
	}
	e, err := read()
	if err == gocql.ErrNotFound {
		stmt := fmt.Sprintf(`INSERT INTO %s.epoch (name, epoch) VALUES ('epoch', ?) IF NOT EXISTS`, keyspace)
		if _, err := s.Query(stmt, cache.NewEpoch()).WithContext(ctx).MapScanCAS(map[string]any{}); err != nil {
			return "", fmt.Errorf("store epoch: %w", err)
		}
		e, err = read()
	}
	if err != nil {
		return "", fmt.Errorf("read epoch: %w", err)
	}
	if !cache.ValidEpoch(e) {
		return "", fmt.Errorf("the epoch of keyspace %s is malformed: %q", keyspace, e)
	}
	return e, nil
}
