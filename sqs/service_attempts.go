package sqs

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Receive attempts (FIFO queues, as on AWS): a ReceiveMessage retried with
// the same ReceiveRequestAttemptId within AttemptWindow gets the same
// messages with the same receipt handles, their visibility timeout
// starting again, as long as every one of them is still in flight under
// that receive (not deleted, not made visible, not received again);
// otherwise the retry receives anew. A client whose response was lost so
// gets its messages back at once instead of after their visibility
// timeout, when its FIFO groups would stay blocked.
//
// Each node remembers the attempts it answered (at most maxAttempts), so a
// retry that reaches another node receives anew, as before this existed.

// AttemptWindow is how long a receive attempt can be retried.
const AttemptWindow = 5 * time.Minute

// maxAttempts bounds the attempts a node remembers.
const maxAttempts = 10000

type attemptKey struct {
	queue uuid.UUID
	id    string
}

// receiveAttempt is an answered receive: its output, and the receive each
// message was handed out under.
type receiveAttempt struct {
	at     time.Time
	vis    time.Duration
	out    ReceiveMessageOutput
	claims []attemptClaim
}

type attemptClaim struct {
	id    uuid.UUID
	count int
	first time.Time // first receive
}

type receiveAttempts struct {
	mu sync.Mutex
	m  map[attemptKey]*receiveAttempt
}

func (r *receiveAttempts) get(k attemptKey, since time.Time) *receiveAttempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.m[k]
	if a == nil || a.at.Before(since) {
		return nil
	}
	return a
}

func (r *receiveAttempts) put(k attemptKey, a *receiveAttempt, since time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[attemptKey]*receiveAttempt{}
	}
	if len(r.m) >= maxAttempts {
		for key, old := range r.m {
			if old.at.Before(since) || len(r.m) >= maxAttempts {
				delete(r.m, key)
			}
		}
	}
	r.m[k] = a
}

// replayAttempt answers a retried receive attempt of q with its first
// answer, restarting the messages' visibility timeout; ok is false when
// there is no such attempt or one of its messages has moved on.
func (s *Service) replayAttempt(ctx context.Context, q *Queue, id string) (out ReceiveMessageOutput, ok bool) {
	now := s.now()
	a := s.attempts.get(attemptKey{q.ID, id}, now.Add(-AttemptWindow))
	if a == nil {
		return ReceiveMessageOutput{}, false
	}
	states := make([]State, len(a.claims))
	for i, c := range a.claims {
		if err := s.index.SetVisibleAt(ctx, s.indexQueue(ctx, q), c.id, c.count, now, now.Add(a.vis)); err != nil {
			return ReceiveMessageOutput{}, false
		}
		states[i] = State{ID: c.id, ReceiveCount: c.count, FirstReceiveAt: c.first, VisibleAt: now.Add(a.vis)}
	}
	// The stored states keep the restarted timeout across a loss of the
	// Index, and tell a delete through these handles that they are live.
	_ = s.store.SaveStates(ctx, q, states)
	return a.out, true
}

// rememberAttempt records the answer to receive attempt id of q.
func (s *Service) rememberAttempt(q *Queue, id string, vis time.Duration, msgs []*Message, out ReceiveMessageOutput) {
	if len(msgs) == 0 || vis <= 0 {
		return
	}
	now := s.now()
	a := &receiveAttempt{at: now, vis: vis, out: out, claims: make([]attemptClaim, len(msgs))}
	for i, m := range msgs {
		a.claims[i] = attemptClaim{m.ID, m.State.ReceiveCount, m.State.FirstReceiveAt}
	}
	s.attempts.put(attemptKey{q.ID, id}, a, now.Add(-AttemptWindow))
}
