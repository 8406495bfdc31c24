package pebblestore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/heraldmq/herald"
)

// What retention removed (cache.Store.ExpiredSince): the reaper keeps the
// latest time received of the messages it deleted under
// keyExpiredThrough, raised in the batch of each reap (under the reap's
// stripe locks, and reaps of one DB never run at once: one reaper loop);
// a message expired but not yet reaped is still in the expiry index.

// maxUnreapedLooks bounds the expiry entries ExpiredSince reads past the
// reaper's mark: a reaper that far behind makes it answer true.
const maxUnreapedLooks = 10_000

// raiseExpiredThrough adds to b the mark of a reap whose deleted messages
// were received up to ms.
func (db *DB) raiseExpiredThrough(b *pebble.Batch, ms int64) error {
	cur, err := db.expiredThrough()
	if err != nil {
		return err
	}
	if cur >= ms {
		return nil
	}
	return b.Set(keyExpiredThrough, binary.BigEndian.AppendUint64(nil, uint64(ms)), nil)
}

// expiredThrough reads the reaper's mark (math.MinInt64 without one).
func (db *DB) expiredThrough() (int64, error) {
	v, closer, err := db.pdb.Get(keyExpiredThrough)
	if errors.Is(err, pebble.ErrNotFound) {
		return minMs, nil
	}
	if err != nil {
		return 0, err
	}
	defer closer.Close()
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: expired-through mark %x", errCorrupt, v)
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

const minMs = -1 << 63

// ExpiredSince reports whether a message received at or after from has
// expired: reaped (the reaper's mark) or expired and waiting for the
// reaper (the expiry index up to now).
func (db *DB) ExpiredSince(ctx context.Context, from time.Time) (bool, error) {
	const op = "expired since"
	if err := db.enter(ctx, op); err != nil {
		return false, err
	}
	defer db.leave()
	fromMs := from.UnixMilli()
	through, err := db.expiredThrough()
	if err != nil {
		return false, herald.Unavailable(op, err)
	}
	if through >= fromMs {
		return true, nil
	}
	nowMs := db.now().UnixMilli()
	hi := timeBound(prefixExpiry, nowMs+1)
	it, err := db.newIter(ctx, []byte{prefixExpiry}, hi)
	if err != nil {
		return false, herald.Unavailable(op, err)
	}
	found, looked := false, 0
	for valid := it.First(); valid && !found; valid = it.Next() {
		if looked++; looked > maxUnreapedLooks {
			found = true // too far behind to tell
			break
		}
		_, id, ok := parseTimeKey(it.Key())
		if !ok {
			err = fmt.Errorf("%w: expiry key %x", errCorrupt, it.Key())
			break
		}
		rec, gerr := db.getRecord(id)
		if gerr != nil {
			err = gerr
			break
		}
		found = rec != nil && rec.ExpiresAt.UnixMilli() <= nowMs && rec.ReceivedAt.UnixMilli() >= fromMs
	}
	if err := closeIter(it, err); err != nil {
		return false, herald.Unavailable(op, err)
	}
	return found, nil
}
