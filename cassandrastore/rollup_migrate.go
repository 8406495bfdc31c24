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
	n, _, err := copyRollupCells(ctx, s, o.Keyspace, "rollup_rows", "rollup_cells")
	if err != nil {
		if gone(ctx, s, o) {
			return nil // another node moved them and dropped the table meanwhile
		}
		return err
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

// copyRollupCells copies every counter row of table from into table to
// (both of keyspace ks, with the columns of rollup_cells), each with its
// write time and remaining TTL. It returns how many rows it copied and how
// many of them had a TTL.
func copyRollupCells(ctx context.Context, s *gocql.Session, ks, from, to string) (n, withTTL int, err error) {
	it := s.Query(fmt.Sprintf(`SELECT rollup_id, scope, skey, unit, bucket, dim, value, sums, WRITETIME(sums), TTL(sums) FROM %s.%s`, ks, from)).
		WithContext(ctx).PageSize(1000).Iter()
	ins := fmt.Sprintf(`INSERT INTO %s.%s (rollup_id, scope, skey, unit, bucket, dim, value, sums) VALUES (?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ? AND TTL ?`, ks, to)
	var (
		id                gocql.UUID
		scope, dim        int
		skey, unit, value string
		bucket, written   int64
		sums              []byte
		ttl               *int
	)
	for it.Scan(&id, &scope, &skey, &unit, &bucket, &dim, &value, &sums, &written, &ttl) {
		left := 0
		if ttl != nil {
			left, withTTL = *ttl, withTTL+1
		}
		if err := s.Query(ins, id, scope, skey, unit, bucket, dim, value, sums, written, left).WithContext(ctx).Exec(); err != nil {
			_ = it.Close()
			return n, withTTL, fmt.Errorf("copy rollup rows: %w", err)
		}
		n++
	}
	if err := it.Close(); err != nil {
		return n, withTTL, fmt.Errorf("copy rollup rows: %w", err)
	}
	return n, withTTL, nil
}
