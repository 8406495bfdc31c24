package cassandrastore

import (
	"context"
	"maps"
	"sync"
	"sync/atomic"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// fenceState is the dc_fences table as this Store last read it (every
// heartbeat, and at once after its own writes). While another data
// center is fenced, peerFenced makes writes and lightweight transactions
// stop waiting for it (conn.writeLevel, conn.serialLevel): a fence says
// that it is gone.
type fenceState struct {
	peerFenced atomic.Bool
	mu         sync.Mutex
	fenced     map[string]string // fenced data center → the one that fenced it
}

// set records fenced as the current fences.
func (f *fenceState) set(fenced map[string]string, local string) {
	f.mu.Lock()
	f.fenced = fenced
	f.mu.Unlock()
	peer := false
	for dc := range fenced {
		peer = peer || dc != local
	}
	f.peerFenced.Store(peer)
}

// fences is sqs.Fences in the dc_fences table.
type fences struct{ st *Store }

var _ sqs.Fences = fences{}

// Fences returns the fenced data centers, for the SQS service to place
// queues with.
func (st *Store) Fences() sqs.Fences { return fences{st} }

// Fences reads the table at the configured read consistency.
func (f fences) Fences(ctx context.Context) (map[string]string, error) {
	const op = "read fences"
	c, err := f.st.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	return f.st.readFences(ctx, c, 0)
}

// readFences reads the table (at level, or the configured read level if
// 0) and records it in the Store's fence state.
func (st *Store) readFences(ctx context.Context, c *conn, level gocql.Consistency) (map[string]string, error) {
	q := c.s.Query(`SELECT dc, taker FROM ` + st.opts.Keyspace + `.dc_fences`).WithContext(ctx)
	if level != 0 {
		q = q.Consistency(level)
	}
	iter := q.Iter()
	out := map[string]string{}
	var dc, taker string
	for iter.Scan(&dc, &taker) {
		out[dc] = taker
	}
	if err := iter.Close(); err != nil {
		return nil, herald.Unavailable("read fences", err)
	}
	st.fences.set(maps.Clone(out), st.opts.LocalDC)
	return out, nil
}

// Fence writes dc's row at the local data center's quorum: the fenced data
// center is gone, and the row reaches it by hints or repair before it
// serves again (docs/operations.md).
func (f fences) Fence(ctx context.Context, dc, by string) error {
	const op = "fence data center"
	c, err := f.st.enter(ctx, op)
	if err != nil {
		return err
	}
	err = c.s.Query(`INSERT INTO `+f.st.opts.Keyspace+`.dc_fences (dc, taker, fenced_ms) VALUES (?, ?, ?)`,
		dc, by, f.st.opts.Now().UnixMilli()).Consistency(gocql.LocalQuorum).WithContext(ctx).Exec()
	if err != nil {
		return herald.Unavailable(op, err)
	}
	_, err = f.st.readFences(ctx, c, gocql.LocalQuorum)
	return err
}

// Unfence deletes dc's row in every data center (EACH_QUORUM: the
// returning data center must see it at once). It refuses while a node of
// this data center still holds hints for dc: what was written during the
// fence has not all reached dc yet, and dc's Redis, rebuilt from dc's
// replicas, would miss it.
func (f fences) Unfence(ctx context.Context, dc string) error {
	const op = "unfence data center"
	c, err := f.st.enter(ctx, op)
	if err != nil {
		return err
	}
	if err := f.st.checkHintsDelivered(ctx, c, dc); err != nil {
		return err
	}
	err = c.s.Query(`DELETE FROM `+f.st.opts.Keyspace+`.dc_fences WHERE dc = ?`, dc).
		Consistency(gocql.EachQuorum).WithContext(ctx).Exec()
	if err != nil {
		return herald.Unavailable(op, err)
	}
	_, err = f.st.readFences(ctx, c, gocql.LocalQuorum)
	return err
}

// checkHintsDelivered fails if a node of this data center holds hints for
// nodes of data center dc (system_views.pending_hints, which each node
// answers for itself).
func (st *Store) checkHintsDelivered(ctx context.Context, c *conn, dc string) error {
	for _, h := range c.s.GetHosts() {
		if h.DataCenter() != st.opts.LocalDC {
			continue
		}
		iter := c.s.Query(`SELECT dc, files FROM system_views.pending_hints`).SetHostID(h.HostID()).WithContext(ctx).Iter()
		var (
			target string
			files  int
		)
		pending := 0
		for iter.Scan(&target, &files) {
			if target == dc {
				pending += files
			}
		}
		if err := iter.Close(); err != nil {
			return herald.Unavailable("read pending hints", err)
		}
		if pending > 0 {
			return herald.Errorf(herald.EConflict, "node %s still holds %d hint files for %s: what was written while %s was away has not all reached it; wait for their delivery (or run nodetool repair) and unfence again", h.ConnectAddress(), pending, dc, dc)
		}
	}
	return nil
}
