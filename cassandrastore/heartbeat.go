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
	lag  map[string]time.Duration // by peer data center
	seen map[string]int64         // a peer's last heartbeat, Unix ms
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
	seen := map[string]int64{}
	iter := c.s.Query(`SELECT dc, at_ms FROM ` + ks + `.dc_heartbeat`).Consistency(gocql.LocalOne).WithContext(ctx).Iter()
	var dc string
	var at int64
	for iter.Scan(&dc, &at) {
		if dc != st.opts.LocalDC {
			seen[dc] = at
		}
	}
	read := iter.Close() == nil
	hb := &st.heartbeat
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if hb.seen == nil {
		hb.seen, hb.lag = map[string]int64{}, map[string]time.Duration{}
	}
	if read {
		maps.Copy(hb.seen, seen)
	}
	// A peer stays in the map once seen: when its row stops advancing (or
	// cannot be read), its lag keeps growing.
	for dc, at := range hb.seen {
		hb.lag[dc] = max(0, now.Sub(time.UnixMilli(at)))
	}
}

// ReplicationLag returns, per other data center, how old the newest
// heartbeat of it replicated here is: the replication lag from it plus up
// to HeartbeatInterval. Empty in one data center (LocalDC unset) and
// until a peer's first heartbeat arrived.
func (st *Store) ReplicationLag() map[string]time.Duration {
	hb := &st.heartbeat
	hb.mu.Lock()
	defer hb.mu.Unlock()
	return maps.Clone(hb.lag)
}
