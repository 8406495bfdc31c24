package sqs

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
)

// receiveDegraded receives straight from the Store while the Index is
// unavailable: it reads at most DegradedScanLimit stored messages, picks
// those whose stored State says they are visible, and claims them by saving
// their new States. Nodes doing this at once may hand out the same message
// twice (SQS's at-least-once allows it); nothing is lost, and the Index is
// rebuilt from these States once it is back.
//
// Standard queues start at a random shard, so that concurrent receivers
// spread out. FIFO queues are read oldest first across shards and honour
// groups as far as the stored States tell: a group is skipped from its
// first message that is not visible (in flight or delayed).
func (s *Service) receiveDegraded(ctx context.Context, q *Queue, maxN int, now, until time.Time) ([]*Message, time.Time, error) {
	var picked []*Message
	var next time.Time
	consider := func(m *Message) bool { // reports whether m was taken
		if m.State.VisibleAt.After(now) {
			if next.IsZero() || m.State.VisibleAt.Before(next) {
				next = m.State.VisibleAt
			}
			return false
		}
		picked = append(picked, m)
		return true
	}
	var err error
	if q.Attributes.FifoQueue {
		err = s.scanFIFO(ctx, q, maxN, consider)
	} else {
		err = s.scanStandard(ctx, q, func(m *Message) { consider(m) }, func() bool { return len(picked) >= maxN })
	}
	if err != nil {
		return nil, time.Time{}, AsError(err)
	}
	if len(picked) == 0 {
		return nil, next, nil
	}
	for _, m := range picked {
		m.State.ID = m.ID
		m.State.ReceiveCount++
		if m.State.FirstReceiveAt.IsZero() {
			m.State.FirstReceiveAt = now
		}
		m.State.VisibleAt = until
	}
	return s.deliver(ctx, q, picked, now), time.Time{}, nil
}

// scanStandard feeds stored messages to visit shard by shard, starting at a
// random shard, until full reports true or DegradedScanLimit messages were
// read.
func (s *Service) scanStandard(ctx context.Context, q *Queue, visit func(*Message), full func() bool) error {
	shards := max(1, q.Shards)
	start := rand.IntN(shards)
	budget := s.cfg.DegradedScanLimit
	for i := 0; i < shards && budget > 0; i++ {
		shard := (start + i) % shards
		after := uuid.Nil
		for budget > 0 {
			want := min(scanPage, budget)
			page, err := s.store.ScanMessages(ctx, q, shard, after, want)
			if err != nil {
				return err
			}
			budget -= len(page)
			for _, m := range page {
				visit(m)
				if full() {
					return nil
				}
			}
			if len(page) < want {
				break // end of this shard
			}
			after = page[len(page)-1].ID
		}
	}
	return nil
}

// scanFIFO takes, from the oldest stored messages, each group's visible
// messages up to its first invisible one, until maxN are taken or
// DegradedScanLimit messages were read.
func (s *Service) scanFIFO(ctx context.Context, q *Queue, maxN int, consider func(*Message) bool) error {
	blocked := map[string]bool{}
	taken := 0
	sc := newQueueScanner(s.store, q)
	for i := 0; i < s.cfg.DegradedScanLimit && taken < maxN; i++ {
		m, err := sc.next(ctx)
		if err != nil {
			return err
		}
		if m == nil {
			return nil
		}
		if blocked[m.MessageGroupID] {
			continue
		}
		if consider(m) {
			taken++
		} else {
			blocked[m.MessageGroupID] = true
		}
	}
	return nil
}
