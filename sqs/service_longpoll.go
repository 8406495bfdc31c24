package sqs

import (
	"context"
	"time"
)

// receiveWaiting receives, and when nothing is receivable and wait > 0,
// sleeps until the Notifier reports a send, a delayed or in-flight message
// becomes visible (ReceiveResult.NextVisibleAt), or the wait ends, then
// tries again. It never polls faster than that; LongPollRecheck only
// bounds a sleep in case a notification was lost.
//
// Waits use wall-clock timers; the Service clock only dates messages.
func (s *Service) receiveWaiting(ctx context.Context, q *Queue, maxN int, vis, wait time.Duration) ([]*Message, error) {
	if wait <= 0 {
		msgs, _, err := s.receiveOnce(ctx, q, maxN, vis)
		return msgs, err
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		// Subscribe before looking, so a send between the look and the
		// sleep still wakes us.
		woken, cancel := s.notifier.Wait(q.ID)
		msgs, next, err := s.receiveOnce(ctx, q, maxN, vis)
		if err != nil || len(msgs) > 0 {
			cancel()
			return msgs, err
		}
		nap := s.cfg.LongPollRecheck
		if !next.IsZero() {
			nap = min(nap, max(next.Sub(s.now()), time.Millisecond))
		}
		t := time.NewTimer(nap)
		ended := false
		select {
		case <-woken:
		case <-t.C:
		case <-deadline.C:
			ended = true
		case <-ctx.Done():
			ended = true
		case <-s.bg.Done():
			ended = true
		}
		t.Stop()
		cancel()
		if ended {
			return nil, nil
		}
	}
}
