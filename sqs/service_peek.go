package sqs

import (
	"cmp"
	"context"
	"slices"
)

// MaxPeekMessages is the most messages one PeekMessages returns.
const MaxPeekMessages = 100

// PeekMessagesInput names a queue and how many of its messages to show.
type PeekMessagesInput struct {
	QueueURL string
	Limit    int // 1 to MaxPeekMessages; 0: 10
}

// PeekMessages returns up to in.Limit of the queue's stored, unexpired
// messages, oldest first, each with its delivery state as last saved, without
// receiving them: it reads the Store only, so no receive count, visibility
// or Index state changes. It is Herald's own (an operator's look at a
// queue, from the CLI and the console), authorized as GetQueueAttributes.
func (s *Service) PeekMessages(ctx context.Context, c Caller, in PeekMessagesInput) ([]*Message, error) {
	limit := in.Limit
	if limit == 0 {
		limit = 10
	}
	if limit < 1 || limit > MaxPeekMessages {
		return nil, ErrInvalidParameterValue("Limit must be between 1 and %d, not %d", MaxPeekMessages, limit)
	}
	q, err := s.queueFor(ctx, c, ActGetQueueAttributes, in.QueueURL)
	if err != nil {
		return nil, err
	}
	// Each shard is oldest first: its first limit messages hold the
	// queue's oldest limit.
	var out []*Message
	for shard := range max(1, q.Shards) {
		msgs, err := s.store.ScanMessages(ctx, q, shard, [16]byte{}, limit)
		if err != nil {
			return nil, AsError(err)
		}
		out = append(out, msgs...)
	}
	slices.SortStableFunc(out, func(a, b *Message) int { return cmp.Compare(a.ID.Time(), b.ID.Time()) })
	return out[:min(len(out), limit)], nil
}
