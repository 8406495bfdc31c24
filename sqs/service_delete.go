package sqs

import (
	"context"
	"errors"

	"github.com/google/uuid"
)

// DeleteMessage deletes the message a receipt handle names. As on AWS, a
// stale handle (the message was received again since) still deletes it.
func (s *Service) DeleteMessage(ctx context.Context, c Caller, in DeleteMessageInput) error {
	q, err := s.queueFor(ctx, c, ActDeleteMessage, in.QueueURL)
	if err != nil {
		return err
	}
	r, err := s.parseReceiptHandle(q, in.ReceiptHandle)
	if err != nil {
		return err
	}
	if q.Attributes.FifoQueue {
		expired, err := s.expiredReceipts(ctx, q, []receipt{r})
		if err != nil {
			return err
		}
		if expired[r.messageID] {
			return errReceiptExpired(in.ReceiptHandle)
		}
	}
	if err := s.deleteMessages(ctx, q, []uuid.UUID{r.messageID}); err != nil {
		return err
	}
	s.countDeleted(q, 1)
	return nil
}

// errReceiptExpired is AWS's answer to a FIFO delete through the handle of
// a receive whose visibility timeout is over.
func errReceiptExpired(handle string) error {
	return invalidParameter("ReceiptHandle", handle, "The receipt handle has expired.")
}

// expiredReceipts reports which of rs, receipts of FIFO queue q, name a
// receive that is over: the message was received again since, or its
// visibility timeout ended. AWS refuses to delete a FIFO message through
// such a handle. The stored states tell; one that lags the handle (its
// save is late or failed) proves nothing, so that receipt is not called
// expired. Messages already gone are not expired either: deleting them
// again succeeds, as on AWS.
func (s *Service) expiredReceipts(ctx context.Context, q *Queue, rs []receipt) (map[uuid.UUID]bool, error) {
	ids := make([]uuid.UUID, len(rs))
	byID := make(map[uuid.UUID]receipt, len(rs))
	for i, r := range rs {
		ids[i] = r.messageID
		byID[r.messageID] = r
	}
	stored, err := s.store.GetMessages(ctx, q, ids)
	if err != nil {
		return nil, AsError(err)
	}
	now := s.now()
	expired := map[uuid.UUID]bool{}
	for _, m := range stored {
		r, st := byID[m.ID], m.State
		if st.ReceiveCount > r.receiveCount || (st.ReceiveCount == r.receiveCount && !st.VisibleAt.After(now)) {
			expired[m.ID] = true
		}
	}
	return expired, nil
}

// deleteMessages removes messages from the Store, then from the Index. A
// failed Index removal is harmless: a later claim of the message finds it
// gone from the Store and removes it then.
//
// On a FIFO queue a delete may unblock a message group (the deleted
// message headed it), so it wakes the queue's long polls, which would
// otherwise sleep until the block's end.
func (s *Service) deleteMessages(ctx context.Context, q *Queue, ids []uuid.UUID) error {
	if err := s.store.DeleteMessages(ctx, q, ids); err != nil {
		return AsError(err)
	}
	if s.index.Remove(ctx, s.indexQueue(ctx, q), ids) == nil && q.Attributes.FifoQueue {
		s.notifier.Notify(ctx, q.ID)
	}
	return nil
}

// DeleteMessageBatch deletes up to MaxBatchEntries messages in one Store
// write; an invalid handle fails its entry alone.
func (s *Service) DeleteMessageBatch(ctx context.Context, c Caller, in DeleteMessageBatchInput) (BatchIDsOutput, error) {
	q, err := s.queueFor(ctx, c, ActDeleteMessage, in.QueueURL)
	if err != nil {
		return BatchIDsOutput{}, err
	}
	if err := s.validateHandleBatch(in.Entries); err != nil {
		return BatchIDsOutput{}, err
	}
	var out BatchIDsOutput
	var ids []uuid.UUID
	var okIDs []string
	var parsed []receipt
	var entries []BatchHandleEntry
	for _, e := range in.Entries {
		r, err := s.parseReceiptHandle(q, e.ReceiptHandle)
		if err != nil {
			out.Failed = append(out.Failed, batchError(e.ID, err))
			continue
		}
		parsed, entries = append(parsed, r), append(entries, e)
	}
	var expired map[uuid.UUID]bool
	if q.Attributes.FifoQueue && len(parsed) > 0 {
		if expired, err = s.expiredReceipts(ctx, q, parsed); err != nil {
			return BatchIDsOutput{}, err
		}
	}
	for i, r := range parsed {
		if expired[r.messageID] {
			out.Failed = append(out.Failed, batchError(entries[i].ID, errReceiptExpired(entries[i].ReceiptHandle)))
			continue
		}
		ids = append(ids, r.messageID)
		okIDs = append(okIDs, entries[i].ID)
	}
	if len(ids) > 0 {
		if err := s.deleteMessages(ctx, q, ids); err != nil {
			return BatchIDsOutput{}, err
		}
		s.countDeleted(q, len(ids))
	}
	out.Successful = okIDs
	return out, nil
}

func (s *Service) validateHandleBatch(entries []BatchHandleEntry) error {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	return ValidateBatchEntryIDs(ids, s.lim)
}

// ChangeMessageVisibility sets when an in-flight message becomes visible
// again: VisibilityTimeout seconds from now.
func (s *Service) ChangeMessageVisibility(ctx context.Context, c Caller, in ChangeMessageVisibilityInput) error {
	q, err := s.queueFor(ctx, c, ActChangeMessageVisibility, in.QueueURL)
	if err != nil {
		return err
	}
	return s.changeVisibility(ctx, q, in.ReceiptHandle, in.VisibilityTimeout)
}

// ChangeMessageVisibilityBatch changes the visibility of up to
// MaxBatchEntries messages, each entry failing alone.
func (s *Service) ChangeMessageVisibilityBatch(ctx context.Context, c Caller, in ChangeMessageVisibilityBatchInput) (BatchIDsOutput, error) {
	q, err := s.queueFor(ctx, c, ActChangeMessageVisibility, in.QueueURL)
	if err != nil {
		return BatchIDsOutput{}, err
	}
	if err := s.validateHandleBatch(in.Entries); err != nil {
		return BatchIDsOutput{}, err
	}
	var out BatchIDsOutput
	for _, e := range in.Entries {
		if err := s.changeVisibility(ctx, q, e.ReceiptHandle, e.VisibilityTimeout); err != nil {
			if se := AsError(err); !se.Sender {
				// The service failed, not the entry: let the client retry
				// the request.
				return BatchIDsOutput{}, se
			}
			out.Failed = append(out.Failed, batchError(e.ID, err))
			continue
		}
		out.Successful = append(out.Successful, e.ID)
	}
	return out, nil
}

func (s *Service) changeVisibility(ctx context.Context, q *Queue, handle string, timeout *int) error {
	r, err := s.parseReceiptHandle(q, handle)
	if err != nil {
		return err
	}
	if timeout == nil {
		return ErrMissingParameter("VisibilityTimeout")
	}
	if *timeout < 0 || *timeout > s.lim.MaxVisibilityTimeout {
		return invalidParameter("VisibilityTimeout", itoa(*timeout), "VisibilityTimeout must be an integer between 0 and "+itoa(s.lim.MaxVisibilityTimeout)+".")
	}
	now := s.now()
	visibleAt := now.Add(seconds(*timeout))
	// AWS counts the limit from the receive, not from this call: a consumer
	// cannot keep a message hidden beyond it by extending again and again.
	if limit := r.receivedAt.Add(seconds(s.lim.MaxVisibilityTimeout)); !r.receivedAt.IsZero() && visibleAt.After(limit) {
		return invalidParameter("VisibilityTimeout", itoa(*timeout), "Total VisibilityTimeout for the message is beyond the limit ["+itoa(s.lim.MaxVisibilityTimeout)+" seconds]")
	}
	state := State{ID: r.messageID, ReceiveCount: r.receiveCount, FirstReceiveAt: r.firstReceiveAt, VisibleAt: visibleAt}
	err = s.index.SetVisibleAt(ctx, s.indexQueue(ctx, q), r.messageID, r.receiveCount, now, visibleAt)
	if (errors.Is(err, ErrNotInFlight) || errors.Is(err, ErrStaleReceipt)) && !q.Attributes.FifoQueue {
		// As on AWS, a standard queue accepts the change through a handle
		// whose timeout ended or of an earlier receive: it applies to the
		// message's current receive, hidden again if it was back.
		var c Claim
		if c, err = s.index.Hide(ctx, s.indexQueue(ctx, q), r.messageID, now, visibleAt); err == nil {
			state.ReceiveCount, state.FirstReceiveAt = c.ReceiveCount, c.FirstReceiveAt
		}
	}
	switch {
	case errors.Is(err, ErrNotInFlight):
		return s.notInFlight(ctx, q, r.messageID, handle)
	case errors.Is(err, ErrStaleReceipt):
		// A FIFO handle of an earlier receive: refused, and its State (an
		// older receive count) is not saved.
		return errNotChangeable(handle)
	case err != nil && !isUnavailable(err):
		return AsError(err)
	}
	// With the Index down (degraded mode) the stored state is all there
	// is; otherwise it keeps the change across a loss of the Index.
	if serr := s.store.SaveStates(ctx, q, []State{state}); serr != nil && err != nil {
		return AsError(serr)
	}
	if *timeout == 0 {
		s.notifier.Notify(ctx, q.ID)
	}
	return nil
}

// notInFlight answers a visibility change of a message the Index does not
// hold in flight, as AWS does: a message that is gone (deleted, expired,
// moved) is InvalidParameterValue, one that is waiting in the queue
// (its visibility timeout over) is MessageNotInflight. Telling them apart
// costs a Store read, paid only on this error path.
//
// A handle of an earlier receive of a message in flight under a later one
// does not get here: the Index refuses it (ErrStaleReceipt) and the Service
// answers errNotChangeable, as AWS does.
func (s *Service) notInFlight(ctx context.Context, q *Queue, id uuid.UUID, handle string) error {
	stored, err := s.store.GetMessages(ctx, q, []uuid.UUID{id})
	if err != nil {
		return AsError(err)
	}
	if len(stored) == 0 {
		return errNotChangeable(handle)
	}
	return NewError(CodeMessageNotInflight, "The specified message isn't in flight.")
}

// errNotChangeable is AWS's answer to a visibility change through a handle
// that cannot change visibility: its message is gone, or the handle names
// an earlier receive.
func errNotChangeable(handle string) error {
	return invalidParameter("ReceiptHandle", handle, "Message does not exist or is not available for visibility timeout change.")
}
