package cassandrastore

import (
	"context"
	"sync"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// stmt is one CQL statement with its arguments.
type stmt struct {
	cql  string
	args []any
}

// writeSet collects the statements of one put, grouped by the partition
// they write: a group's statements go to Cassandra as one unlogged batch
// (atomic and isolated within the partition, one round trip), different
// groups as concurrent queries. A batch spanning partitions would only make
// its coordinator do the fan-out, with the batch log's cost if logged.
type writeSet struct {
	index  map[string]int // partition key -> position in groups
	groups [][]stmt
	marks  []mark // liveness rows to record once every write succeeded
	// settle writes the set at the settle level (conn.settleLevel)
	// instead of the write level.
	settle bool
}

// add appends a statement for the partition named part (a string naming the
// table and the partition key).
func (w *writeSet) add(part, cql string, args ...any) {
	if w.index == nil {
		w.index = make(map[string]int)
	}
	i, ok := w.index[part]
	if !ok {
		i = len(w.groups)
		w.index[part] = i
		w.groups = append(w.groups, nil)
	}
	w.groups[i] = append(w.groups[i], stmt{cql, args})
}

// write is a statement that changes data, at the write consistency (a
// lightweight transaction's commit included; its Paxos phase is at the
// serial consistency the caller sets).
func (c *conn) write(cql string, args ...any) *gocql.Query {
	return c.s.Query(cql, args...).Consistency(c.writeLevel())
}

// writeLevel is the write consistency now: EACH_QUORUM becomes
// LOCAL_QUORUM while another data center is fenced (taken out of service
// by an operator after its loss, fences.go), since no write could reach
// it; the other levels stay.
func (c *conn) writeLevel() gocql.Consistency {
	if c.w == gocql.EachQuorum && c.peerFenced != nil && c.peerFenced.Load() {
		return gocql.LocalQuorum
	}
	return c.w
}

// settleLevel is the consistency of the writes that only settle a stored
// message (its receive state, its delete): LOCAL_QUORUM where the write
// level is EACH_QUORUM. Losing one with its data center costs a
// duplicate delivery, never a message, so they need not wait for the
// other data centers, and they go on through a cut link (the data center
// still serving a queue keeps deleting what it delivers).
func (c *conn) settleLevel() gocql.Consistency {
	if w := c.writeLevel(); w != gocql.EachQuorum {
		return w
	}
	return gocql.LocalQuorum
}

// serialLevel is the Paxos consistency of a lightweight transaction whose
// configured one is serial: SERIAL becomes LOCAL_SERIAL while another data
// center is fenced, since SERIAL would need its replicas.
func (c *conn) serialLevel(serial gocql.Consistency) gocql.Consistency {
	if serial == gocql.Serial && c.peerFenced != nil && c.peerFenced.Load() {
		return gocql.LocalSerial
	}
	return serial
}

// exec runs every group of w concurrently and returns the first error,
// once all have finished.
func (c *conn) exec(ctx context.Context, w *writeSet) error {
	return c.execN(ctx, w, len(w.groups))
}

// execN is exec with at most workers groups in flight.
func (c *conn) execN(ctx context.Context, w *writeSet, workers int) error {
	return parallel(len(w.groups), workers, func(i int) error {
		g := w.groups[i]
		level := c.writeLevel()
		if w.settle {
			level = c.settleLevel()
		}
		if len(g) == 1 {
			return c.s.Query(g[0].cql, g[0].args...).Consistency(level).WithContext(ctx).Exec()
		}
		b := c.s.Batch(gocql.UnloggedBatch).WithContext(ctx)
		b.SetConsistency(level)
		for _, st := range g {
			b.Query(st.cql, st.args...)
		}
		return b.Exec()
	})
}

// parallel calls fn(0) ... fn(n-1) on up to workers goroutines (the
// caller's among them) and returns the first error once all calls ended.
func parallel(n, workers int, fn func(i int) error) error {
	if n == 0 {
		return nil
	}
	workers = max(1, min(workers, n))
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	work := func() {
		for {
			mu.Lock()
			i := next
			next++
			mu.Unlock()
			if i >= n {
				return
			}
			if err := fn(i); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}
	}
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return first
}

// pageSize is the driver page size for reading about want rows.
func pageSize(want int) int { return min(max(want+want/4+1, 16), 5000) }
