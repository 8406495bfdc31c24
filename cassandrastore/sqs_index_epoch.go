package cassandrastore

import (
	"context"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// indexEpochs is sqs.IndexEpochs in the sqs_index_epoch table: the row of
// one data center, dc = ":" + its name (Cassandra refuses an empty
// partition key, and LocalDC is "" in one data center).
type indexEpochs struct {
	st   *Store
	name string
}

func (e indexEpochs) dc() string { return ":" + e.name }

var _ sqs.IndexEpochs = indexEpochs{}

// IndexEpochs returns the index epoch of this data center, for the SQS
// service to match against the built markers in its Redis.
func (st *Store) IndexEpochs() sqs.IndexEpochs { return indexEpochs{st, st.opts.LocalDC} }

// IndexEpochsOf returns the index epoch of data center dc, whose Redis
// this node uses for the queues homed there (sqs.DCConfig.Epochs).
func (st *Store) IndexEpochsOf(dc string) sqs.IndexEpochs { return indexEpochs{st, dc} }

// IndexEpoch reads the epoch at the configured (read) consistency; 0 when
// it was never bumped.
func (e indexEpochs) IndexEpoch(ctx context.Context) (uint64, error) {
	const op = "read index epoch"
	c, err := e.st.enter(ctx, op)
	if err != nil {
		return 0, err
	}
	return e.read(ctx, c, op)
}

func (e indexEpochs) read(ctx context.Context, c *conn, op string) (uint64, error) {
	var epoch int64
	err := c.s.Query(`SELECT epoch FROM `+e.st.opts.Keyspace+`.sqs_index_epoch WHERE dc = ?`, e.dc()).
		WithContext(ctx).Scan(&epoch)
	switch {
	case err == gocql.ErrNotFound:
		return 0, nil
	case err != nil:
		return 0, herald.Unavailable(op, err)
	}
	return uint64(max(epoch, 0)), nil
}

// BumpIndexEpoch writes max(now in ms, current + 1) and returns it. The
// write carries the epoch as its timestamp (in µs), so a concurrent bump
// that wrote a higher one wins, and nothing lower ever replaces a higher
// one. It is written at the local data center's quorum when the write
// level is EACH_QUORUM: a bump must work, at once, while another data
// center is down (a fence); the other data centers, whose nodes read the
// row for the queues homed here, get it by replication (a node that reads
// it late is told by the Index that its epoch is stale, and reads again).
func (e indexEpochs) BumpIndexEpoch(ctx context.Context) (uint64, error) {
	const op = "bump index epoch"
	c, err := e.st.enter(ctx, op)
	if err != nil {
		return 0, err
	}
	cur, err := e.read(ctx, c, op)
	if err != nil {
		return 0, err
	}
	next := max(uint64(e.st.nowMs()), cur+1)
	w := c.writeLevel()
	if w == gocql.EachQuorum {
		w = gocql.LocalQuorum
	}
	err = c.s.Query(`UPDATE `+e.st.opts.Keyspace+`.sqs_index_epoch USING TIMESTAMP ? SET epoch = ? WHERE dc = ?`,
		int64(next)*1000, int64(next), e.dc()).Consistency(w).WithContext(ctx).Exec()
	if err != nil {
		return 0, herald.Unavailable(op, err)
	}
	return next, nil
}
