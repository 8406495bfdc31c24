package sqsmem

import (
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// Where an entry or a group is kept.
const (
	inNone    uint8 = iota // in no heap: a receivable entry of a FIFO queue
	inReady                // receivable at the settled time
	inWaiting              // not receivable before a later time
)

// entry is one tracked message. Times are Unix nanoseconds (0 for a zero
// time.Time), which makes entries small and comparisons cheap.
type entry struct {
	id             uuid.UUID
	seq            uint64 // add order within the queue
	visibleAt      int64
	firstReceiveAt int64
	receiveCount   int32
	inFlight       bool // made invisible by a receive; in flight while visibleAt is ahead
	where          uint8
	index          int32 // position in its heap

	// FIFO only: the group and the neighbours in it, in send order.
	group      *group
	prev, next *entry
}

// inFlightAt reports whether e is in flight at now.
func (e *entry) inFlightAt(now int64) bool { return e.inFlight && e.visibleAt > now }

// byVisibleAt orders entries by visibleAt, then add order.
type byVisibleAt struct{}

func (byVisibleAt) less(a, b *entry) bool {
	if a.visibleAt != b.visibleAt {
		return a.visibleAt < b.visibleAt
	}
	return a.seq < b.seq
}
func (byVisibleAt) setIndex(e *entry, i int) { e.index = int32(i) }

// byReturnedFirst orders the receivable entries of a standard queue: those
// that came back (received before, their visibility timeout over) first,
// as AWS hands out a message whose timeout expired before newer ones; then
// by visibleAt and add order.
type byReturnedFirst struct{}

func (byReturnedFirst) less(a, b *entry) bool {
	if ra, rb := a.receiveCount > 0, b.receiveCount > 0; ra != rb {
		return ra
	}
	return byVisibleAt{}.less(a, b)
}
func (byReturnedFirst) setIndex(e *entry, i int) { e.index = int32(i) }

// queueState is the Index's state of one queue. All fields but the LRU
// links (guarded by the shard's lock) are guarded by mu.
type queueState struct {
	mu      sync.Mutex
	id      uuid.UUID
	built   bool // complete: every stored message was added since the last Drop
	evicted bool // removed from the Index; whoever still holds it looks again

	entries map[uuid.UUID]*entry
	nextSeq uint64

	// settled is the latest time the state was brought up to: every entry
	// visible by then is out of waiting (in ready on standard queues).
	settled  int64
	ready    heap[*entry, byReturnedFirst] // standard queues: receivable entries
	waiting  heap[*entry, byVisibleAt]     // entries visible only after settled
	inFlight int                           // entries in waiting that are in flight

	fifo *fifoState // nil on standard queues

	leaseToken uint64
	leaseUntil int64  // wall clock
	progress   string // a rebuild's saved position (RebuildLease.Add)

	// epoch is the index epoch (sqs.IndexQueue.Epoch) the state was built
	// or is being rebuilt under, when epochSet (MarkBuilt, Commit, a
	// rebuild's Add); see check.
	epoch    uint64
	epochSet bool

	// LRU links and last use (wall clock), guarded by the shard's lock.
	lruPrev, lruNext *queueState
	lastUsed         int64
}

func newQueueState(q sqs.IndexQueue) *queueState {
	qs := &queueState{id: q.ID}
	if q.FIFO {
		qs.fifo = &fifoState{}
	}
	return qs
}

// empty reports whether the state tracks nothing that a rebuild could not
// restore cheaply.
func (qs *queueState) empty() bool { return len(qs.entries) == 0 }

// leased reports whether a rebuild lease is held at wall-clock time now.
func (qs *queueState) leased(now int64) bool { return qs.leaseToken != 0 && now < qs.leaseUntil }

// place puts e, whose visibleAt is set, where it belongs.
func (qs *queueState) place(e *entry) {
	switch {
	case e.visibleAt > qs.settled:
		e.where = inWaiting
		qs.waiting.push(e)
		if e.inFlight {
			qs.inFlight++
		}
	case qs.fifo == nil:
		e.where = inReady
		qs.ready.push(e)
	default:
		e.where = inNone
	}
}

// unplace takes e out of its heap.
func (qs *queueState) unplace(e *entry) {
	switch e.where {
	case inWaiting:
		qs.waiting.remove(int(e.index))
		if e.inFlight {
			qs.inFlight--
		}
	case inReady:
		qs.ready.remove(int(e.index))
	}
	e.where = inNone
}

// settle brings the state up to now: entries and groups whose time has come
// become receivable. A now earlier than the settled time changes nothing;
// Receive and Counts then check times themselves.
func (qs *queueState) settle(now int64) {
	if now <= qs.settled {
		return
	}
	qs.settled = now
	for qs.waiting.len() > 0 && qs.waiting.top().visibleAt <= now {
		e := qs.waiting.pop()
		if e.inFlight {
			qs.inFlight--
		}
		e.where = inNone
		if qs.fifo == nil {
			e.where = inReady
			qs.ready.push(e)
		}
	}
	if qs.fifo != nil {
		qs.fifo.settle(now)
	}
}

// add tracks new entries, leaving tracked ones as they are.
func (qs *queueState) add(entries []sqs.Entry) {
	if qs.entries == nil {
		qs.entries = make(map[uuid.UUID]*entry, len(entries))
	}
	for i := range entries {
		in := &entries[i]
		if _, ok := qs.entries[in.ID]; ok {
			continue
		}
		e := &entry{
			id:             in.ID,
			seq:            qs.nextSeq,
			visibleAt:      nanos(in.VisibleAt),
			firstReceiveAt: nanos(in.FirstReceiveAt),
			receiveCount:   int32(in.ReceiveCount),
			inFlight:       in.InFlight,
			index:          -1,
		}
		qs.nextSeq++
		qs.entries[in.ID] = e
		qs.place(e)
		if qs.fifo != nil {
			qs.fifo.add(e, in.Group, qs.settled)
		}
	}
}

// remove forgets entries; unknown ids are ignored.
func (qs *queueState) remove(ids []uuid.UUID) {
	for _, id := range ids {
		e, ok := qs.entries[id]
		if !ok {
			continue
		}
		qs.unplace(e)
		delete(qs.entries, id)
		if qs.fifo != nil {
			qs.fifo.remove(e, qs.settled)
		}
	}
	if len(qs.entries) == 0 {
		// Maps never shrink; an emptied queue gives its memory back.
		qs.entries = nil
	}
}

// claim counts a receive of e at now, invisible until until, and puts it
// back in place. e must be out of every heap.
func (qs *queueState) claim(e *entry, now, until int64) sqs.Claim {
	e.visibleAt = until
	e.inFlight = true
	e.receiveCount++
	if e.firstReceiveAt == 0 {
		e.firstReceiveAt = now
	}
	c := sqs.Claim{ID: e.id, ReceiveCount: int(e.receiveCount), FirstReceiveAt: fromNanos(e.firstReceiveAt)}
	if e.group != nil {
		c.Group = e.group.name
	}
	return c
}

// receive hands out up to r.Max receivable messages.
func (qs *queueState) receive(r sqs.ReceiveRequest) sqs.ReceiveResult {
	now, until := nanos(r.Now), nanos(r.Until)
	qs.settle(now)
	if qs.fifo != nil {
		return qs.fifo.receive(qs, now, until, r.Max)
	}
	var res sqs.ReceiveResult
	var claimed []*entry
	for len(claimed) < r.Max && qs.ready.len() > 0 && qs.ready.top().visibleAt <= now {
		e := qs.ready.pop()
		e.where = inNone
		claimed = append(claimed, e)
	}
	// The next visible time is that of the messages left, so it is taken
	// before the claimed ones go back.
	var next nextTime
	if qs.ready.len() > 0 {
		next.offer(qs.ready.top().visibleAt)
	}
	if qs.waiting.len() > 0 {
		next.offer(qs.waiting.top().visibleAt)
	}
	res.NextVisibleAt = next.result(now)
	res.Claims = make([]sqs.Claim, len(claimed))
	for i, e := range claimed {
		res.Claims[i] = qs.claim(e, now, until)
		qs.place(e)
	}
	return res
}

// setVisibleAt moves the end of an in-flight message's invisibility, if
// receiveCount (when not 0) names its current receive.
func (qs *queueState) setVisibleAt(id uuid.UUID, receiveCount int, now, visibleAt int64) error {
	e, ok := qs.entries[id]
	if !ok || !e.inFlightAt(now) {
		return sqs.ErrNotInFlight
	}
	if receiveCount > 0 && int(e.receiveCount) != receiveCount {
		return sqs.ErrStaleReceipt
	}
	qs.unplace(e)
	e.visibleAt = visibleAt
	qs.place(e)
	if qs.fifo != nil {
		qs.fifo.regroup(e.group, qs.settled)
	}
	return nil
}

// hide makes a received message invisible until visibleAt, whatever its
// receive count and whether or not its visibility timeout ended.
func (qs *queueState) hide(id uuid.UUID, visibleAt int64) (sqs.Claim, error) {
	e, ok := qs.entries[id]
	if !ok || e.receiveCount == 0 {
		return sqs.Claim{}, sqs.ErrNotInFlight
	}
	qs.unplace(e)
	e.visibleAt, e.inFlight = visibleAt, true
	qs.place(e)
	c := sqs.Claim{ID: e.id, ReceiveCount: int(e.receiveCount), FirstReceiveAt: fromNanos(e.firstReceiveAt)}
	if qs.fifo != nil {
		c.Group = e.group.name
		qs.fifo.regroup(e.group, qs.settled)
	}
	return c, nil
}

// counts returns the approximate counts at now.
func (qs *queueState) counts(now int64) sqs.Counts {
	if now < qs.settled {
		// Asked about an earlier time than already settled (callers'
		// clocks differ slightly): count exactly, the slow way.
		var c sqs.Counts
		for _, e := range qs.entries {
			switch {
			case e.visibleAt <= now:
				c.Visible++
			case e.inFlight:
				c.InFlight++
			default:
				c.Delayed++
			}
		}
		return c
	}
	qs.settle(now)
	waiting := int64(qs.waiting.len())
	return sqs.Counts{
		Visible:  int64(len(qs.entries)) - waiting,
		InFlight: int64(qs.inFlight),
		Delayed:  waiting - int64(qs.inFlight),
	}
}

// check tells whether the state may serve a caller of index epoch
// epoch, as redisindex does (sqs.IndexQueue): a state of an older epoch is
// dropped, with its lease, and ErrNotBuilt returned; one of a newer epoch
// answers ErrStaleEpoch.
func (qs *queueState) check(epoch uint64) error {
	switch {
	case qs.epochSet && qs.epoch < epoch:
		qs.drop()
		qs.leaseToken, qs.leaseUntil = 0, 0
		return sqs.ErrNotBuilt
	case qs.epochSet && qs.epoch > epoch:
		return sqs.ErrStaleEpoch
	case !qs.built:
		return sqs.ErrNotBuilt
	}
	return nil
}

// setEpoch records the epoch the state is written under.
func (qs *queueState) setEpoch(epoch uint64) { qs.epoch, qs.epochSet = epoch, true }

// drop forgets every entry; the lease stays with whoever holds it.
func (qs *queueState) drop() {
	qs.built, qs.progress = false, ""
	qs.epoch, qs.epochSet = 0, false
	qs.entries = nil
	qs.ready = heap[*entry, byReturnedFirst]{}
	qs.waiting = heap[*entry, byVisibleAt]{}
	qs.inFlight = 0
	if qs.fifo != nil {
		qs.fifo = &fifoState{}
	}
}

// nanos converts t to Unix nanoseconds, 0 for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromNanos converts back, UTC.
func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// nextTime finds the earliest of the times offered to it.
type nextTime struct {
	at  int64
	set bool
}

func (n *nextTime) offer(at int64) {
	if !n.set || at < n.at {
		n.at, n.set = at, true
	}
}

// result turns the earliest visible time of what a receive left into
// ReceiveResult.NextVisibleAt: zero for none, now if something receivable
// was left (Max was reached).
func (n *nextTime) result(now int64) time.Time {
	if !n.set {
		return time.Time{}
	}
	return fromNanos(max(n.at, now))
}
