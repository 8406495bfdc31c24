package sqs

import (
	"context"
	"slices"
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

// queueActivities are the queues this node has served: a map for the
// counters on every call, and a ring that QueueMetrics reads a few of at
// a time, so that a scrape costs the same among a million queues.
type queueActivities struct {
	m sync.Map // uuid.UUID -> *queueActivity

	mu    sync.Mutex
	ring  []*queueActivity // every tracked queue; untrack moves the last into the gap
	next  int              // where the next QueueMetrics goes on reading the ring
	shown []*queueActivity // exported by the last QueueMetrics
}

// queueActivity is what this node knows of one queue.
type queueActivity struct {
	q                                     atomic.Pointer[Queue]
	sent, received, deleted, deadLettered atomic.Int64
	pos                                   int         // in the ring (activities.mu); -1 once untracked
	gone                                  atomic.Bool // untracked

	mu     sync.Mutex
	counts Counts
	oldest time.Time // SentAt of the oldest stored message; zero when none
	readAt time.Time // when counts were last read; zero if never
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
	v, loaded := s.activity.m.LoadOrStore(q.ID, a)
	if !loaded {
		s.activity.mu.Lock()
		a.pos = len(s.activity.ring)
		s.activity.ring = append(s.activity.ring, a)
		s.activity.mu.Unlock()
	}
	return v.(*queueActivity)
}

// untrack forgets a deleted queue.
func (s *Service) untrack(id uuid.UUID) {
	v, ok := s.activity.m.LoadAndDelete(id)
	if !ok {
		return
	}
	a := v.(*queueActivity)
	a.gone.Store(true)
	acts := &s.activity
	acts.mu.Lock()
	defer acts.mu.Unlock()
	if a.pos < 0 || a.pos >= len(acts.ring) || acts.ring[a.pos] != a {
		return
	}
	last := len(acts.ring) - 1
	acts.ring[a.pos] = acts.ring[last]
	acts.ring[a.pos].pos = a.pos
	acts.ring[last] = nil
	acts.ring = acts.ring[:last]
	a.pos = -1
	if acts.next > len(acts.ring) {
		acts.next = 0
	}
}

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
	// The queues shown last time, and the next limit others of the ring
	// (all of them while they are few): every queue is read again within
	// tracked/limit calls, and one that grew enters the selection then.
	acts := &s.activity
	acts.mu.Lock()
	refresh := slices.DeleteFunc(slices.Clone(acts.shown), func(a *queueActivity) bool { return a.pos < 0 })
	taken := 0
	for range len(acts.ring) {
		if taken == limit {
			break
		}
		if acts.next >= len(acts.ring) {
			acts.next = 0
		}
		a := acts.ring[acts.next]
		acts.next++
		if !slices.Contains(acts.shown, a) {
			refresh = append(refresh, a)
			taken++
		}
	}
	acts.mu.Unlock()
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
	for _, a := range refresh {
		a.mu.Lock()
		read, depth := !a.readAt.IsZero(), a.counts.Visible+a.counts.InFlight+a.counts.Delayed
		a.mu.Unlock()
		if read && !a.gone.Load() {
			deepest.offer(reading{a, depth})
		}
	}
	rs := deepest.sorted()
	out := make([]QueueMetric, 0, len(rs))
	shown := make([]*queueActivity, 0, len(rs))
	for _, r := range rs {
		a := r.a
		shown = append(shown, a)
		q := a.q.Load()
		a.mu.Lock()
		m := QueueMetric{Account: q.Account, Region: s.regionName(q.Region), Name: q.Name, Counts: a.counts}
		if !a.oldest.IsZero() {
			m.OldestAge = max(0, now.Sub(a.oldest))
		}
		a.mu.Unlock()
		m.Sent, m.Received, m.Deleted, m.DeadLettered = a.sent.Load(), a.received.Load(), a.deleted.Load(), a.deadLettered.Load()
		out = append(out, m)
	}
	acts.mu.Lock()
	acts.shown = shown
	acts.mu.Unlock()
	return out
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
	a.counts, a.oldest, a.readAt = n, oldest, now
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
	s.activity.mu.Lock()
	defer s.activity.mu.Unlock()
	return len(s.activity.ring)
}
