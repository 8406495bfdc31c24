package pebblestore

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"
	"github.com/heraldmq/herald"
)

// reapChunk is how many expiry entries one reap batch handles.
const reapChunk = 1000

// reapLoop runs ReapExpired every interval until ctx is cancelled.
func (db *DB) reapLoop(ctx context.Context, interval time.Duration) {
	defer close(db.reaperDone)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, err := db.ReapExpired(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			db.log.Warn("pebblestore: reaping expired messages failed", "err", err, "reaped", n)
		case n > 0:
			db.log.Debug("pebblestore: reaped expired messages", "reaped", n)
		}
		n, err = db.queues.ReapExpired(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			db.log.Warn("pebblestore: reaping expired queue messages failed", "err", err, "reaped", n)
		case n > 0:
			db.log.Debug("pebblestore: reaped expired queue messages", "reaped", n)
		}
		n, err = db.rollupStore().ReapExpired(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			db.log.Warn("pebblestore: reaping expired rollup event records and buckets failed", "err", err, "reaped", n)
		case n > 0:
			db.log.Debug("pebblestore: reaped expired rollup event records and bucket rows", "reaped", n)
		}
	}
}

// expiring is one entry of the expiry index.
type expiring struct {
	expMs int64
	id    uuid.UUID
}

// ReapExpired deletes the messages that have expired by now (per
// Options.Now), with all their index entries, and returns how many it
// deleted. The background reaper calls it every Options.ReapInterval.
func (db *DB) ReapExpired(ctx context.Context) (int, error) {
	const op = "reap"
	if err := db.enter(ctx, op); err != nil {
		return 0, err
	}
	defer db.leave()
	// Expired means now >= expires: the entries below ms(now+1).
	hi := timeBound(prefixExpiry, db.now().UnixMilli()+1)
	lo := []byte{prefixExpiry}
	total := 0
	for {
		if err := ctx.Err(); err != nil {
			return total, herald.Unavailable(op, err)
		}
		chunk, next, err := db.expiredChunk(ctx, lo, hi)
		if err != nil {
			return total, herald.Unavailable(op, err)
		}
		if len(chunk) == 0 {
			return total, nil
		}
		n, err := db.reap(chunk)
		total += n
		if err != nil {
			return total, herald.Unavailable(op, err)
		}
		if len(chunk) < reapChunk {
			return total, nil
		}
		lo = next // resume past this chunk, not over its fresh tombstones
	}
}

// expiredChunk reads up to reapChunk expiry entries in [lo, hi) and returns
// them with the key to resume from.
func (db *DB) expiredChunk(ctx context.Context, lo, hi []byte) ([]expiring, []byte, error) {
	it, err := db.newIter(ctx, lo, hi)
	if err != nil {
		return nil, nil, err
	}
	var chunk []expiring
	var next []byte
	for valid := it.First(); valid && len(chunk) < reapChunk; valid = it.Next() {
		ms, id, ok := parseTimeKey(it.Key())
		if !ok {
			err = fmt.Errorf("%w: expiry key %x", errCorrupt, it.Key())
			break
		}
		chunk = append(chunk, expiring{ms, id})
		next = successor(it.Key())
	}
	return chunk, next, closeIter(it, err)
}

// reap deletes the messages of chunk whose records still expire when their
// expiry entry says (a re-put after expiry may have replaced a record), and
// the entries themselves. It holds the stripe locks of all the ids so that
// no put of one of them interleaves between the read and the commit.
func (db *DB) reap(chunk []expiring) (int, error) {
	stripes := make([]int, 0, len(chunk))
	for _, e := range chunk {
		stripes = append(stripes, stripeOf(e.id))
	}
	slices.Sort(stripes) // one global order: no deadlock between reapers
	stripes = slices.Compact(stripes)
	for _, s := range stripes {
		db.stripes[s].Lock()
	}
	defer func() {
		for _, s := range stripes {
			db.stripes[s].Unlock()
		}
	}()

	b := db.pdb.NewBatch()
	defer b.Close()
	n := 0
	latest := int64(math.MinInt64) // the latest time received of the deleted
	for _, e := range chunk {
		m, err := db.getRecord(e.id)
		if err != nil {
			return 0, err
		}
		if m != nil && m.ExpiresAt.UnixMilli() == e.expMs {
			if err := deleteMessage(b, m); err != nil { // includes the expiry entry
				return 0, err
			}
			latest = max(latest, m.ReceivedAt.UnixMilli())
			n++
			continue
		}
		if err := b.Delete(expiryKey(e.expMs, e.id), nil); err != nil {
			return 0, err
		}
	}
	if n > 0 {
		if err := db.raiseExpiredThrough(b, latest); err != nil {
			return 0, err
		}
	}
	// Losing a reap to a crash only means redoing it (the mark is lost
	// with the deletions): no need to sync.
	if err := b.Commit(pebble.NoSync); err != nil {
		return 0, err
	}
	return n, nil
}
