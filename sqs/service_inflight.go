package sqs

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
)

// The in-flight limit: as on AWS, ReceiveMessage answers OverLimit while a
// queue has MaxInflightStandard (MaxInflightFIFO) messages received and
// neither deleted nor visible again. Counting them on every receive would
// cost an Index call per receive, so each node reads a queue's count at
// most once per InflightCheckInterval and adds what it hands out meanwhile:
// the limit is approximate, like AWS's own counters, and errs towards
// letting receives through (a failed count never refuses one).

// inflightReadings holds the last in-flight count read per queue.
type inflightReadings struct {
	mu sync.Mutex
	m  map[uuid.UUID]inflightReading
}

type inflightReading struct {
	n  int64
	at time.Time
}

// maxInflightReadings bounds the map; older readings are dropped past it.
const maxInflightReadings = 4096

// get returns q's reading if it was taken after since.
func (r *inflightReadings) get(q uuid.UUID, since time.Time) (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rd, ok := r.m[q]
	if !ok || rd.at.Before(since) {
		return 0, false
	}
	return rd.n, true
}

// set records n messages in flight in q at now.
func (r *inflightReadings) set(q uuid.UUID, n int64, now time.Time, stale time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[uuid.UUID]inflightReading{}
	}
	if len(r.m) >= maxInflightReadings {
		for id, rd := range r.m {
			if rd.at.Before(stale) {
				delete(r.m, id)
			}
		}
	}
	r.m[q] = inflightReading{n: n, at: now}
}

// add counts n more messages handed out from q since its reading.
func (r *inflightReadings) add(q uuid.UUID, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rd, ok := r.m[q]; ok {
		rd.n += int64(n)
		r.m[q] = rd
	}
}

// inflightLimit is q's limit of messages in flight; <= 0 means none.
func (s *Service) inflightLimit(q *Queue) int {
	if q.Attributes.FifoQueue {
		return s.lim.MaxInflightFIFO
	}
	return s.lim.MaxInflightStandard
}

// checkInflight refuses a receive from q with OverLimit while q is at its
// in-flight limit.
func (s *Service) checkInflight(ctx context.Context, q *Queue) error {
	limit := s.inflightLimit(q)
	if limit <= 0 {
		return nil
	}
	now := s.now()
	since := now.Add(-s.cfg.InflightCheckInterval)
	n, ok := s.inflight.get(q.ID, since)
	if !ok {
		counts, err := s.counts(ctx, q)
		if err != nil {
			return nil // the receive itself will report what is wrong
		}
		n = counts.InFlight
		s.inflight.set(q.ID, n, now, since)
	}
	if n >= int64(limit) {
		return NewError(CodeOverLimit, "The queue %s has %d messages in flight, the most allowed (%d); delete messages or let their visibility timeouts end.", q.Name, n, limit)
	}
	return nil
}
