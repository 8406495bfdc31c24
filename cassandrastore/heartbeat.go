package cassandrastore

import (
	"context"
	"maps"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// HeartbeatInterval is how often a node of a multi-DC cluster (LocalDC
// set) writes its data center's heartbeat and reads the others'.
const HeartbeatInterval = time.Second

// heartbeat measures the replication lag from the other data centers:
// every node writes its data center's row of dc_heartbeat with the time
// (at LOCAL_ONE: the write must not wait for the other data centers, it
// is what travels to them) and reads every row locally; a peer's lag is
// now minus the last time of its row seen here. It counts the heartbeat
// interval too, so a healthy link shows about one second; a cut link or
// a dead data center shows a lag that grows by one second a second.
type heartbeat struct {
	mu   sync.Mutex
	seen map[string]int64 // by peer data center: its last heartbeat read here, Unix ms
}

// runHeartbeat beats until ctx ends.
func (st *Store) runHeartbeat(ctx context.Context) {
	t := time.NewTicker(HeartbeatInterval)
	defer t.Stop()
	for {
		st.beat(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// beat writes this data center's heartbeat and updates the peers' lags.
func (st *Store) beat(ctx context.Context) {
	c := st.conn.Load()
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, HeartbeatInterval)
	defer cancel()
	now := st.opts.Now()
	ks := st.opts.Keyspace
	// Failures are not reported: the growing lag in the other data
	// centers is the report.
	_ = c.s.Query(`UPDATE `+ks+`.dc_heartbeat SET at_ms = ? WHERE dc = ?`, now.UnixMilli(), st.opts.LocalDC).
		Consistency(gocql.LocalOne).WithContext(ctx).Exec()
	// The fences too: a fence or an unfence reaches the write levels of
	// every node within a heartbeat.
	_, _ = st.readFences(ctx, c, gocql.LocalOne)
	seen := map[string]int64{}
	iter := c.s.Query(`SELECT dc, at_ms FROM ` + ks + `.dc_heartbeat`).Consistency(gocql.LocalOne).WithContext(ctx).Iter()
	var dc string
	var at int64
	for iter.Scan(&dc, &at) {
		if dc != st.opts.LocalDC {
			seen[dc] = at
		}
	}
	if iter.Close() != nil {
		return // the peers' lags go on growing from their last heartbeats
	}
	hb := &st.heartbeat
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if hb.seen == nil {
		hb.seen = map[string]int64{}
	}
	// A peer stays once seen: when its row stops advancing, its lag
	// keeps growing.
	maps.Copy(hb.seen, seen)
}

// ReplicationLag returns, per other data center, how old the newest
// heartbeat of it replicated here is: the replication lag from it plus up
// to HeartbeatInterval. Empty in one data center (LocalDC unset) and
// until a peer's first heartbeat arrived.
func (st *Store) ReplicationLag() map[string]time.Duration {
	now := st.opts.Now()
	hb := &st.heartbeat
	hb.mu.Lock()
	defer hb.mu.Unlock()
	lag := make(map[string]time.Duration, len(hb.seen))
	for dc, at := range hb.seen {
		lag[dc] = max(0, now.Sub(time.UnixMilli(at)))
	}
	return lag
}
