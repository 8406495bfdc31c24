package sqs

import (
	"context"
	"sync"

	"github.com/google/uuid"
)

// unindexedQueues are the queues whose Index writes failed on this node
// since their Index state was last dropped: queue ID -> a mark (a new
// pointer per failure, so that a drop racing a newer failure cannot
// clear it).
type unindexedQueues struct{ sync.Map }

// indexWriteFailed records that q's Index state lacks messages the Store
// holds (an Add failed after the Store took them, or a Drop failed): in
// the Store (MarkUnindexed), for drainUnindexed on whichever node runs it
// next, and in this node's memory, so that this node drops q's Index state
// before it next receives from it (dropUnindexed).
func (s *Service) indexWriteFailed(ctx context.Context, q *Queue) error {
	s.unindexed.Store(q.ID, new(byte))
	return s.store.MarkUnindexed(ctx, q.ID)
}

// dropUnindexed drops q's Index state if an Index write of q failed on
// this node since the last drop, so that the receive that follows rebuilds
// it from the Store. Receiving from an Index that lacks some messages would
// hand out later messages of a FIFO group before them (seen in the fault
// drill: a Redis outage of 5 s reordered thousands of first deliveries in
// the second before the drain), and leave them waiting for the next
// drain. An error means the Index is still unreachable.
//
// Other nodes learn of the failure from the Store: drainUnindexed drops
// the queue within Config.UnindexedInterval. A node whose link to Redis
// alone is cut can therefore still see, on the other nodes, later messages
// of a group handed out before those it sent during the cut, for at most
// that interval after its link is back.
func (s *Service) dropUnindexed(ctx context.Context, q *Queue) error {
	mark, ok := s.unindexed.Load(q.ID)
	if !ok {
		return nil
	}
	if err := s.index.Drop(ctx, s.indexQueue(ctx, q)); err != nil {
		return err
	}
	s.unindexed.CompareAndDelete(q.ID, mark)
	return nil
}

// unindexedBatch is how many queue IDs one drain round takes.
const unindexedBatch = 100

// drainUnindexed drops the Index state of queues whose Index writes
// failed, so that their next receive rebuilds it from the Store. A queue
// whose Drop fails is marked again for the next round.
func (s *Service) drainUnindexed(ctx context.Context) {
	for {
		ids, err := s.store.TakeUnindexed(ctx, unindexedBatch)
		if err != nil || len(ids) == 0 {
			return
		}
		for i, id := range ids {
			mark, marked := s.unindexed.Load(id)
			// Drop needs only the ID: the FIFO flag does not change how a
			// queue's state is forgotten. With several data centers the
			// mark does not say whose Index missed the write: every one
			// drops the queue.
			iq := IndexQueue{ID: id}
			if s.multiDC() {
				iq.DC = AllDCs
			}
			if err := s.index.Drop(ctx, iq); err != nil {
				s.remark(ctx, ids[i:])
				return
			}
			if marked {
				s.unindexed.CompareAndDelete(id, mark)
			}
		}
		if len(ids) < unindexedBatch {
			return
		}
	}
}

// remark marks queues unindexed again after a failed drop.
func (s *Service) remark(ctx context.Context, ids []uuid.UUID) {
	for _, id := range ids {
		_ = s.store.MarkUnindexed(ctx, id)
	}
}
