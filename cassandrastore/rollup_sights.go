package cassandrastore

import (
	"context"
	"strconv"
	"time"

	"github.com/heraldmq/herald/rollup"
)

// The values distinct metrics saw (rollup.Sight), in rollup_seen: a
// commit reads those of its batch after it is up to date with the
// rollup's last commit, and before its transaction (Batch.Resolve turns
// them into counts), records the new ones in its record, and writes them
// with its rows, USING TIMESTAMP of its sequence number. A writer keeps
// the sights it knows to be recorded (they stay true until their bucket
// expires) next to its row cache.

// rollupSightShards spreads the sights of an all-time set over
// partitions by the value seen.
const rollupSightShards = 32

// maxWriterSights bounds one rollup's cache of recorded sights on a node.
const maxWriterSights = 1 << 20

// sightShard is the shard of rollup_seen holding sight x.
func sightShard(x rollup.Sight) int {
	if x.Set.Unit != rollup.All {
		return 0
	}
	return stringShard(x.Value, rollupSightShards)
}

// sightPart is one partition of rollup_seen.
type sightPart struct {
	p      storedPartition
	metric int
	shard  int
}

// maxSightIN bounds the tuples of one query's IN.
const maxSightIN = 100

// readSights returns which of sights are recorded for d, with when each
// was first seen: from w's cache, else from rollup_seen (one query per
// partition and at most maxSightIN sights).
func (rs *rollupStore) readSights(ctx context.Context, c *conn, d *rollup.Definition, w *rollupWriter, sights map[rollup.Sight]time.Time) (map[rollup.Sight]time.Time, error) {
	known := map[rollup.Sight]time.Time{}
	byPart := map[sightPart][]rollup.Sight{}
	for x := range sights {
		if t, ok := w.sights[x]; ok {
			known[x] = t
			continue
		}
		k := sightPart{storedPartitionOf(x.Set), x.Metric, sightShard(x)}
		byPart[k] = append(byPart[k], x)
	}
	type query struct {
		part sightPart
		of   []rollup.Sight
	}
	var qs []query
	for k, xs := range byPart {
		for len(xs) > 0 {
			n := min(len(xs), maxSightIN)
			qs = append(qs, query{k, xs[:n]})
			xs = xs[n:]
		}
	}
	got := make([]map[rollup.Sight]time.Time, len(qs))
	err := parallel(len(qs), rollupReadWorkers, func(i int) error {
		q := qs[i]
		tuples := make([][]any, len(q.of))
		for j, x := range q.of {
			tuples[j] = []any{x.Set.Dim, x.Set.Value, x.Value}
		}
		p := q.part.p
		it := c.s.Query(rs.cql(`SELECT dim, value, member, first_ms FROM %s.rollup_seen WHERE rollup_id = ? AND scope = ? AND skey = ? AND unit = ? AND bucket = ? AND metric = ? AND shard = ? AND (dim, value, member) IN ?`),
			cqlUUID(d.ID), p.scope, p.key, string(p.unit), p.bucket, q.part.metric, q.part.shard, tuples).WithContext(ctx).Iter()
		m := map[rollup.Sight]time.Time{}
		var dim int
		var value, member string
		var ms int64
		for it.Scan(&dim, &value, &member, &ms) {
			set := rollup.Row{Scope: p.scope, Key: p.key, Unit: p.unit, Bucket: p.bucket, Dim: dim, Value: value}
			m[rollup.Sight{Set: set, Metric: q.part.metric, Value: member}] = time.UnixMilli(ms)
		}
		got[i] = m
		return it.Close()
	})
	if err != nil {
		return nil, err
	}
	for _, m := range got {
		for x, t := range m {
			known[x] = t
		}
	}
	return known, nil
}

// cacheSights takes a commit's recorded sights into w's cache.
func (w *rollupWriter) cacheSights(body *rollupBody) {
	if len(body.sights) == 0 {
		return
	}
	if len(w.sights)+len(body.sights) > maxWriterSights {
		clear(w.sights)
	}
	for _, s := range body.sights {
		w.sights[s.sight] = time.UnixMilli(s.firstMs)
	}
}

// addSights adds the writes of a commit's sights to ws, USING TIMESTAMP
// seq and the TTL of their set's bucket.
func (rs *rollupStore) addSights(ws *writeSet, d *rollup.Definition, seq int64, body *rollupBody, wall time.Time) {
	perPart := map[sightPart]int{} // sights so far, to cut batches at maxBatchRows
	for _, s := range body.sights {
		x := s.sight
		ttl, expired := bucketTTL(d, x.Set.Unit, time.Unix(x.Set.Bucket, 0), wall)
		if expired {
			continue
		}
		p := storedPartitionOf(x.Set)
		shard := sightShard(x)
		sp := sightPart{p, x.Metric, shard}
		k := perPart[sp]
		perPart[sp]++
		group := "s" + strconv.Itoa(p.scope) + "\x00" + p.key + "\x00" + string(p.unit) + "\x00" + strconv.FormatInt(p.bucket, 10) +
			"\x00" + strconv.Itoa(x.Metric) + "\x00" + strconv.Itoa(shard) + "\x00" + strconv.Itoa(k/maxBatchRows)
		ws.add(group, rs.cql(`INSERT INTO %s.rollup_seen (rollup_id, scope, skey, unit, bucket, metric, shard, dim, value, member, first_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?`),
			cqlUUID(d.ID), p.scope, p.key, string(p.unit), p.bucket, x.Metric, shard, x.Set.Dim, x.Set.Value, x.Value, s.firstMs, ttl, seq)
	}
}
