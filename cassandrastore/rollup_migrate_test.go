package cassandrastore

import (
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// TestRollupRowsMovedToCells: rows a store of the first rollup layout
// wrote (rollup_rows) are moved into rollup_cells at the next start, with
// their write times and TTLs; counting goes on from them, and rollup_rows
// is gone.
func TestRollupRowsMovedToCells(t *testing.T) {
	addr := cassandraAddr(t)
	ks := freshKeyspace(t, addr)
	old := openTest(t, addr, Options{Keyspace: ks})
	d := testRollup(t, old)
	if err := commitPlays(t.Context(), old.Rollups(), d, "c", "a", "b"); err != nil {
		t.Fatal(err)
	}
	old.Close()

	c := gocql.NewCluster(addr)
	c.Timeout = time.Minute
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exec := func(cql string, args ...any) {
		t.Helper()
		if err := s.Query(cql, args...).Exec(); err != nil {
			t.Fatalf("%s: %v", cql, err)
		}
	}
	// The first layout: a partition per dimension.
	exec(`CREATE TABLE ` + ks + `.rollup_rows (rollup_id uuid, scope int, skey text, unit text, bucket bigint, dim int, value text, sums blob,
		PRIMARY KEY ((rollup_id, scope, skey, unit, bucket, dim), value))`)
	rows, withTTL, err := copyRollupCells(t.Context(), s, ks, "rollup_cells", "rollup_rows")
	if err != nil {
		t.Fatal(err)
	}
	if rows != 2 || withTTL != 1 {
		t.Fatalf("%d rows, %d with a TTL; want the day's and the all-time total, the day's with a TTL", rows, withTTL)
	}
	exec(`TRUNCATE ` + ks + `.rollup_cells`)

	st := openTest(t, addr, Options{Keyspace: ks})
	if got := allTime(t, st.Rollups(), d, "c"); got != 2 {
		t.Fatalf("all-time plays after the move: %d, want 2", got)
	}
	var n int
	if err := s.Query(`SELECT COUNT(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'rollup_rows'`, ks).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rollup_rows still there (%d, %v)", n, err)
	}
	var ttl *int
	if err := s.Query(`SELECT TTL(sums) FROM `+ks+`.rollup_cells WHERE rollup_id = ? AND scope = 0 AND skey = 'c' AND unit = 'day' AND bucket = ?`,
		cqlUUID(d.ID), time.Now().UTC().Truncate(24*time.Hour).Unix()).Scan(&ttl); err != nil || ttl == nil || *ttl <= 0 {
		t.Fatalf("the day's row after the move: TTL %v, %v", ttl, err)
	}
	if err := commitPlays(t.Context(), st.Rollups(), d, "c", "x"); err != nil {
		t.Fatal(err)
	}
	if got := allTime(t, st.Rollups(), d, "c"); got != 3 {
		t.Fatalf("all-time plays after one more commit: %d, want 3", got)
	}
}
