package sqsmem

import "github.com/heraldmq/herald/sqs"

// group is one message group of a FIFO queue: its entries in send order
// (sqs.SentBefore), linked. As on AWS, only its head blocks it: the group
// is receivable when its first message is visible (sent and not delayed,
// or back from a receive), whatever later messages are in flight.
type group struct {
	name       string
	head, tail *entry
	readyAt    int64 // when the group is receivable: its head's visibleAt
	where      uint8
	index      int32
}

// byHead orders receivable groups: groups whose head was never received
// first, then those whose head came back (as AWS serves fresh groups
// before returning ones), each by its oldest message.
type byHead struct{}

func (byHead) less(a, b *group) bool {
	if ra, rb := a.head.receiveCount > 0, b.head.receiveCount > 0; ra != rb {
		return rb
	}
	return a.head.seq < b.head.seq
}
func (byHead) setIndex(g *group, i int)    { g.index = int32(i) }
func (byReadyAt) setIndex(g *group, i int) { g.index = int32(i) }

// byReadyAt orders blocked groups by when they become receivable.
type byReadyAt struct{}

func (byReadyAt) less(a, b *group) bool {
	if a.readyAt != b.readyAt {
		return a.readyAt < b.readyAt
	}
	return a.head.seq < b.head.seq
}

// fifoState is the group structure of a FIFO queue. Entries are also in
// the queue's waiting heap while not visible, for the counts; the order
// of receives is kept here.
type fifoState struct {
	groups  map[string]*group
	ready   heap[*group, byHead]    // receivable at the settled time
	waiting heap[*group, byReadyAt] // receivable only later
}

// add puts e in its group, after the entries sent before it.
func (f *fifoState) add(e *entry, name string, settled int64) {
	g := f.groups[name]
	if g == nil {
		if f.groups == nil {
			f.groups = make(map[string]*group)
		}
		g = &group{name: name, index: -1}
		f.groups[name] = g
	}
	e.group = g
	// Walk back from the tail to the last entry sent before e: a new send
	// goes last at once; a rebuild's backlog passes only the newer sends.
	after := g.tail
	for after != nil && sqs.SentBefore(e.id, after.id) {
		after = after.prev
	}
	if after == nil {
		e.next = g.head
		if g.head != nil {
			g.head.prev = e
		} else {
			g.tail = e
		}
		g.head = e
	} else {
		e.prev, e.next = after, after.next
		if after.next != nil {
			after.next.prev = e
		} else {
			g.tail = e
		}
		after.next = e
	}
	if g.head == e {
		f.regroup(g, settled)
	}
}

// remove unlinks e from its group.
func (f *fifoState) remove(e *entry, settled int64) {
	g := e.group
	wasHead := g.head == e
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		g.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		g.tail = e.prev
	}
	e.prev, e.next = nil, nil
	if wasHead {
		f.regroup(g, settled)
	}
}

// regroup recomputes when g is receivable and moves it to the right heap,
// or forgets it once empty.
func (f *fifoState) regroup(g *group, settled int64) {
	switch g.where {
	case inReady:
		f.ready.remove(int(g.index))
	case inWaiting:
		f.waiting.remove(int(g.index))
	}
	g.where = inNone
	if g.head == nil {
		delete(f.groups, g.name)
		return
	}
	g.readyAt = g.head.visibleAt
	if g.readyAt <= settled {
		g.where = inReady
		f.ready.push(g)
	} else {
		g.where = inWaiting
		f.waiting.push(g)
	}
}

// settle makes the groups whose time has come receivable.
func (f *fifoState) settle(now int64) {
	for f.waiting.len() > 0 && f.waiting.top().readyAt <= now {
		g := f.waiting.pop()
		g.where = inReady
		f.ready.push(g)
	}
}

// receive takes receivable groups (byHead) and from each the consecutive
// visible messages from its head, up to max in all, stopping at a message
// still in flight; every group taken is then blocked by its head, in
// flight until its visibility timeout ends.
func (f *fifoState) receive(qs *queueState, now, until int64, max int) sqs.ReceiveResult {
	var aside, taken []*group
	var claimed []*entry
	for len(claimed) < max && f.ready.len() > 0 {
		g := f.ready.pop()
		g.where = inNone
		if g.readyAt > now {
			// Receivable at the settled time, not at this earlier now.
			aside = append(aside, g)
			continue
		}
		for e := g.head; e != nil && len(claimed) < max && e.visibleAt <= now; e = e.next {
			qs.unplace(e)
			claimed = append(claimed, e)
		}
		taken = append(taken, g)
	}
	var next nextTime
	if f.ready.len() > 0 {
		next.offer(now)
	}
	if f.waiting.len() > 0 {
		next.offer(f.waiting.top().readyAt)
	}
	for _, g := range aside {
		next.offer(g.readyAt)
	}
	res := sqs.ReceiveResult{NextVisibleAt: next.result(now), Claims: make([]sqs.Claim, len(claimed))}
	for i, e := range claimed {
		res.Claims[i] = qs.claim(e, now, until)
		qs.place(e)
	}
	for _, g := range taken {
		f.regroup(g, qs.settled)
	}
	for _, g := range aside {
		f.regroup(g, qs.settled)
	}
	return res
}
