package cassandrastore

import (
	"context"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// migrateRollupRows copies the counter rows of the first Cassandra rollup
// layout (rollup_rows: a partition per dimension) into rollup_cells (a
// partition per scope values and bucket, every dimension in it), then
// drops rollup_rows. Each cell keeps its write time and remaining TTL, so
// a copy is idempotent and never overwrites a value a newer commit wrote
// (commits write USING TIMESTAMP of their sequence number): a node that
// dies half-way copies again at its next start. It runs at startup, before
// the store serves a commit; a keyspace without rollup_rows is left alone.
func migrateRollupRows(ctx context.Context, s *gocql.Session, o Options, existing map[string]bool) error {
	if !existing["rollup_rows"] {
		return nil
	}
	it := s.Query(fmt.Sprintf(`SELECT rollup_id, scope, skey, unit, bucket, dim, value, sums, WRITETIME(sums), TTL(sums) FROM %s.rollup_rows`, o.Keyspace)).
		WithContext(ctx).PageSize(1000).Iter()
	ins := fmt.Sprintf(`INSERT INTO %s.rollup_cells (rollup_id, scope, skey, unit, bucket, dim, value, sums) VALUES (?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ? AND TTL ?`, o.Keyspace)
	var (
		id                gocql.UUID
		scope, dim        int
		skey, unit, value string
		bucket, written   int64
		sums              []byte
		ttl               *int
		n                 int
	)
	for it.Scan(&id, &scope, &skey, &unit, &bucket, &dim, &value, &sums, &written, &ttl) {
		left := 0
		if ttl != nil {
			left = *ttl
		}
		if err := s.Query(ins, id, scope, skey, unit, bucket, dim, value, sums, written, left).WithContext(ctx).Exec(); err != nil {
			_ = it.Close()
			return fmt.Errorf("copy rollup rows: %w", err)
		}
		n++
	}
	if err := it.Close(); err != nil {
		if gone(ctx, s, o) {
			return nil // another node moved them and dropped the table meanwhile
		}
		return fmt.Errorf("copy rollup rows: %w", err)
	}
	if err := s.Query(fmt.Sprintf(`DROP TABLE IF EXISTS %s.rollup_rows`, o.Keyspace)).WithContext(ctx).Exec(); err != nil {
		return fmt.Errorf("drop rollup_rows: %w", err)
	}
	o.Logger.Info("cassandra: moved rollup rows to rollup_cells", "keyspace", o.Keyspace, "rows", n)
	return nil
}

// gone reports whether rollup_rows no longer exists.
func gone(ctx context.Context, s *gocql.Session, o Options) bool {
	var name string
	err := s.Query(`SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'rollup_rows'`, o.Keyspace).WithContext(ctx).Scan(&name)
	return err == gocql.ErrNotFound
}
