package pebblestore

import (
	"context"

	"github.com/cockroachdb/pebble/v2"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// PutMessage stores m under its id, in the history of each of its paths, in
// the journal and in the expiry index, in one synced batch. If an unexpired
// message with the same id is stored, it is returned unchanged instead.
//
// Only the id's stripe lock is held: puts of different ids commit
// concurrently, and Pebble groups their WAL syncs.
func (db *DB) PutMessage(ctx context.Context, m *cache.Message) (*cache.Message, bool, error) {
	const op = "put message"
	if err := cache.CheckStorable(m); err != nil {
		return nil, false, err
	}
	if err := db.enter(ctx, op); err != nil {
		return nil, false, err
	}
	defer db.leave()

	stripe := &db.stripes[stripeOf(m.ID)]
	stripe.Lock()
	defer stripe.Unlock()

	old, err := db.getRecord(m.ID)
	if err != nil {
		return nil, false, herald.Unavailable(op, err)
	}
	if old != nil && !old.Expired(db.now()) {
		return old, false, nil
	}

	rec := appendRecord(make([]byte, 0, recordSize(m)), m)
	b := db.pdb.NewBatchWithSize(len(rec) + (len(m.Paths)+3)*128)
	defer b.Close()
	if old != nil { // expired, not reaped yet: drop its index entries first
		if err := deleteMessage(b, old); err != nil {
			return nil, false, herald.Unavailable(op, err)
		}
	}
	if err := writeMessage(b, m, rec); err != nil {
		return nil, false, herald.Unavailable(op, err)
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return nil, false, herald.Unavailable(op, err)
	}
	return m, true, nil
}

// writeMessage adds the record rec of m and all its index entries to b.
func writeMessage(b *pebble.Batch, m *cache.Message, rec []byte) error {
	expMs := m.ExpiresAt.UnixMilli()
	exp := encodeMs(expMs)
	if err := b.Set(messageKey(m.ID), rec, nil); err != nil {
		return err
	}
	for _, p := range m.Paths {
		if err := b.Set(historyKey(p, m.ID), exp, nil); err != nil {
			return err
		}
	}
	if err := b.Set(journalKey(m.ReceivedAt.UnixMilli(), m.ID), exp, nil); err != nil {
		return err
	}
	return b.Set(expiryKey(expMs, m.ID), nil, nil)
}

// deleteMessage adds to b the deletion of the stored message m: its record
// and every index entry that writeMessage made for it.
func deleteMessage(b *pebble.Batch, m *cache.Message) error {
	if err := b.Delete(messageKey(m.ID), nil); err != nil {
		return err
	}
	for _, p := range m.Paths {
		if err := b.Delete(historyKey(p, m.ID), nil); err != nil {
			return err
		}
	}
	if err := b.Delete(journalKey(m.ReceivedAt.UnixMilli(), m.ID), nil); err != nil {
		return err
	}
	return b.Delete(expiryKey(m.ExpiresAt.UnixMilli(), m.ID), nil)
}
