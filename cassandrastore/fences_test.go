package cassandrastore

import (
	"context"
	"maps"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// TestFencesLowerTheWriteLevelsWhileAPeerIsFenced: a fence is read back by
// every Store on the keyspace, and while a data center other than the
// Store's own is fenced, EACH_QUORUM writes go at LOCAL_QUORUM and SERIAL
// transactions at LOCAL_SERIAL (there is nothing to reach); an unfence
// brings both back. Deletes and receive states go at LOCAL_QUORUM
// always.
func TestFencesLowerTheWriteLevelsWhileAPeerIsFenced(t *testing.T) {
	addr := cassandraAddr(t)
	ks := freshKeyspace(t, addr)
	st := openTest(t, addr, Options{Keyspace: ks, LocalDC: "datacenter1", WriteConsistency: "EACH_QUORUM"})
	other := openTest(t, addr, Options{Keyspace: ks, LocalDC: "datacenter1", WriteConsistency: "EACH_QUORUM"})
	ctx := context.Background()
	// The write level, the settle level (deletes, receive states) and
	// the serial level.
	levels := func(s *Store) [3]gocql.Consistency {
		c := s.conn.Load()
		return [3]gocql.Consistency{c.writeLevel(), c.settleLevel(), c.serialLevel(gocql.Serial)}
	}
	normal := [3]gocql.Consistency{gocql.EachQuorum, gocql.LocalQuorum, gocql.Serial}
	fenced := [3]gocql.Consistency{gocql.LocalQuorum, gocql.LocalQuorum, gocql.LocalSerial}
	if got := levels(st); got != normal {
		t.Fatalf("levels before any fence: %v, want %v", got, normal)
	}
	if err := st.Fences().Fence(ctx, "far", "datacenter1"); err != nil {
		t.Fatal(err)
	}
	if got := levels(st); got != fenced {
		t.Errorf("levels of the fencing Store: %v, want %v", got, fenced)
	}
	got, err := other.Fences().Fences(ctx)
	if err != nil || !maps.Equal(got, map[string]string{"far": "datacenter1"}) {
		t.Fatalf("Fences read by another Store = %v, %v", got, err)
	}
	if got := levels(other); got != fenced {
		t.Errorf("levels of another Store after reading the fence: %v, want %v", got, fenced)
	}
	// A queue record is still written (its LWT at LOCAL_SERIAL).
	q := &sqs.Queue{ID: uuid.New(), Account: "000000000000", Name: "while-fenced", Shards: 1, Home: "datacenter1"}
	if _, err := st.Queues().CreateQueue(ctx, q); err != nil {
		t.Fatalf("CreateQueue while a peer is fenced: %v", err)
	}
	if err := st.Fences().Unfence(ctx, "far"); err != nil {
		t.Fatal(err)
	}
	if got := levels(st); got != normal {
		t.Errorf("levels after the unfence: %v, want %v", got, normal)
	}
	// The Store's own data center fenced (a returning one) lowers nothing.
	if err := st.Fences().Fence(ctx, "datacenter1", "far"); err != nil {
		t.Fatal(err)
	}
	if got := levels(st); got != normal {
		t.Errorf("levels with the Store's own data center fenced: %v, want %v", got, normal)
	}
}

// TestQueueHomeRoundTripsAndOlderTablesGetTheColumn: a queue's home data
// center is stored and kept by updates; a keyspace made before the column
// existed gets it when a Store opens it, and its queues read with no home.
func TestQueueHomeRoundTripsAndOlderTablesGetTheColumn(t *testing.T) {
	addr := cassandraAddr(t)
	ks := freshKeyspace(t, addr)
	ctx := context.Background()
	first := openTest(t, addr, Options{Keyspace: ks})
	old := &sqs.Queue{ID: uuid.New(), Account: "000000000000", Name: "old", Shards: 1}
	if _, err := first.Queues().CreateQueue(ctx, old); err != nil {
		t.Fatal(err)
	}
	// Make the keyspace as an older release left it.
	if err := first.conn.Load().s.Query(`ALTER TABLE ` + ks + `.sqs_queues DROP home_dc`).WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}
	first.Close()
	st := openTest(t, addr, Options{Keyspace: ks})
	got, err := st.Queues().GetQueue(ctx, old.Account, old.Name)
	if err != nil || got.Home != "" {
		t.Fatalf("queue made before homes: %+v, %v; want no home", got, err)
	}
	q := &sqs.Queue{ID: uuid.New(), Account: "000000000000", Name: "homed", Shards: 1, Home: "dc2"}
	if _, err := st.Queues().CreateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	q.Attributes.DelaySeconds = 5
	if err := st.Queues().UpdateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	got, err = st.Queues().GetQueue(ctx, q.Account, q.Name)
	if err != nil || got.Home != "dc2" || got.Attributes.DelaySeconds != 5 {
		t.Fatalf("homed queue after an update: %+v, %v; want home dc2", got, err)
	}
}
