package cassandrastore

import (
	"context"
	"slices"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// PutMessage stores m: it first reads the id and returns
// an unexpired stored message unchanged; then it writes every index entry
// (history, history_buckets, nodes, journal, journal_buckets) concurrently,
// and only once all succeeded the messages row. It returns once every write
// was acknowledged at the configured consistency.
//
// The lookup and the writes are not one transaction. Within a process a
// lock per id stripe makes them atomic for one id. Two processes putting
// the same new id at the same moment may both write (Cassandra has no
// cheap insert-if-absent; a lightweight transaction would cost four round
// trips per put): the messages row then holds the last write, and the
// indexes hold both, which for a repeated message (same paths) is the same
// entries.
func (st *Store) PutMessage(ctx context.Context, m *cache.Message) (*cache.Message, bool, error) {
	const op = "put message"
	if err := cache.CheckStorable(m); err != nil {
		return nil, false, err
	}
	c, err := st.enter(ctx, op)
	if err != nil {
		return nil, false, err
	}
	mu := st.stripeOf(m.ID)
	mu.Lock()
	defer mu.Unlock()

	old, err := c.getMessage(ctx, &st.q, m.ID, st.nowMs())
	if err != nil {
		return nil, false, herald.Unavailable(op, err)
	}
	if old != nil {
		return old, false, nil
	}
	nowMs := st.nowMs()
	expMs := m.ExpiresAt.UnixMilli()
	ttl := ttlSeconds(nowMs, expMs)
	var w writeSet
	ps := distinct(m.Paths)
	st.historyWrites(&w, c.l, m, ps, nowMs)
	st.nodeWrites(&w, m, ps, nowMs)
	st.journalWrites(&w, c.l, m, nowMs)
	st.expiryMarkWrites(&w, m, nowMs)
	if err := c.exec(ctx, &w); err != nil {
		return nil, false, herald.Unavailable(op, err)
	}
	for _, k := range w.marks {
		st.marks.record(k.key, k.exp, nowMs)
	}
	if err := c.insertMessage(ctx, &st.q, m, ttl); err != nil {
		return nil, false, herald.Unavailable(op, err)
	}
	return m, true, nil
}

// liveness adds the write of a liveness row to w, written at the rounded
// expiry exp of the message (see marks.go), unless this process already
// wrote the row (key) with that expiry or a later one. args returns the
// statement's arguments given its write timestamp, TTL and exp.
func (st *Store) liveness(w *writeSet, part, key string, nowMs, expMs int64, cql string, args func(ts int64, ttl int, exp int64) []any) {
	exp := markExpiry(nowMs, expMs)
	if st.marks.covered(key, exp) {
		return
	}
	// USING TIMESTAMP <expiry in µs>: the write that expires last has the
	// largest timestamp, so last-write-wins keeps the longest-lived one,
	// whatever order the writes arrive in. The TTL matches that expiry.
	w.add(part, cql, args(exp*1000, ttlSeconds(nowMs, exp), exp)...)
	w.marks = append(w.marks, mark{key, exp})
}

// distinct returns ps without repeats, in order.
func distinct(ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
