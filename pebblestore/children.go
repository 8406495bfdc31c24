package pebblestore

import (
	"bytes"
	"context"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// Children lists the direct children of parent in the byte order of their
// words, strictly after the word after.
//
// It is a skip scan over the history keys below parent: the first key of a
// child's subtree names the child; the child's own entries, if any, come
// first and give its Latest; then one seek jumps over the rest of the
// subtree to the next child. A child whose whole subtree has expired (but
// not yet been reaped) is skipped, at the cost of stepping over its expired
// entries, which the reaper keeps few.
func (db *DB) Children(ctx context.Context, parent, after string, limit int) ([]cache.Child, error) {
	const op = "children"
	if err := db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer db.leave()
	if limit <= 0 {
		return nil, nil
	}
	p := childrenPrefix(parent)
	it, err := db.newIter(ctx, p, prefixEnd(p))
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	seek := p
	if after != "" {
		seek = append(append(bytes.Clone(p), after...), sepSubtree)
	}
	nowMs := db.now().UnixMilli()
	out := make([]cache.Child, 0, min(limit, maxPrealloc))
	// node holds P + word, the current child's encoded path; the prefixes
	// and seek keys below are built on it (Pebble copies seek keys).
	node := make([]byte, len(p), len(p)+64)
	copy(node, p)
	err = func() error {
		for it.SeekGE(seek); it.Valid() && len(out) < limit; advance(it, seek) {
			if err := ctx.Err(); err != nil {
				return err
			}
			rest := it.Key()[len(p):]
			i := wordEnd(rest)
			if i == 0 || i == len(rest) {
				return fmt.Errorf("%w: history key %x", errCorrupt, it.Key())
			}
			sep := rest[i]
			node = append(node[:len(p)], rest[:i]...)
			var latest *cache.Ref
			if sep == sepOwn {
				ref, err := firstLiveHistory(ctx, it, append(node, sepOwn), nowMs)
				if err != nil {
					return err
				}
				latest = ref
			}
			// Past the child's own entries: does anything lie below it?
			below := append(node, sepChild)
			advance(it, below)
			hasChildren := it.Valid() && hasPrefix(it.Key(), below)
			if latest == nil && hasChildren { // anything unexpired down there?
				ref, err := firstLiveHistory(ctx, it, below, nowMs)
				if err != nil {
					return err
				}
				hasChildren = ref != nil
			}
			if latest != nil || hasChildren {
				out = append(out, cache.Child{Word: string(node[len(p):]), Latest: latest, HasChildren: hasChildren})
			}
			seek = append(node, sepSubtree)
		}
		return nil
	}()
	if err := closeIter(it, err); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return out, nil
}

// wordEnd returns the length of the word at the start of b: the index of
// the first separator byte, or len(b).
func wordEnd(b []byte) int {
	for i, c := range b {
		if c <= sepChild {
			return i
		}
	}
	return len(b)
}

// nextBeforeSeek is how many keys advance steps over before it seeks.
const nextBeforeSeek = 4

// advance moves it to the first key at or after target. When a child's
// subtree is small (one path with a message or two: the common case) the
// next child is a step or two away, and a step is much cheaper than a seek,
// so it tries a few steps first.
func advance(it *pebble.Iterator, target []byte) {
	for range nextBeforeSeek {
		if !it.Valid() || bytes.Compare(it.Key(), target) >= 0 {
			return
		}
		it.Next()
	}
	if it.Valid() && bytes.Compare(it.Key(), target) < 0 {
		it.SeekGE(target)
	}
}
