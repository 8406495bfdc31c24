package sqs

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
)

// ReceiveMessage hands out up to MaxNumberOfMessages messages, waiting up
// to WaitTimeSeconds (default: the queue's ReceiveMessageWaitTimeSeconds)
// for one to arrive. On FIFO queues, a receive retried with the same
// ReceiveRequestAttemptId gets the same messages again (service_attempts.go).
func (s *Service) ReceiveMessage(ctx context.Context, c Caller, in ReceiveMessageInput) (ReceiveMessageOutput, error) {
	q, err := s.queueFor(ctx, c, ActReceiveMessage, in.QueueURL)
	if err != nil {
		return ReceiveMessageOutput{}, err
	}
	maxN := 1
	if in.MaxNumberOfMessages != nil {
		maxN = *in.MaxNumberOfMessages
		if maxN < 1 || maxN > s.lim.MaxReceiveMessages {
			return ReceiveMessageOutput{}, invalidParameter("MaxNumberOfMessages", itoa(maxN), "Must be between 1 and "+itoa(s.lim.MaxReceiveMessages)+", if provided.")
		}
	}
	vis := q.Attributes.VisibilityTimeout
	if in.VisibilityTimeout != nil {
		vis = *in.VisibilityTimeout
		if vis < 0 || vis > s.lim.MaxVisibilityTimeout {
			return ReceiveMessageOutput{}, invalidParameter("VisibilityTimeout", itoa(vis), "Must be between 0 and "+itoa(s.lim.MaxVisibilityTimeout)+", if provided.")
		}
	}
	wait := q.Attributes.ReceiveMessageWaitTimeSeconds
	if in.WaitTimeSeconds != nil {
		wait = *in.WaitTimeSeconds
		if wait < 0 || wait > s.lim.MaxReceiveMessageWaitTimeSeconds {
			return ReceiveMessageOutput{}, invalidParameter("WaitTimeSeconds", itoa(wait), "Must be >= 0 and <= "+itoa(s.lim.MaxReceiveMessageWaitTimeSeconds)+", if provided.")
		}
	}
	attempt := ""
	if q.Attributes.FifoQueue && in.ReceiveRequestAttemptID != "" {
		attempt = in.ReceiveRequestAttemptID
		if !validFIFOID(attempt, s.lim.MaxDeduplicationIDLen) {
			return ReceiveMessageOutput{}, invalidParameter("ReceiveRequestAttemptId", attempt, "ReceiveRequestAttemptId can only include alphanumeric and punctuation characters. 1 to "+itoa(s.lim.MaxDeduplicationIDLen)+" in length.")
		}
		if out, ok := s.replayAttempt(ctx, q, attempt); ok {
			return out, nil
		}
	}
	if err := s.checkInflight(ctx, q); err != nil {
		return ReceiveMessageOutput{}, err
	}
	sel := newSelection(in)
	msgs, err := s.receiveWaiting(ctx, q, maxN, seconds(vis), seconds(wait))
	if err != nil {
		return ReceiveMessageOutput{}, err
	}
	if vis > 0 {
		s.inflight.add(q.ID, len(msgs))
	}
	s.countReceived(q, len(msgs))
	out := ReceiveMessageOutput{Messages: make([]ReceivedMessage, 0, len(msgs))}
	for _, m := range msgs {
		// The claim set VisibleAt to the receive time plus vis.
		receivedAt := m.State.VisibleAt.Add(-seconds(vis))
		out.Messages = append(out.Messages, sel.render(m, s.receiptHandle(q, m, receivedAt)))
	}
	if attempt != "" {
		s.rememberAttempt(q, attempt, seconds(vis), msgs, out)
	}
	return out, nil
}

// receiveOnce makes one receive attempt without waiting. It returns the
// messages handed out and, when none could be, the earliest time one may
// become visible (zero if unknown).
func (s *Service) receiveOnce(ctx context.Context, q *Queue, maxN int, vis time.Duration) ([]*Message, time.Time, error) {
	now := s.now()
	until := now.Add(vis)
	err := s.dropUnindexed(ctx, q)
	var res ReceiveResult
	if err == nil {
		res, err = s.indexReceive(ctx, q, ReceiveRequest{Now: now, Max: maxN, Until: until})
	}
	if err != nil {
		if isUnavailable(err) && s.servedHere(ctx, q) {
			// Only the data center whose Index serves the queue may serve
			// it from the Store: elsewhere, while its Index is out of
			// reach, it still serves the queue itself.
			s.stats.DegradedReceives.Add(1)
			return s.receiveDegraded(ctx, q, maxN, now, until)
		}
		return nil, time.Time{}, AsError(err)
	}
	if len(res.Claims) == 0 {
		return nil, res.NextVisibleAt, nil
	}
	msgs, err := s.loadClaims(ctx, q, res.Claims, now, until)
	if err != nil {
		return nil, time.Time{}, err
	}
	return s.deliver(ctx, q, msgs, now), time.Time{}, nil
}

// indexReceive asks the Index, rebuilding the queue's state from the Store
// when the Index does not hold it.
func (s *Service) indexReceive(ctx context.Context, q *Queue, r ReceiveRequest) (ReceiveResult, error) {
	var res ReceiveResult
	err := s.withBuiltIndex(ctx, q, func() error {
		var err error
		res, err = s.index.Receive(ctx, s.indexQueue(ctx, q), r)
		return err
	})
	return res, err
}

// loadClaims reads the claimed messages from the Store, without the states
// it replaces (RecordReader), and sets their new states. Claims of
// messages the Store no longer has (deleted, expired, purged, moved) are
// removed from the Index and skipped.
func (s *Service) loadClaims(ctx context.Context, q *Queue, claims []Claim, now, until time.Time) ([]*Message, error) {
	ids := make([]uuid.UUID, len(claims))
	for i, c := range claims {
		ids[i] = c.ID
	}
	stored, err := s.store.GetMessageRecords(ctx, q, ids)
	if err != nil {
		// Hand the claims back so that they are not hidden for a whole
		// visibility timeout.
		for _, c := range claims {
			_ = s.index.SetVisibleAt(ctx, s.indexQueue(ctx, q), c.ID, c.ReceiveCount, now, now)
		}
		return nil, AsError(err)
	}
	byID := make(map[uuid.UUID]*Message, len(stored))
	for _, m := range stored {
		byID[m.ID] = m
	}
	msgs := make([]*Message, 0, len(claims))
	var gone []uuid.UUID
	for _, c := range claims {
		m, ok := byID[c.ID]
		if !ok {
			if s.replicating(c.ID, now) {
				// Sent lately in another data center, it may not have
				// reached this one's replicas yet: handed back, not
				// forgotten.
				_ = s.index.SetVisibleAt(ctx, s.indexQueue(ctx, q), c.ID, c.ReceiveCount, now, now.Add(time.Second))
				continue
			}
			gone = append(gone, c.ID)
			continue
		}
		m.State = State{ID: m.ID, ReceiveCount: c.ReceiveCount, FirstReceiveAt: c.FirstReceiveAt, VisibleAt: until}
		msgs = append(msgs, m)
	}
	if len(gone) > 0 {
		s.stats.ReconciledIndexOnly.Add(int64(len(gone)))
		_ = s.index.Remove(ctx, s.indexQueue(ctx, q), gone)
	}
	return msgs, nil
}

// replicating reports whether a message the Store does not have may still
// be replicating from another data center: with several data centers, one
// sent less than DCConfig.ReplicationGrace ago.
func (s *Service) replicating(id uuid.UUID, now time.Time) bool {
	if !s.multiDC() || id.Version() != 1 {
		return false
	}
	sec, nsec := id.Time().UnixTime()
	return now.Sub(time.Unix(sec, nsec)) < s.cfg.DC.ReplicationGrace
}

// deliver finishes a receive of msgs (states already updated): messages
// past the queue's maxReceiveCount go to its dead-letter queue, the rest
// have their states persisted and are returned.
func (s *Service) deliver(ctx context.Context, q *Queue, msgs []*Message, now time.Time) []*Message {
	deliver, moved := s.redrive(ctx, q, msgs, now)
	states := make([]State, 0, len(msgs))
	for _, m := range msgs {
		if !moved[m.ID] {
			states = append(states, m.State)
		}
	}
	if len(states) > 0 {
		// A lost state costs at most a duplicate delivery after a rebuild
		// (or, in degraded mode, one more delivery now).
		_ = s.store.SaveStates(ctx, q, states)
	}
	return deliver
}

// errRebuildTimeout: another node held the rebuild lease for too long.
var errRebuildTimeout = errors.New("sqs: timed out waiting for a queue index rebuild")

// withBuiltIndex runs op, an Index call that needs the queue's complete
// state; on ErrNotBuilt it rebuilds the state (or waits for whoever is
// rebuilding it) and runs op again.
//
// An Index that finds the queue's state built under a newer index epoch
// (ErrStaleEpoch, from op or from the rebuild) makes this node read its
// epoch again, once, and op (which names the queue with s.indexQueue, so
// under the epoch read) runs again.
func (s *Service) withBuiltIndex(ctx context.Context, q *Queue, op func() error) error {
	deadline := time.Now().Add(s.cfg.RebuildTimeout)
	retried := false
	for {
		err := op()
		if errors.Is(err, ErrStaleEpoch) {
			if err := s.staleEpoch(ctx, q, &retried); err != nil {
				return err
			}
			continue
		}
		if !errors.Is(err, ErrNotBuilt) {
			return err
		}
		if time.Now().After(deadline) {
			return ErrServiceUnavailable(errRebuildTimeout)
		}
		err = s.rebuildDetached(ctx, q)
		if errors.Is(err, ErrStaleEpoch) {
			err = s.staleEpoch(ctx, q, &retried)
		}
		if err != nil && !errors.Is(err, ErrLeaseLost) {
			return err
		}
		if ctx.Err() != nil {
			return ErrServiceUnavailable(ctx.Err())
		}
	}
}
