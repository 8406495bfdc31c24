package cassandrastore

import (
	"bytes"
	"context"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/heraldmq/herald/internal/timeconv"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// journalSpanMs is the width of a journal_buckets partition: 32 days of
// buckets.
const journalSpanMs = 32 * 24 * 3600 * 1000

// journalPast and journalFuture bound the received times a journal query
// looks at, relative to now: no message received longer ago than
// Cassandra's largest TTL (20 years) can be alive, and Herald stamps
// received times with the clock, so none lies much in the future. They
// bound the walk over journal_buckets partitions of a huge window.
const (
	journalPast   = (maxTTLSeconds + 24*3600) * int64(time.Second/time.Millisecond)
	journalFuture = 24 * 3600 * 1000
)

// journalWrites adds to w the journal row of m, in its received time's
// bucket and its id's shard, and the bucket's row in journal_buckets.
func (st *Store) journalWrites(w *writeSet, l layout, m *cache.Message, nowMs int64) {
	expMs := m.ExpiresAt.UnixMilli()
	recv := m.ReceivedAt.UnixMilli()
	bucket := bucketOf(recv, l.journalBucketMs)
	shard := shardOf(m.ID, l.journalShards)
	b := strconv.FormatInt(bucket, 10)
	w.add("j\x00"+b+"\x00"+strconv.Itoa(shard), st.q.insertJournal, bucket, shard, recv, m.ID[:], expMs, ttlSeconds(nowMs, expMs))
	span := bucketOf(bucket, journalSpanMs)
	st.liveness(w, "jb\x00"+strconv.FormatInt(span, 10), "jb\x00"+b, nowMs, expMs, st.q.insertJournalBucket, func(ts int64, ttl int, _ int64) []any {
		return []any{span, bucket, ts, ttl}
	})
}

// jpos is a position in the journal: rows after it have (ms, id) greater,
// with ids compared as unsigned bytes; an empty id precedes every id.
type jpos struct {
	ms int64
	id []byte
}

func (p jpos) less(q jpos) bool {
	if p.ms != q.ms {
		return p.ms < q.ms
	}
	return bytes.Compare(p.id, q.id) < 0
}

// Journal lists the unexpired references received in [from, to), oldest
// first, strictly after the position after. It walks the buckets listed in
// journal_buckets from the one holding the start; within a bucket it reads
// every shard concurrently and merges them by (received time, id).
func (st *Store) Journal(ctx context.Context, from, to time.Time, after cache.Position, limit int) ([]cache.Ref, error) {
	const op = "journal"
	c, err := st.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	nowMs := st.nowMs()
	lo := jpos{timeconv.CeilMs(from), []byte{}} // every row of ms ceil(from) is after it
	if !after.IsZero() {
		ms, exact := timeconv.FloorMs(after.At)
		a := jpos{ms, after.ID[:]}
		if !exact { // rows of the millisecond of after.At precede it
			if ms == math.MaxInt64 {
				return nil, nil
			}
			a = jpos{ms + 1, []byte{}}
		}
		if lo.less(a) {
			lo = a
		}
	}
	hi := timeconv.CeilMs(to) // exclusive
	if lo.ms < nowMs-journalPast {
		lo = jpos{nowMs - journalPast, []byte{}}
	}
	hi = min(hi, nowMs+journalFuture)
	if lo.ms >= hi {
		return nil, nil
	}
	w := c.l.journalBucketMs
	first, last := bucketOf(lo.ms, w), bucketOf(hi-1, w)
	refs := make([]cache.Ref, 0, min(limit, 1024))
	for span := bucketOf(first, journalSpanMs); span <= last && len(refs) < limit; span += journalSpanMs {
		buckets, err := st.journalBuckets(ctx, c, span, max(first, span), min(last, span+journalSpanMs-1))
		if err != nil {
			return nil, herald.Unavailable(op, err)
		}
		for _, b := range buckets {
			got, err := st.journalBucket(ctx, c, b, lo, hi, limit-len(refs), nowMs)
			if err != nil {
				return nil, herald.Unavailable(op, err)
			}
			refs = append(refs, got...)
			if len(refs) >= limit {
				break
			}
		}
	}
	return refs, nil
}

// journalBuckets lists the buckets in [first, last] of one span.
func (st *Store) journalBuckets(ctx context.Context, c *conn, span, first, last int64) ([]int64, error) {
	iter := c.s.Query(st.q.selectJournalBuckets, span, first, last).WithContext(ctx).PageSize(1000).Iter()
	var out []int64
	var b int64
	for iter.Scan(&b) {
		out = append(out, b)
	}
	return out, iter.Close()
}

// shardIter is one shard's rows of a bucket, with the next unexpired one.
type shardIter struct {
	it   *gocql.Iter
	head jpos
	exp  int64
	ok   bool
}

// next advances to the next unexpired row.
func (s *shardIter) next(nowMs int64) {
	var id []byte
	for s.it.Scan(&s.head.ms, &id, &s.exp) {
		if s.exp > nowMs && len(id) == 16 {
			s.head.id = id
			s.ok = true
			return
		}
	}
	s.ok = false
}

// journalBucket returns up to need unexpired references of bucket b after
// lo and before hi, oldest first. The first page of every shard is fetched
// concurrently; the merge then pulls rows (and further pages) as needed.
func (st *Store) journalBucket(ctx context.Context, c *conn, b int64, lo jpos, hi int64, need int, nowMs int64) ([]cache.Ref, error) {
	n := c.l.journalShards
	shards := make([]*shardIter, n)
	ps := min(max(2*need/n+1, 16), 5000)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s := &shardIter{it: c.s.Query(st.q.selectJournal, b, i, lo.ms, lo.id, hi).WithContext(ctx).PageSize(ps).Iter()}
			s.next(nowMs)
			shards[i] = s
		})
	}
	wg.Wait()
	var out []cache.Ref
	for len(out) < need {
		var best *shardIter
		for _, s := range shards {
			if s.ok && (best == nil || s.head.less(best.head)) {
				best = s
			}
		}
		if best == nil {
			break
		}
		out = append(out, cache.Ref{ID: uuid.UUID(best.head.id), At: msTime(best.head.ms), ExpiresAt: msTime(best.exp)})
		best.next(nowMs)
	}
	var first error
	for _, s := range shards {
		if err := s.it.Close(); err != nil && first == nil {
			first = err
		}
	}
	return out, first
}
