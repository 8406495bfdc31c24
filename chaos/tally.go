package chaos

import (
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// phase is the part of a scenario's run a delivery happens in.
type phase int32

const (
	phaseLoad    phase = iota // producers and faults running
	phaseDrain                // producers stopped: waiting for every acknowledged message
	phaseRecheck              // after a restart of Herald (on an empty Redis): what arrives now was stranded
)

// key names one message for one subscriber: a fan-out owes each
// subscriber its own delivery, and each (message, subscriber) pair is
// counted as one message.
type key struct {
	id  uuid.UUID
	sub uint8
}

// entry is what the tally knows of one key.
type entry struct {
	acked      bool
	late       bool // first delivered in phaseRecheck
	deliveries uint32
}

const tallyShards = 64

type tallyShard struct {
	mu sync.Mutex
	m  map[key]entry
}

// window counts deliveries and duplicates within one stretch of a run:
// the steady state, the windows of one fault kind, or the drain.
type window struct {
	name                   string
	deliveries, duplicates atomic.Int64
}

// probe measures the recovery after one fault: the first acknowledged
// operation and the first delivery that started at or after since.
type probe struct {
	since                   int64 // Unix nanoseconds
	ackAt, recvAt, healthAt atomic.Int64
}

// recovery returns the time from since to the first acknowledged
// operation, to the first delivery and to the first healthy /healthz;
// -1 when none happened.
func (p *probe) recovery() (ack, recv, health time.Duration) {
	since := func(at int64) time.Duration {
		if at == 0 {
			return -1
		}
		return time.Duration(at - p.since)
	}
	return since(p.ackAt.Load()), since(p.recvAt.Load()), since(p.healthAt.Load())
}

func (p *probe) recovered() bool { return p.ackAt.Load() != 0 && p.recvAt.Load() != 0 }

// tally accounts for every message of one scenario: sent, acknowledged,
// delivered (how often, in which window), corrupt. It is safe for
// concurrent use.
type tally struct {
	subs   int
	shards [tallyShards]tallyShard

	sent, acked    atomic.Int64 // keys
	ackedDelivered atomic.Int64 // acknowledged keys delivered at least once
	deliveries     atomic.Int64
	duplicates     atomic.Int64
	corrupt        atomic.Int64

	phase   atomic.Int32
	current atomic.Pointer[window]
	steady  *window
	probe   atomic.Pointer[probe]

	mu            sync.Mutex
	windows       map[string]*window
	corruptSample []string

	// ackLog is every id in the order its send was first acknowledged,
	// and ackDone the length of its prefix known delivered: readers that
	// poll for missing messages (cache, AMQP) ask for the oldest first,
	// the order Herald takes them in.
	ackMu   sync.Mutex
	ackLog  []uuid.UUID
	ackDone int
	scanAt  int // where nextMissing goes on
}

// newTally returns a tally whose messages each owe subs deliveries.
func newTally(subs int) *tally {
	t := &tally{subs: max(subs, 1), windows: map[string]*window{}}
	for i := range t.shards {
		t.shards[i].m = map[key]entry{}
	}
	t.steady = t.window("steady")
	t.current.Store(t.steady)
	return t
}

func (t *tally) shard(id uuid.UUID) *tallyShard {
	return &t.shards[(int(id[2])<<8|int(id[3]))%tallyShards]
}

// window returns the named window, created on first use.
func (t *tally) window(name string) *window {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.windows[name]
	if w == nil {
		w = &window{name: name}
		t.windows[name] = w
	}
	return w
}

// enter makes the named window current ("" is the steady state).
func (t *tally) enter(name string) {
	if name == "" {
		t.current.Store(t.steady)
		return
	}
	t.current.Store(t.window(name))
}

// setPhase moves the run to p; the drain and recheck have windows of
// their own.
func (t *tally) setPhase(p phase) {
	t.phase.Store(int32(p))
	switch p {
	case phaseDrain:
		t.enter("drain")
	case phaseRecheck:
		t.enter("recheck")
	}
}

// arm starts measuring the recovery after a fault that ended at since.
func (t *tally) arm(since time.Time) *probe {
	p := &probe{since: since.UnixNano()}
	t.probe.Store(p)
	return p
}

// sentMsg records that id is about to be sent: it must be recorded before
// the message can possibly be delivered.
func (t *tally) sentMsg(id uuid.UUID) {
	s := t.shard(id)
	s.mu.Lock()
	for sub := range t.subs {
		s.m[key{id, uint8(sub)}] = entry{}
	}
	s.mu.Unlock()
	t.sent.Add(int64(t.subs))
}

// ack records that the server acknowledged id, in an operation that
// started at started.
func (t *tally) ack(id uuid.UUID, started time.Time) {
	s := t.shard(id)
	var acked, delivered int64
	s.mu.Lock()
	for sub := range t.subs {
		k := key{id, uint8(sub)}
		e, ok := s.m[k]
		if !ok || e.acked {
			continue
		}
		e.acked = true
		s.m[k] = e
		acked++
		if e.deliveries > 0 {
			delivered++
		}
	}
	s.mu.Unlock()
	if acked > 0 {
		t.ackMu.Lock()
		t.ackLog = append(t.ackLog, id)
		t.ackMu.Unlock()
	}
	t.acked.Add(acked)
	t.ackedDelivered.Add(delivered)
	if p := t.probe.Load(); p != nil && started.UnixNano() >= p.since {
		p.ackAt.CompareAndSwap(0, time.Now().UnixNano())
	}
}

// isAcked reports whether the server acknowledged the send of id.
func (t *tally) isAcked(id uuid.UUID) bool {
	s := t.shard(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key{id, 0}].acked
}

// deliver records a delivery of id to subscriber sub, by an operation that
// started at started. It reports whether it was the first delivery of that
// key; a delivery of an id the drill never sent counts as corrupt.
func (t *tally) deliver(id uuid.UUID, sub int, started time.Time) bool {
	k := key{id, uint8(sub)}
	s := t.shard(id)
	s.mu.Lock()
	e, ok := s.m[k]
	if !ok {
		s.mu.Unlock()
		t.corruptBody("a delivery of message " + id.String() + " that was never sent")
		return false
	}
	e.deliveries++
	first := e.deliveries == 1
	if first && phase(t.phase.Load()) == phaseRecheck {
		e.late = true
	}
	s.m[k] = e
	s.mu.Unlock()
	w := t.current.Load()
	w.deliveries.Add(1)
	t.deliveries.Add(1)
	if first {
		if e.acked {
			t.ackedDelivered.Add(1)
		}
	} else {
		w.duplicates.Add(1)
		t.duplicates.Add(1)
	}
	if p := t.probe.Load(); p != nil && started.UnixNano() >= p.since {
		p.recvAt.CompareAndSwap(0, time.Now().UnixNano())
	}
	return first
}

// corruptBody counts a delivery whose body failed its check.
func (t *tally) corruptBody(why string) {
	t.corrupt.Add(1)
	t.mu.Lock()
	if len(t.corruptSample) < 5 {
		t.corruptSample = append(t.corruptSample, why)
	}
	t.mu.Unlock()
}

// delivered reports whether the key (id, sub) was delivered.
func (t *tally) delivered(id uuid.UUID, sub int) bool {
	s := t.shard(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key{id, uint8(sub)}].deliveries > 0
}

// missing is the number of acknowledged keys not delivered yet.
func (t *tally) missing() int64 { return t.acked.Load() - t.ackedDelivered.Load() }

// missingIDs returns up to limit ids (0: all) with an acknowledged key
// not delivered yet.
func (t *tally) missingIDs(limit int) []uuid.UUID {
	var out []uuid.UUID
	for i := range t.shards {
		s := &t.shards[i]
		s.mu.Lock()
		for k, e := range s.m {
			if e.acked && e.deliveries == 0 && k.sub == 0 {
				out = append(out, k.id)
				if limit > 0 && len(out) >= limit {
					s.mu.Unlock()
					return out
				}
			}
		}
		s.mu.Unlock()
	}
	return out
}

// nextMissing returns up to limit ids acknowledged but not delivered (to
// subscriber 0), in the order they were acknowledged, going on from where
// the previous call stopped and wrapping around: the oldest first, yet a
// few that stay missing (Herald has not reached them) cannot hold back
// the others. The delivered prefix of the log is skipped for good.
func (t *tally) nextMissing(limit int) []uuid.UUID {
	t.ackMu.Lock()
	defer t.ackMu.Unlock()
	for t.ackDone < len(t.ackLog) && t.delivered(t.ackLog[t.ackDone], 0) {
		t.ackDone++
	}
	if t.scanAt < t.ackDone || t.scanAt >= len(t.ackLog) {
		t.scanAt = t.ackDone
	}
	var out []uuid.UUID
	for seen := 0; seen < len(t.ackLog)-t.ackDone && len(out) < limit; seen++ {
		id := t.ackLog[t.scanAt]
		if t.scanAt++; t.scanAt >= len(t.ackLog) {
			t.scanAt = t.ackDone
		}
		if !t.delivered(id, 0) {
			out = append(out, id)
		}
	}
	return out
}

// counts is the outcome of a scenario, in keys.
type counts struct {
	Sent            int64    `json:"sent"`
	Acknowledged    int64    `json:"acknowledged"`
	Received        int64    `json:"received"`               // keys delivered at least once, acknowledged or not
	ReceivedUnacked int64    `json:"received_unacked"`       // of those, keys whose send was never acknowledged (a timeout, a kill)
	Lost            int64    `json:"lost"`                   // acknowledged, never delivered
	Stranded        int64    `json:"stranded"`               // acknowledged, delivered only after the recheck restart
	Duplicates      int64    `json:"duplicates"`             // deliveries beyond the first of each key
	Corrupt         int64    `json:"corrupt"`                // deliveries failing their checksum, or of unknown ids
	Unsettled       int64    `json:"unsettled,omitempty"`    // acknowledged, not delivered when the drill was interrupted (the drain never ran)
	LostIDs         []string `json:"lost_ids,omitempty"`     // a sample
	StrandedIDs     []string `json:"stranded_ids,omitempty"` // a sample
	CorruptSample   []string `json:"corrupt_sample,omitempty"`
}

const idSample = 10

// classify counts every key: lost vs stranded by when (whether) it
// arrived.
func (t *tally) classify() counts {
	c := counts{Sent: t.sent.Load(), Acknowledged: t.acked.Load(), Duplicates: t.duplicates.Load(), Corrupt: t.corrupt.Load()}
	for i := range t.shards {
		s := &t.shards[i]
		s.mu.Lock()
		for k, e := range s.m {
			switch {
			case e.deliveries > 0:
				c.Received++
				if !e.acked {
					c.ReceivedUnacked++
				} else if e.late {
					c.Stranded++
					c.StrandedIDs = appendSample(c.StrandedIDs, k)
				}
			case e.acked:
				c.Lost++
				c.LostIDs = appendSample(c.LostIDs, k)
			}
		}
		s.mu.Unlock()
	}
	sort.Strings(c.LostIDs)
	sort.Strings(c.StrandedIDs)
	t.mu.Lock()
	c.CorruptSample = append([]string(nil), t.corruptSample...)
	t.mu.Unlock()
	return c
}

func appendSample(ids []string, k key) []string {
	if len(ids) >= idSample {
		return ids
	}
	s := k.id.String()
	if k.sub > 0 {
		s += "/sub" + strconv.Itoa(int(k.sub))
	}
	return append(ids, s)
}

// windowStats returns every window's deliveries and duplicates, by name.
func (t *tally) windowStats() map[string]dupStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]dupStats{}
	for name, w := range t.windows {
		out[name] = dupStats{Deliveries: w.deliveries.Load(), Duplicates: w.duplicates.Load()}
	}
	return out
}
