package cassandrastore

import (
	"context"
	"errors"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// The path tree lives in the table nodes: one row per node, keyed by
// (parent, word), so a node's children are one partition in byte order of
// their words (Cassandra orders text clustering keys by their UTF-8 bytes).
// The root's children live in the partition rootKey.

// rootKey is the partition of the root's children: Cassandra refuses an
// empty partition key, and "." is never a valid path.
const rootKey = "."

// parentKey returns the partition of the children of parent ("" is root).
func parentKey(parent string) string {
	if parent == "" {
		return rootKey
	}
	return parent
}

// splitPath returns the partition and word of the node path.
func splitPath(path string) (parent, word string) {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return rootKey, path
	}
	return path[:i], path[i+1:]
}

// nodeWrites adds to w the tree writes of m, whose distinct paths are ps:
//
//   - every prefix of every path (a.b.c: a, a.b, a.b.c) gets live_until,
//     the time until which something at or below it lives;
//   - every proper prefix (a, a.b) gets kids_until, the time until which
//     something below it lives;
//   - each path's own node gets own_until, until when a message of its own
//     lives (Latest and Children consult the history only while it does);
//   - each path's own node gets latest, the reference to m, written USING
//     TIMESTAMP <message time in µs>: last-write-wins then keeps the newest
//     message by message time, whatever order messages arrive in and in
//     whichever data center they are written, so a late older message
//     never displaces a newer one. Two messages in the same microsecond
//     have equal timestamps: Cassandra then keeps the cell that expires
//     later (to the second, as each coordinator computes it from the TTL),
//     and among equal expiries the greater value, which starts with the
//     100 ns ticks, then the id bytes (encodeLatest): so within one
//     microsecond a message living longer may win over one a few ticks
//     newer. A newer message that expires first still shadows older ones
//     once expired; Latest then falls back to the history.
//
// Writes to one parent's partition share a batch.
func (st *Store) nodeWrites(w *writeSet, m *cache.Message, ps []string, nowMs int64) {
	expMs := m.ExpiresAt.UnixMilli()
	ticks := idTicks(m.ID)
	latest := encodeLatest(ticks, m.ID, expMs)
	ttl := ttlSeconds(nowMs, expMs)
	seen := make(map[string]bool, 4*len(ps))
	for _, p := range ps {
		parent, word := splitPath(p)
		part := "n\x00" + parent
		w.add(part, st.q.updateNodeLatest, ticksMicros(ticks), ttl, latest, parent, word)
		st.liveness(w, part, "o\x00"+p, nowMs, expMs, st.q.updateNodeOwn, func(ts int64, ttl int, exp int64) []any {
			return []any{ts, ttl, exp, parent, word}
		})
		for i := 1; i <= len(p); i++ {
			if i < len(p) && p[i] != '.' {
				continue
			}
			node := p[:i]
			parent, word := splitPath(node)
			if i < len(p) && !seen["k\x00"+node] {
				// node has a descendant: Children reports it, so that tree
				// walks do not query the children of leaves.
				seen["k\x00"+node] = true
				st.liveness(w, "n\x00"+parent, "k\x00"+node, nowMs, expMs, st.q.updateNodeKids, func(ts int64, ttl int, exp int64) []any {
					return []any{ts, ttl, exp, parent, word}
				})
			}
			if seen[node] {
				continue
			}
			seen[node] = true
			st.liveness(w, "n\x00"+parent, "l\x00"+node, nowMs, expMs, st.q.updateNodeLive, func(ts int64, ttl int, exp int64) []any {
				return []any{ts, ttl, exp, parent, word}
			})
		}
	}
}

// Latest returns the node's latest reference if it is unexpired; if it is
// missing or expired while the node still has messages of its own (a newer
// short-lived message expired before older long-lived ones), it falls back
// to the newest unexpired entry of the history.
func (st *Store) Latest(ctx context.Context, path string) (*cache.Ref, error) {
	const op = "latest"
	c, err := st.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	parent, word := splitPath(path)
	var own int64
	var latest []byte
	err = c.s.Query(st.q.selectNode, parent, word).WithContext(ctx).Scan(&own, &latest)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	ref, err := st.nodeLatest(ctx, c, path, own, latest, st.nowMs())
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return ref, nil
}

// nodeLatest resolves a node's latest reference from its row (see Latest).
func (st *Store) nodeLatest(ctx context.Context, c *conn, path string, own int64, latest []byte, nowMs int64) (*cache.Ref, error) {
	if ref, exp, ok := decodeLatest(latest); ok && exp > nowMs {
		return &ref, nil
	}
	if own <= nowMs {
		return nil, nil
	}
	refs, err := st.history(ctx, c, path, cache.Position{}, 1, nowMs)
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	return &refs[0], nil
}

// fallbackConcurrency bounds the history reads of one Children call.
const fallbackConcurrency = 8

// Children lists the live rows of parent's partition after the word
// after, paging through rows whose liveness has just passed (TTLs have
// whole-second granularity, and liveness rows are rounded up: see
// marks.go).
func (st *Store) Children(ctx context.Context, parent, after string, limit int) ([]cache.Child, error) {
	const op = "children"
	c, err := st.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	nowMs := st.nowMs()
	iter := c.s.Query(st.q.selectChildren, parentKey(parent), after).WithContext(ctx).PageSize(pageSize(limit)).Iter()
	var (
		out      []cache.Child
		fallback []int // children whose latest needs the history
		word     string
		live     int64
		own      int64
		kids     int64
		latest   []byte
	)
	for len(out) < limit && iter.Scan(&word, &live, &own, &kids, &latest) {
		if live <= nowMs {
			continue
		}
		ch := cache.Child{Word: word, HasChildren: kids > nowMs}
		if ref, exp, ok := decodeLatest(latest); ok && exp > nowMs {
			ch.Latest = &ref
		} else if own > nowMs {
			fallback = append(fallback, len(out))
		}
		out = append(out, ch)
	}
	if err := iter.Close(); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	err = parallel(len(fallback), fallbackConcurrency, func(k int) error {
		ch := &out[fallback[k]]
		path := ch.Word
		if parent != "" {
			path = parent + "." + ch.Word
		}
		refs, err := st.history(ctx, c, path, cache.Position{}, 1, nowMs)
		if len(refs) > 0 {
			ch.Latest = &refs[0]
		}
		return err
	})
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return out, nil
}
