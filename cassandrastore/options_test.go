package cassandrastore

import (
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// TestWriteConsistency checks the write level's default, its parsing and
// the serial level lightweight transactions take under it.
func TestWriteConsistency(t *testing.T) {
	for _, tc := range []struct {
		name, reads, writes string
		localDC             string
		want                gocql.Consistency
		serial              gocql.Consistency
		err                 bool
	}{
		{name: "defaults", want: gocql.LocalQuorum, serial: gocql.LocalSerial},
		{name: "follows reads", reads: "QUORUM", want: gocql.Quorum, serial: gocql.Serial},
		{name: "each quorum", reads: "LOCAL_QUORUM", writes: "EACH_QUORUM", want: gocql.EachQuorum, serial: gocql.Serial},
		{name: "local writes", reads: "LOCAL_ONE", writes: "LOCAL_QUORUM", want: gocql.LocalQuorum, serial: gocql.LocalSerial},
		{name: "several DCs, local writes", reads: "LOCAL_QUORUM", writes: "LOCAL_QUORUM", localDC: "dc1", want: gocql.LocalQuorum, serial: gocql.Serial},
		{name: "invalid", writes: "MOST", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Options{Hosts: []string{"127.0.0.1"}, Consistency: tc.reads, WriteConsistency: tc.writes, LocalDC: tc.localDC}.withDefaults()
			if tc.err {
				if err == nil {
					t.Fatalf("write consistency %q accepted", tc.writes)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := o.writeConsistency(); got != tc.want {
				t.Errorf("write consistency %v, want %v", got, tc.want)
			}
			if got := o.serialConsistency(); got != tc.serial {
				t.Errorf("serial consistency %v, want %v", got, tc.serial)
			}
		})
	}
}

// TestConnectionsPerHost: Options.Connections sets the driver's
// connections per host; zero keeps the driver's default.
func TestConnectionsPerHost(t *testing.T) {
	def := gocql.NewCluster("127.0.0.1").NumConns
	for _, tc := range []struct{ conns, want int }{{0, def}, {1, 1}, {4, 4}} {
		o, err := Options{Hosts: []string{"127.0.0.1"}, Connections: tc.conns}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		if got := o.clusterConfig().NumConns; got != tc.want {
			t.Errorf("Connections %d: the driver opens %d a host, want %d", tc.conns, got, tc.want)
		}
	}
}
