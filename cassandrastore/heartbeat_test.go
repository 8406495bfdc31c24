package cassandrastore

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestHeartbeatMeasuresTheLagFromEachPeer: a node of one data center reads
// the heartbeat rows of the others and reports, per peer, how old the
// newest one is; its own data center is not a peer, and a peer whose row
// stops advancing shows a growing lag.
func TestHeartbeatMeasuresTheLagFromEachPeer(t *testing.T) {
	addr := cassandraAddr(t)
	ks := freshKeyspace(t, addr)
	now := time.Now().Truncate(time.Millisecond)
	var clock atomic.Int64 // Unix ms; the store's heartbeat goroutine reads it too
	clock.Store(now.UnixMilli())
	// The single test node's data center, as SimpleSnitch names it.
	st := openTest(t, addr, Options{Keyspace: ks, LocalDC: "datacenter1", Now: func() time.Time { return time.UnixMilli(clock.Load()) }})
	ctx := context.Background()
	c := st.conn.Load()
	if err := c.s.Query(`INSERT INTO `+ks+`.dc_heartbeat (dc, at_ms) VALUES (?, ?)`, "far", now.Add(-5*time.Second).UnixMilli()).WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}
	st.beat(ctx)
	lag := st.ReplicationLag()
	if got, want := lag["far"], 5*time.Second; got != want {
		t.Errorf("lag from far: %v, want %v", got, want)
	}
	if _, own := lag["datacenter1"]; own || len(lag) != 1 {
		t.Errorf("lags %v: want the one peer, not this data center", lag)
	}
	clock.Store(now.Add(3 * time.Second).UnixMilli())
	st.beat(ctx)
	if got, want := st.ReplicationLag()["far"], 8*time.Second; got != want {
		t.Errorf("lag from far 3 s later with no new heartbeat: %v, want %v", got, want)
	}
	var at int64
	if err := c.s.Query(`SELECT at_ms FROM `+ks+`.dc_heartbeat WHERE dc = ?`, "datacenter1").WithContext(ctx).Scan(&at); err != nil {
		t.Fatal(err)
	}
	if at != clock.Load() {
		t.Errorf("own heartbeat %d, want the clock's %d", at, clock.Load())
	}
}
