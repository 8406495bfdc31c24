package sqs

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
)

// Per-queue readings for /metrics. The Service remembers the queues this
// node has served since it started (every action naming a queue resolves
// it through Service.queue) with counters of the messages sent to,
// received from, deleted from and dead-lettered into each. QueueMetrics
// reads the counts of a bounded number of them on each scrape, so that
// neither the label cardinality nor the scrape's cost grows with the
// number of queues.

// queueActivities are the queues this node has served.
type queueActivities struct {
	m   sync.Map     // uuid.UUID -> *queueActivity
	seq atomic.Int64 // numbers the readings, to find those read longest ago
}

// queueActivity is what this node knows of one queue.
type queueActivity struct {
	q                                     atomic.Pointer[Queue]
	sent, received, deleted, deadLettered atomic.Int64

	mu       sync.Mutex
	counts   Counts
	oldest   time.Time // SentAt of the oldest stored message; zero when none
	readAt   time.Time // when counts were last read; zero if never
	readSeq  int64     // s.activity.seq at that reading; 0 if never
	selected bool      // exported by the last QueueMetrics
}

// track returns q's activity record, making it on first use.
func (s *Service) track(q *Queue) *queueActivity {
	if v, ok := s.activity.m.Load(q.ID); ok {
		a := v.(*queueActivity)
		if a.q.Load() != q {
			a.q.Store(q)
		}
		return a
	}
	a := &queueActivity{}
	a.q.Store(q)
	v, _ := s.activity.m.LoadOrStore(q.ID, a)
	return v.(*queueActivity)
}

// untrack forgets a deleted queue.
func (s *Service) untrack(id uuid.UUID) { s.activity.m.Delete(id) }

func (s *Service) countSent(q *Queue, n int) {
	s.stats.MessagesSent.Add(int64(n))
	s.track(q).sent.Add(int64(n))
}

func (s *Service) countReceived(q *Queue, n int) {
	s.stats.MessagesReceived.Add(int64(n))
	s.track(q).received.Add(int64(n))
}

func (s *Service) countDeleted(q *Queue, n int) {
	s.stats.MessagesDeleted.Add(int64(n))
	s.track(q).deleted.Add(int64(n))
}

func (s *Service) countDeadLettered(dlq *Queue, n int) {
	s.stats.MessagesDeadLettered.Add(int64(n))
	s.track(dlq).deadLettered.Add(int64(n))
}

// QueueMetric is one queue's reading for /metrics.
type QueueMetric struct {
	Account string
	Region  string // the region's name, the home region's too
	Name    string
	Counts
	// OldestAge is the age of the oldest message stored in the queue
	// (visible, in flight or delayed), from its SentTimestamp; 0 when the
	// queue is empty.
	OldestAge time.Duration
	// Messages this node counted since it started.
	Sent, Received, Deleted, DeadLettered int64
}

// QueueMetrics returns the readings of at most limit queues among those
// this node has served since it started: all of them while they are at
// most limit, else the limit deepest (visible + in flight + delayed) by
// their latest counts. To keep the cost bounded, one call reads the counts
// of the queues it returned last time plus up to limit others, those read
// longest ago first, so every queue is read again now and then and a queue
// that grows enters the selection within a few calls. Reading a queue's
// counts costs one Index call and, for a queue that is not empty, one
// Store read per shard (the first message of each). Queues whose counts
// cannot be read now (the Index or Store unavailable) keep their last
// reading. limit <= 0 returns nil.
func (s *Service) QueueMetrics(ctx context.Context, limit int) []QueueMetric {
	if limit <= 0 {
		return nil
	}
	// The queues shown last time, and the limit read longest ago among the
	// others (all of them while they are few).
	var refresh []*queueActivity
	others := newTopK(limit, func(a, b *queueActivity) bool { return readSeq(a) < readSeq(b) })
	s.activity.m.Range(func(_, v any) bool {
		a := v.(*queueActivity)
		a.mu.Lock()
		sel := a.selected
		a.mu.Unlock()
		if sel {
			refresh = append(refresh, a)
		} else {
			others.offer(a)
		}
		return true
	})
	refresh = append(refresh, others.sorted()...)
	now := s.now()
	for _, a := range refresh {
		s.readQueue(ctx, a, now)
	}

	type reading struct {
		a     *queueActivity
		depth int64
	}
	deeper := func(x, y reading) bool {
		if x.depth != y.depth {
			return x.depth > y.depth
		}
		qi, qj := x.a.q.Load(), y.a.q.Load()
		if qi.Account != qj.Account {
			return qi.Account < qj.Account
		}
		return qi.Name < qj.Name
	}
	deepest := newTopK(limit, deeper)
	s.activity.m.Range(func(_, v any) bool {
		a := v.(*queueActivity)
		a.mu.Lock()
		read, depth := !a.readAt.IsZero(), a.counts.Visible+a.counts.InFlight+a.counts.Delayed
		a.selected = false
		a.mu.Unlock()
		if read {
			deepest.offer(reading{a, depth})
		}
		return true
	})
	rs := deepest.sorted()
	out := make([]QueueMetric, 0, len(rs))
	for _, r := range rs {
		a := r.a
		q := a.q.Load()
		a.mu.Lock()
		a.selected = true
		m := QueueMetric{Account: q.Account, Region: s.regionName(q.Region), Name: q.Name, Counts: a.counts}
		if !a.oldest.IsZero() {
			m.OldestAge = max(0, now.Sub(a.oldest))
		}
		a.mu.Unlock()
		m.Sent, m.Received, m.Deleted, m.DeadLettered = a.sent.Load(), a.received.Load(), a.deleted.Load(), a.deadLettered.Load()
		out = append(out, m)
	}
	return out
}

func readSeq(a *queueActivity) int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.readSeq
}

// readQueue refreshes a's counts and oldest message. A queue deleted
// meanwhile (here or on another node) is forgotten.
func (s *Service) readQueue(ctx context.Context, a *queueActivity, now time.Time) {
	known := a.q.Load()
	q, err := s.queue(ctx, known.Account, known.Region, known.Name)
	if err != nil || q.ID != known.ID {
		if err == nil || herald.ErrorCode(err) == herald.ENotFound || isQueueMissing(err) {
			s.untrack(known.ID)
		}
		return
	}
	var n Counts
	err = s.withBuiltIndex(ctx, q, func() error {
		var err error
		n, err = s.index.Counts(ctx, s.indexQueue(ctx, q), now)
		return err
	})
	if err != nil {
		return
	}
	var oldest time.Time
	if n.Visible+n.InFlight+n.Delayed > 0 {
		if oldest, err = s.oldestSentAt(ctx, q); err != nil {
			return
		}
	}
	a.mu.Lock()
	a.counts, a.oldest, a.readAt, a.readSeq = n, oldest, now, s.activity.seq.Add(1)
	a.mu.Unlock()
}

// oldestSentAt is the SentAt of q's oldest stored message (visible, in
// flight or delayed), zero when it has none: one Store read per shard (the
// first message of each).
func (s *Service) oldestSentAt(ctx context.Context, q *Queue) (time.Time, error) {
	var oldest time.Time
	for shard := 0; shard < max(1, q.Shards); shard++ {
		ms, err := s.store.ScanMessages(ctx, q, shard, uuid.Nil, 1)
		if err != nil {
			return time.Time{}, err
		}
		if len(ms) > 0 && (oldest.IsZero() || ms[0].SentAt.Before(oldest)) {
			oldest = ms[0].SentAt
		}
	}
	return oldest, nil
}

// isQueueMissing reports whether err is SQS's QueueDoesNotExist.
func isQueueMissing(err error) bool {
	se, ok := err.(*Error)
	return ok && se.Code == ErrQueueDoesNotExist().Code
}

// TrackedQueues is how many queues this node has served since it started
// (and not seen deleted): those QueueMetrics chooses from.
func (s *Service) TrackedQueues() int {
	n := 0
	s.activity.m.Range(func(_, _ any) bool { n++; return true })
	return n
}
