package cassandrastore

import (
	"context"
	"math"
	"strconv"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// historyWrites adds to w, for each distinct path of m, its history row
// and its bucket's row in history_buckets. The bucket is the message time
// truncated to the layout's history bucket width.
func (st *Store) historyWrites(w *writeSet, l layout, m *cache.Message, ps []string, nowMs int64) {
	expMs := m.ExpiresAt.UnixMilli()
	ttl := ttlSeconds(nowMs, expMs)
	ticks := idTicks(m.ID)
	bucket := bucketOf(ticksMillis(ticks), l.historyBucketMs)
	b := strconv.FormatInt(bucket, 10)
	for _, p := range ps {
		w.add("h\x00"+p+"\x00"+b, st.q.insertHistory, p, bucket, ticks, m.ID[:], expMs, ttl)
		st.liveness(w, "hb\x00"+p, "hb\x00"+p+"\x00"+b, nowMs, expMs, st.q.insertHistoryBucket, func(ts int64, ttl int, _ int64) []any {
			return []any{p, bucket, ts, ttl}
		})
	}
}

// History lists path's unexpired references newest first, strictly after
// the position after.
func (st *Store) History(ctx context.Context, path string, after cache.Position, limit int) ([]cache.Ref, error) {
	const op = "history"
	c, err := st.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	refs, err := st.history(ctx, c, path, after, limit, st.nowMs())
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return refs, nil
}

// history walks the buckets of path that history_buckets lists, newest
// first, starting with the bucket of after, and reads each bucket's rows
// strictly older than after until it has limit unexpired references.
func (st *Store) history(ctx context.Context, c *conn, path string, after cache.Position, limit int, nowMs int64) ([]cache.Ref, error) {
	if limit <= 0 {
		return nil, nil
	}
	// Rows are returned when (ticks, id) < (hiTicks, hiID); an empty id
	// sorts before every id, so (t, 0x) excludes every row of tick t.
	hiTicks, hiID := int64(math.MaxInt64), []byte{}
	maxBucket := int64(math.MaxInt64)
	if !after.IsZero() {
		ticks, exact, before, later := ticksOf(after.At)
		switch {
		case before: // every message is at or after the UUID epoch
			return nil, nil
		case later: // every message is older: start at the newest
		case exact:
			hiTicks, hiID = ticks, after.ID[:]
			maxBucket = bucketOf(ticksMillis(ticks), c.l.historyBucketMs)
		default: // after.At falls between two ticks: tick ticks is older
			hiTicks = ticks + 1
			maxBucket = bucketOf(ticksMillis(ticks), c.l.historyBucketMs)
		}
	}
	refs := make([]cache.Ref, 0, min(limit, 1024))
	buckets := c.s.Query(st.q.selectHistoryBuckets, path, maxBucket).WithContext(ctx).PageSize(64).Iter()
	var bucket int64
	for len(refs) < limit && buckets.Scan(&bucket) {
		need := limit - len(refs)
		rows := c.s.Query(st.q.selectHistory, path, bucket, hiTicks, hiID).WithContext(ctx).PageSize(pageSize(need)).Iter()
		var (
			ticks, exp int64
			id         []byte
		)
		for len(refs) < limit && rows.Scan(&ticks, &id, &exp) {
			if exp <= nowMs || len(id) != 16 {
				continue
			}
			refs = append(refs, cache.Ref{ID: uuid.UUID(id), At: ticksTime(ticks), ExpiresAt: msTime(exp)})
		}
		if err := rows.Close(); err != nil {
			buckets.Close()
			return nil, err
		}
	}
	if err := buckets.Close(); err != nil {
		return nil, err
	}
	return refs, nil
}
