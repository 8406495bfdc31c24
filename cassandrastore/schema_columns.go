package cassandrastore

import (
	"context"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// columnDefs are columns added to tables after their first release: a
// keyspace made before gets them by ALTER TABLE (CREATE TABLE IF NOT
// EXISTS leaves an existing table as it is). Adding a column is cheap in
// Cassandra (no data is rewritten), and rows written before read it as
// null.
var columnDefs = []struct{ table, column, typ string }{
	// The home data center of a queue (sqs.Queue.Home): null on queues
	// created before it, which the SQS service places in --dc-legacy-home.
	{"sqs_queues", "home_dc", "text"},
}

// addMissingColumns adds the columns of columnDefs that the tables made
// before them lack.
func addMissingColumns(ctx context.Context, s *gocql.Session, o Options, existing map[string]bool) error {
	for _, d := range columnDefs {
		if !existing[d.table] {
			continue // just created, with the column
		}
		var name string
		err := s.Query(`SELECT column_name FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ? AND column_name = ?`,
			o.Keyspace, d.table, d.column).WithContext(ctx).Scan(&name)
		if err == nil {
			continue
		}
		if err != gocql.ErrNotFound {
			return fmt.Errorf("read schema of %s.%s: %w", o.Keyspace, d.table, err)
		}
		if err := s.Query(fmt.Sprintf(`ALTER TABLE %s.%s ADD %s %s`, o.Keyspace, d.table, d.column, d.typ)).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("add column %s to %s.%s: %w", d.column, o.Keyspace, d.table, err)
		}
		o.Logger.Info("cassandra: added column", "table", o.Keyspace+"."+d.table, "column", d.column)
	}
	return nil
}
