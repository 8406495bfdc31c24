package sqs

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// redrive splits received messages into those to deliver and those whose
// receive count exceeds the queue's maxReceiveCount, which move to the
// dead-letter queue instead (AWS moves a message on the receive after its
// maxReceiveCount-th). If the dead-letter queue is missing the messages are
// delivered as usual; if the move fails they stay in flight, undelivered,
// and are tried again when their visibility timeout ends.
func (s *Service) redrive(ctx context.Context, q *Queue, msgs []*Message, now time.Time) (deliver []*Message, moved map[uuid.UUID]bool) {
	p := q.Attributes.RedrivePolicy
	if p == nil {
		return msgs, nil
	}
	var over []*Message
	for _, m := range msgs {
		if m.State.ReceiveCount > p.MaxReceiveCount {
			over = append(over, m)
		} else {
			deliver = append(deliver, m)
		}
	}
	if len(over) == 0 {
		return msgs, nil
	}
	dlq, err := s.queueByARN(ctx, p.DeadLetterTargetARN)
	if err != nil {
		return msgs, nil
	}
	if err := s.moveMessages(ctx, q, dlq, over, s.queueARN(q), now); err != nil {
		return deliver, nil
	}
	s.countDeadLettered(dlq, len(over))
	moved = make(map[uuid.UUID]bool, len(over))
	for _, m := range over {
		moved[m.ID] = true
	}
	return deliver, moved
}

// moveMessages moves msgs from src to dst under the same MessageIds, with
// DeadLetterSourceARN set to deadLetterSource (a queue ARN when
// dead-lettering, "" when a move task returns messages to their source).
// As on AWS, a dead-lettered message keeps its receive count (including
// the receive that moved it) and first receive time, so that
// ApproximateReceiveCount and ApproximateFirstReceiveTimestamp go on from
// there in the dead-letter queue; a move task starts messages afresh, so
// that their new queue's maxReceiveCount counts from zero. The copy is stored and indexed in dst before the originals are
// deleted, so a failure in between duplicates a message but never loses
// one.
//
// Retention follows AWS: a standard message keeps its original enqueue
// time, so it expires SentAt + dst's retention period (and one already past
// that is simply dropped); a FIFO message's enqueue time is reset by the
// move, so it expires now + dst's retention period. SentTimestamp is
// unchanged either way.
func (s *Service) moveMessages(ctx context.Context, src, dst *Queue, msgs []*Message, deadLetterSource string, now time.Time) error {
	copies := make([]*Message, 0, len(msgs))
	ids := make([]uuid.UUID, 0, len(msgs))
	for _, m := range msgs {
		ids = append(ids, m.ID)
		c := *m
		c.Shard = ShardOf(c.ID, dst.Shards)
		c.DeadLetterSourceARN = deadLetterSource
		c.State = State{ID: m.ID, VisibleAt: now}
		if deadLetterSource != "" {
			c.State.ReceiveCount, c.State.FirstReceiveAt = m.State.ReceiveCount, m.State.FirstReceiveAt
		}
		retention := seconds(dst.Attributes.MessageRetentionPeriod)
		if dst.Attributes.FifoQueue {
			c.ExpiresAt = now.Add(retention)
			if c.SequenceNumber == "" {
				c.SequenceNumber = sequenceNumber(c.ID)
			}
		} else {
			c.ExpiresAt = c.SentAt.Add(retention)
		}
		if !c.ExpiresAt.After(now) {
			continue
		}
		copies = append(copies, &c)
	}
	if len(copies) > 0 {
		if err := s.store.PutMessages(ctx, dst, copies); err != nil {
			return AsError(err)
		}
		s.reconcile.touch(dst)
		entries := make([]Entry, len(copies))
		for i, c := range copies {
			entries[i] = Entry{ID: c.ID, Group: indexGroup(dst, c), VisibleAt: now,
				ReceiveCount: c.State.ReceiveCount, FirstReceiveAt: c.State.FirstReceiveAt}
		}
		if err := s.index.Add(ctx, s.indexQueue(ctx, dst), entries); err != nil {
			if merr := s.indexWriteFailed(ctx, dst); merr != nil {
				return AsError(merr)
			}
		}
		s.notifier.Notify(ctx, dst.ID)
	}
	return s.deleteMessages(ctx, src, ids)
}
