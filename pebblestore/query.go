package pebblestore

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// GetMessages returns the messages with the given ids, nil for those missing
// or expired. It reads them with one iterator in key order, so that each
// seek starts from the previous one instead of from the top.
func (db *DB) GetMessages(ctx context.Context, ids []uuid.UUID) ([]*cache.Message, error) {
	const op = "get messages"
	if err := db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer db.leave()
	out := make([]*cache.Message, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	keys := make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = messageKey(id)
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(keys[a], keys[b]) })
	lo := []byte{prefixMessage}
	it, err := db.newIter(ctx, lo, prefixEnd(lo))
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	now := db.now()
	err = func() error {
		for n, i := range order {
			if n%ctxCheckEvery == ctxCheckEvery-1 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			key := keys[i]
			if !it.SeekGE(key) || !bytes.Equal(it.Key(), key) {
				continue
			}
			val, err := it.ValueAndErr()
			if err != nil {
				return err
			}
			m, err := decodeRecord(ids[i], val)
			if err != nil {
				return err
			}
			if !m.Expired(now) {
				out[i] = m
			}
		}
		return nil
	}()
	if err := closeIter(it, err); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return out, nil
}

// Latest returns the newest unexpired message at exactly path: the first
// unexpired entry of its history.
func (db *DB) Latest(ctx context.Context, path string) (*cache.Ref, error) {
	const op = "latest"
	if err := db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer db.leave()
	prefix := historyPrefix(path)
	it, err := db.newIter(ctx, prefix, prefixEnd(prefix))
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	it.First()
	ref, err := firstLiveHistory(ctx, it, prefix, db.now().UnixMilli())
	if err := closeIter(it, err); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return ref, nil
}

// History lists the unexpired messages of path newest first, strictly after
// the position after.
func (db *DB) History(ctx context.Context, path string, after cache.Position, limit int) ([]cache.Ref, error) {
	const op = "history"
	if err := db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer db.leave()
	prefix := historyPrefix(path)
	start, ok := historyStart(prefix, after)
	if !ok || limit <= 0 {
		return nil, nil
	}
	it, err := db.newIter(ctx, prefix, prefixEnd(prefix))
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	nowMs := db.now().UnixMilli()
	refs := make([]cache.Ref, 0, min(limit, maxPrealloc))
	err = scan(ctx, it, start, func(key, val []byte) (bool, error) {
		ref, live, err := historyRef(key, val, nowMs)
		if err != nil || !live {
			return true, err
		}
		refs = append(refs, ref)
		return len(refs) < limit, nil
	})
	if err := closeIter(it, err); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return refs, nil
}

// Journal lists the unexpired messages received in [from, to), oldest
// first, strictly after the position after.
func (db *DB) Journal(ctx context.Context, from, to time.Time, after cache.Position, limit int) ([]cache.Ref, error) {
	const op = "journal"
	if err := db.enter(ctx, op); err != nil {
		return nil, err
	}
	defer db.leave()
	lo, hi, ok := journalRange(from, to, after)
	if !ok || limit <= 0 {
		return nil, nil
	}
	it, err := db.newIter(ctx, lo, hi)
	if err != nil {
		return nil, herald.Unavailable(op, err)
	}
	nowMs := db.now().UnixMilli()
	refs := make([]cache.Ref, 0, min(limit, maxPrealloc))
	err = scan(ctx, it, lo, func(key, val []byte) (bool, error) {
		ms, id, ok := parseTimeKey(key)
		exp, okv := decodeMs(val)
		if !ok || !okv {
			return false, fmt.Errorf("%w: journal entry %x", errCorrupt, key)
		}
		if nowMs >= exp {
			return true, nil
		}
		refs = append(refs, cache.Ref{
			ID:        id,
			At:        time.UnixMilli(ms).UTC(),
			ExpiresAt: time.UnixMilli(exp).UTC(),
		})
		return len(refs) < limit, nil
	})
	if err := closeIter(it, err); err != nil {
		return nil, herald.Unavailable(op, err)
	}
	return refs, nil
}

// scan visits the keys of it from start on, while visit returns true.
func scan(ctx context.Context, it *pebble.Iterator, start []byte, visit func(key, val []byte) (bool, error)) error {
	n := 0
	for valid := it.SeekGE(start); valid; valid = it.Next() {
		if n++; n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		val, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		more, err := visit(it.Key(), val)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// firstLiveHistory returns the first unexpired history entry at or after the
// iterator's position among the keys starting with prefix, and leaves the
// iterator on it (or past the prefix).
func firstLiveHistory(ctx context.Context, it *pebble.Iterator, prefix []byte, nowMs int64) (*cache.Ref, error) {
	for n := 1; it.Valid() && hasPrefix(it.Key(), prefix); n++ {
		if n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		val, err := it.ValueAndErr()
		if err != nil {
			return nil, err
		}
		ref, live, err := historyRef(it.Key(), val, nowMs)
		if err != nil {
			return nil, err
		}
		if live {
			return &ref, nil
		}
		it.Next()
	}
	return nil, nil
}

// historyRef decodes a history entry; live is false when it has expired.
func historyRef(key, val []byte, nowMs int64) (ref cache.Ref, live bool, err error) {
	exp, ok := decodeMs(val)
	if !ok {
		return ref, false, fmt.Errorf("%w: history entry %x", errCorrupt, key)
	}
	if nowMs >= exp {
		return ref, false, nil
	}
	id, ok := idFromOrderKey(key)
	if !ok {
		return ref, false, fmt.Errorf("%w: history key %x", errCorrupt, key)
	}
	return cache.Ref{ID: id, At: cache.UUIDTime(id), ExpiresAt: time.UnixMilli(exp).UTC()}, true, nil
}

// closeIter closes it and returns the first of err, the iterator's error and
// the error of closing it.
func closeIter(it *pebble.Iterator, err error) error {
	if err == nil {
		err = it.Error()
	}
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return err
}

func hasPrefix(b, prefix []byte) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == string(prefix)
}

// maxPrealloc caps the capacity reserved for a result from its limit.
const maxPrealloc = 256
