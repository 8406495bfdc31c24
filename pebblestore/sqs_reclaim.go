package pebblestore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// purgeSlack is how far (in id time) around the boundary it finds
// PurgeMessages checks every message's SentAt. The boundary search
// assumes that SentAt grows with id time; ids and SentAt come from
// different clocks (and from several nodes on Cassandra), so near the
// boundary that may hold only roughly.
const purgeSlack = 100 * time.Millisecond

// PurgeMessages removes every message of q sent before `before`, with
// their states, and commits with Sync: a purge must not come undone.
//
// Messages are ordered by id, not by SentAt, so per shard it finds the
// boundary by SentAt: if the newest message was sent before `before` (the
// usual purge, at now) the whole shard up to it goes in one range
// deletion; otherwise a binary search over id time, a seek per step,
// finds the first message sent at or after `before`. One range deletion
// then drops everything older than the boundary less purgeSlack, and the
// messages within purgeSlack of it are decided one by one. Messages put
// after the purge are never touched: a range deletion only hides older
// writes.
func (s *QueueStore) PurgeMessages(ctx context.Context, q *sqs.Queue, before time.Time) error {
	const op = "purge messages"
	if err := s.db.enter(ctx, op); err != nil {
		return err
	}
	defer s.db.leave()
	b := s.db.pdb.NewBatch()
	defer b.Close()
	for shard := range shardsOf(q) {
		if err := s.purgeShard(ctx, b, q, shard, before); err != nil {
			return herald.Unavailable(op, err)
		}
	}
	if b.Empty() {
		return nil
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return herald.Unavailable(op, err)
	}
	return nil
}

// purgeShard adds to b the deletion of the messages of one shard sent
// before `before`.
func (s *QueueStore) purgeShard(ctx context.Context, b *pebble.Batch, q *sqs.Queue, shard int, before time.Time) (err error) {
	prefix := sqsShardPrefix(q.ID, shard)
	it, err := s.db.newIter(ctx, prefix, prefixEnd(prefix))
	if err != nil {
		return err
	}
	defer func() { err = closeIter(it, err) }()

	firstKey, firstSent, ok, err := nextRecord(it, it.First())
	if !ok || err != nil {
		return err // no messages
	}
	firstHigh := tidHighOfKey(firstKey)
	lastKey, lastSent, ok, err := prevRecord(it, it.Last())
	if !ok || err != nil {
		return err
	}
	if lastSent.Before(before) {
		return b.DeleteRange(prefix, append(lastKey, sqsAfterSuffix), nil)
	}
	// f(x): the first message with tidHigh >= x was sent before `before`.
	// f(lo) holds and f(hi) does not; narrow until they are adjacent.
	lo, hi := firstHigh, tidHighOfKey(lastKey)+1
	if firstSent.Before(before) {
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			key, sent, ok, err := nextRecord(it, it.SeekGE(sqsHighBound(q.ID, shard, mid)))
			if err != nil {
				return err
			}
			if ok && sent.Before(before) {
				lo = max(mid, tidHighOfKey(key))
			} else {
				hi = mid
			}
		}
	}
	slack := uint64(purgeSlack / 100) // in ticks
	from := sqsHighBound(q.ID, shard, lo-min(lo, slack))
	if err := b.DeleteRange(prefix, from, nil); err != nil {
		return err
	}
	to := prefixEnd(prefix)
	if lo < ^uint64(0)-slack-1 {
		to = sqsHighBound(q.ID, shard, lo+1+slack)
	}
	return purgeEach(it, b, from, to, before)
}

// purgeEach adds to b the deletion of the messages in [from, to) sent
// before `before`, and of their states.
func purgeEach(it *pebble.Iterator, b *pebble.Batch, from, to []byte, before time.Time) error {
	for valid := it.SeekGE(from); valid && bytes.Compare(it.Key(), to) < 0; valid = it.Next() {
		key, sent, ok, err := nextRecord(it, true)
		if err != nil || !ok || bytes.Compare(key, to) >= 0 {
			return err
		}
		if !sent.Before(before) {
			continue
		}
		if err := b.Delete(key, nil); err != nil {
			return err
		}
		if err := b.Delete(append(key, sqsStateSuffix), nil); err != nil {
			return err
		}
	}
	return it.Error()
}

// tidHighOfKey returns the tidHigh of the message of a message key.
func tidHighOfKey(key []byte) uint64 {
	return binary.BigEndian.Uint64(key[sqsShardPrefixLen:])
}

// nextRecord moves the iterator forward from its position (valid is what
// the positioning call returned) to the first message record and returns
// a copy of its key and its SentAt; ok is false at the end.
func nextRecord(it *pebble.Iterator, valid bool) (key []byte, sent time.Time, ok bool, err error) {
	for ; valid; valid = it.Next() {
		if key, sent, ok, err = recordAt(it); ok || err != nil {
			return key, sent, ok, err
		}
	}
	return nil, time.Time{}, false, it.Error()
}

// prevRecord is nextRecord backwards.
func prevRecord(it *pebble.Iterator, valid bool) (key []byte, sent time.Time, ok bool, err error) {
	for ; valid; valid = it.Prev() {
		if key, sent, ok, err = recordAt(it); ok || err != nil {
			return key, sent, ok, err
		}
	}
	return nil, time.Time{}, false, it.Error()
}

// recordAt returns the key and SentAt of the message record at the
// iterator; ok is false on a state key.
func recordAt(it *pebble.Iterator) (key []byte, sent time.Time, ok bool, err error) {
	if len(it.Key()) != sqsMsgKeyLen {
		return nil, time.Time{}, false, nil
	}
	v, err := it.ValueAndErr()
	if err != nil {
		return nil, time.Time{}, false, err
	}
	_, sent, ok = messageTimes(v)
	if !ok {
		return nil, time.Time{}, false, fmt.Errorf("%w: message key %x", errCorruptSQS, it.Key())
	}
	return append([]byte(nil), it.Key()...), sent, true, nil
}

// sqsReapBatchBytes bounds the size of one reap batch.
const sqsReapBatchBytes = 4 << 20

// ReapExpired deletes the SQS messages that have expired by now (per
// Options.Now), with their states, and returns how many it deleted. It
// reads only the expiry index up to now and, for each due entry, the span
// of messages the entry covers: the cost follows the messages sent, never
// the number of queues. The background reaper calls it with the cache's
// ReapExpired. Deletions are not synced; a reap lost in a crash is redone,
// since its expiry entry is deleted in the same batch.
func (s *QueueStore) ReapExpired(ctx context.Context) (int, error) {
	const op = "reap queue messages"
	if err := s.db.enter(ctx, op); err != nil {
		return 0, err
	}
	defer s.db.leave()
	now := s.db.now()
	// An entry is due once its bucket end has passed: every message it
	// covers expires at or before that end.
	lo := []byte{prefixSQSExpiry}
	hi := timeBound(prefixSQSExpiry, now.UnixMilli()+1)
	total := 0
	for {
		if err := ctx.Err(); err != nil {
			return total, herald.Unavailable(op, err)
		}
		entries, next, err := s.dueExpiries(ctx, lo, hi)
		if err != nil {
			return total, herald.Unavailable(op, err)
		}
		for _, e := range entries {
			n, err := s.reapSpan(ctx, e, now)
			total += n
			if err != nil {
				return total, herald.Unavailable(op, err)
			}
		}
		if len(entries) < reapChunk {
			return total, nil
		}
		lo = next
	}
}

// dueExpiries reads up to reapChunk SQS expiry entries in [lo, hi) and
// returns them with the key to resume from.
func (s *QueueStore) dueExpiries(ctx context.Context, lo, hi []byte) ([]sqsExpiry, []byte, error) {
	it, err := s.db.newIter(ctx, lo, hi)
	if err != nil {
		return nil, nil, err
	}
	var entries []sqsExpiry
	var next []byte
	for valid := it.First(); valid && len(entries) < reapChunk; valid = it.Next() {
		e, ok := parseSQSExpiryKey(it.Key())
		if !ok {
			err = fmt.Errorf("%w: sqs expiry key %x", errCorruptSQS, it.Key())
			break
		}
		entries = append(entries, e)
		next = successor(it.Key())
	}
	return entries, next, closeIter(it, err)
}

// reapSpan deletes the messages covered by e that have expired at now,
// their states, states left without a message, and then e itself.
// Messages of the span that have not expired belong to another, later
// entry and stay.
func (s *QueueStore) reapSpan(ctx context.Context, e sqsExpiry, now time.Time) (int, error) {
	lo, hi := e.span()
	it, err := s.db.newIter(ctx, lo, hi)
	if err != nil {
		return 0, err
	}
	b := s.db.pdb.NewBatch()
	defer func() { _ = b.Close() }()
	n := 0
	var msgKey []byte // the last message record seen and kept
	for valid := it.First(); valid; valid = it.Next() {
		key := it.Key()
		_, _, state, ok := parseSQSMsgKey(key)
		if !ok {
			continue
		}
		if state {
			if msgKey == nil || string(key[:sqsMsgKeyLen]) != string(msgKey) {
				if err = b.Delete(key, nil); err != nil { // its message is gone
					break
				}
			}
			continue
		}
		var v []byte
		if v, err = it.ValueAndErr(); err != nil {
			break
		}
		exp, _, ok := messageTimes(v)
		if !ok || !expiredAt(exp, now) {
			msgKey = append(msgKey[:0], key...)
			continue
		}
		msgKey = msgKey[:0]
		if err = b.Delete(key, nil); err != nil {
			break
		}
		n++
		if b.Len() > sqsReapBatchBytes {
			if err = b.Commit(pebble.NoSync); err != nil {
				break
			}
			b.Reset()
		}
	}
	if err := closeIter(it, err); err != nil {
		return 0, err
	}
	if err := b.Delete(e.key(), nil); err != nil {
		return 0, err
	}
	return n, b.Commit(pebble.NoSync)
}
