package sqs

import (
	"context"
	"errors"
	"time"
)

// rebuildBatch is how many entries one Index.Add of a rebuild carries.
const rebuildBatch = 500

// rebuild restores a queue's Index state from the Store: every stored
// message with its persisted State (receive count, first receive, when
// visible; in flight if received and not yet visible again) and, on FIFO
// queues, the deduplication records still inside the window. One node at
// a time rebuilds a queue (LockRebuild); a caller that finds the lease
// taken waits RebuildRetry and returns, to look again.
//
// The invariant that keeps every durable message visible: a queue is
// marked built only by the Commit of a lease that was held, unbroken, from
// before the scan began until after its last Add; the scan begins at the
// start, or where an earlier rebuild of the same Index state saved its
// position together with the entries before it (RebuildLease.Add), which
// anything that forgets those entries forgets too. Anything that could
// make the rebuild partial (the lease running out and another node taking
// over, a Drop, Redis losing its data) ends the lease, so Commit fails
// with ErrLeaseLost and the rebuild is discarded (its adds are harmless:
// Add never undoes state, and the next rebuild adds the rest). Any error
// of the Index or the Store during the rebuild returns before Commit.
func (s *Service) rebuild(ctx context.Context, q *Queue) (err error) {
	iq := s.indexQueue(ctx, q)
	lease, ok, err := s.index.LockRebuild(ctx, iq, s.cfg.RebuildLease)
	if err != nil {
		return err
	}
	if !ok {
		s.sleep(ctx, s.cfg.RebuildRetry)
		return nil
	}
	defer lease.Release()
	// Whoever held the lease before us may have finished the job.
	if _, err := s.index.Counts(ctx, iq, s.now()); !errors.Is(err, ErrNotBuilt) {
		return err
	}
	start := time.Now()
	defer s.reconcile.touch(q)
	defer func() {
		s.stats.RebuildNanos.Add(int64(time.Since(start)))
		switch {
		case err == nil:
			s.stats.RebuildsCommitted.Add(1)
		case errors.Is(err, ErrLeaseLost):
			s.stats.RebuildsLost.Add(1)
		default:
			s.stats.RebuildsFailed.Add(1)
		}
	}()
	now := s.now()
	window := s.deduplicationWindow()
	// Resume where an earlier rebuild of this same Index state stopped (a
	// Store failure, a node killed, a lease that ran out): what it added
	// is still there, or the position would be gone with it.
	from, err := lease.Progress(ctx)
	if err != nil {
		return err
	}
	if from != "" {
		s.stats.RebuildsResumed.Add(1)
	}
	sc := newQueueScannerFrom(s.store, q, from)
	batch := make([]Entry, 0, rebuildBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		// The batch holds every message the scanner returned since the
		// last flush, so its position covers exactly what is added.
		if err := lease.Add(ctx, batch, sc.position()); err != nil {
			return err
		}
		batch = batch[:0]
		// A large queue takes longer than one lease: renew it as we go
		// (and stop at once if it was lost).
		return lease.Renew(ctx)
	}
	for {
		m, err := sc.next(ctx)
		if err != nil {
			return err
		}
		if m == nil {
			break
		}
		batch = append(batch, storedEntry(q, m, now))
		if q.Attributes.FifoQueue && m.MessageDeduplicationID != "" {
			if age := now.Sub(m.SentAt); age < window {
				if _, _, err := s.index.Deduplicate(ctx, iq, dedupKey(q, m), m.ID, window-age); err != nil {
					return err
				}
			}
		}
		if len(batch) == rebuildBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return lease.Commit(ctx)
}

// rebuildDetached runs rebuild for a request, detached from the request's
// own end: a rebuild of a large queue may outlast a client's timeout, and
// one abandoned half-way by every impatient client would never finish.
// It still ends when the Service closes.
func (s *Service) rebuildDetached(ctx context.Context, q *Queue) error {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(s.bg, cancel)
	defer stop()
	return s.rebuild(rctx, q)
}

// storedEntry is the Index entry of a stored message.
func storedEntry(q *Queue, m *Message, now time.Time) Entry {
	visibleAt := m.State.VisibleAt
	if visibleAt.IsZero() {
		visibleAt = m.SentAt
	}
	return Entry{
		ID:             m.ID,
		Group:          indexGroup(q, m),
		VisibleAt:      visibleAt,
		ReceiveCount:   m.State.ReceiveCount,
		FirstReceiveAt: m.State.FirstReceiveAt,
		InFlight:       m.State.ReceiveCount > 0 && visibleAt.After(now),
	}
}

// counts returns the queue's ApproximateNumberOf* counters from the Index,
// rebuilding it if needed, or from the Store while the Index is
// unavailable.
func (s *Service) counts(ctx context.Context, q *Queue) (Counts, error) {
	var n Counts
	err := s.withBuiltIndex(ctx, q, func() error {
		var err error
		n, err = s.index.Counts(ctx, s.indexQueue(ctx, q), s.now())
		return err
	})
	switch {
	case err == nil:
		return n, nil
	case isUnavailable(err):
		return s.storeCounts(ctx, q)
	}
	return Counts{}, AsError(err)
}

// storeCounts estimates the counters from the stored states, reading at
// most DegradedScanLimit messages (the counters are approximate anyway).
func (s *Service) storeCounts(ctx context.Context, q *Queue) (Counts, error) {
	now := s.now()
	var n Counts
	sc := newQueueScanner(s.store, q)
	for i := 0; i < s.cfg.DegradedScanLimit; i++ {
		m, err := sc.next(ctx)
		if err != nil {
			return Counts{}, AsError(err)
		}
		if m == nil {
			break
		}
		switch {
		case !m.State.VisibleAt.After(now):
			n.Visible++
		case m.State.ReceiveCount > 0:
			n.InFlight++
		default:
			n.Delayed++
		}
	}
	return n, nil
}
