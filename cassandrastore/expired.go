package cassandrastore

import (
	"context"
	"strconv"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// What retention removed (cache.Store.ExpiredSince). Cassandra drops an
// expired message by its TTL and leaves no trace, so every put also
// writes, in the write set of the message, a mark in expiry_marks: the
// second it expires in, and its time received rounded up to the second.
// A process writes a mark only when it has not yet written that expiry
// second with that received second or a later one (marks.go), so under a
// steady load each process writes about one mark per second per TTL in
// use. A message received at or after `from` that has expired by now
// expired in a second from `from` to now, so ExpiredSince reads the marks
// of those seconds, a partition per day.

// maxExpiredLookback is how far back ExpiredSince can tell: marks live
// this long after their expiry, and an older `from` is answered true.
const maxExpiredLookback = 32 * 24 * time.Hour

const daySeconds = 24 * 3600

// expiryMarkWrites adds to w the expiry mark of m, unless this process
// already wrote one covering it (the same expiry second, a received
// second as late or later).
func (st *Store) expiryMarkWrites(w *writeSet, m *cache.Message, nowMs int64) {
	expS := floorDiv(m.ExpiresAt.UnixMilli(), 1000)
	recvMs := (floorDiv(m.ReceivedAt.UnixMilli(), 1000) + 1) * 1000 // rounded up: later, never earlier
	key := "xm\x00" + strconv.FormatInt(expS, 10)
	if st.marks.covered(key, recvMs) {
		return
	}
	day := floorDiv(expS, daySeconds)
	ttl := ttlSeconds(nowMs, (expS+1)*1000+maxExpiredLookback.Milliseconds())
	w.add("xm\x00"+strconv.FormatInt(day, 10), st.q.insertExpiredMark, day, expS, recvMs, recvMs*1000, ttl)
	w.marks = append(w.marks, mark{key, recvMs})
}

// ExpiredSince reports whether a message received at or after from has
// expired by now, from the expiry marks of the seconds from `from` to now
// (true for a `from` older than maxExpiredLookback). Marks round the time
// received up to the second, so a message received up to a second before
// from may count.
func (st *Store) ExpiredSince(ctx context.Context, from time.Time) (bool, error) {
	const op = "expired since"
	c, err := st.enter(ctx, op)
	if err != nil {
		return false, err
	}
	nowMs := st.nowMs()
	if nowMs-from.UnixMilli() > maxExpiredLookback.Milliseconds() {
		return true, nil
	}
	fromMs := from.UnixMilli()
	loS, hiS := floorDiv(fromMs, 1000), floorDiv(nowMs, 1000)
	if loS > hiS {
		return false, nil
	}
	days := make([]int64, 0, 4)
	for d := floorDiv(loS, daySeconds); d <= floorDiv(hiS, daySeconds); d++ {
		days = append(days, d)
	}
	found := make([]bool, len(days))
	err = parallel(len(days), 8, func(i int) error {
		var latest *int64
		err := c.s.Query(st.q.selectExpiredMarks, days[i], loS, hiS).WithContext(ctx).Scan(&latest)
		if err == gocql.ErrNotFound {
			return nil
		}
		found[i] = err == nil && latest != nil && *latest >= fromMs
		return err
	})
	if err != nil {
		return false, herald.Unavailable(op, err)
	}
	for _, f := range found {
		if f {
			return true, nil
		}
	}
	return false, nil
}
