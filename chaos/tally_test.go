package chaos

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
)

// event is one step of a tally test: send, acknowledge or deliver message
// msg (an index) to subscriber sub, or enter a phase or window.
type event struct {
	op     string // "send", "ack", "deliver", "phase", "window"
	msg    int
	sub    int
	phase  phase
	window string
}

func send(m int) event           { return event{op: "send", msg: m} }
func ack(m int) event            { return event{op: "ack", msg: m} }
func deliver(m, sub int) event   { return event{op: "deliver", msg: m, sub: sub} }
func toPhase(p phase) event      { return event{op: "phase", phase: p} }
func inWindow(name string) event { return event{op: "window", window: name} }
func sendAck(m int) []event      { return []event{send(m), ack(m)} }
func seq(evs ...[]event) []event {
	var out []event
	for _, e := range evs {
		out = append(out, e...)
	}
	return out
}

// play runs events on a fresh tally of subs subscribers.
func play(t *testing.T, subs int, events []event) *tally {
	t.Helper()
	tl := newTally(subs)
	ids := map[int]uuid.UUID{}
	id := func(m int) uuid.UUID {
		if _, ok := ids[m]; !ok {
			ids[m] = newID()
		}
		return ids[m]
	}
	now := time.Now()
	for _, e := range events {
		switch e.op {
		case "send":
			tl.sentMsg(id(e.msg))
		case "ack":
			tl.ack(id(e.msg), now)
		case "deliver":
			tl.deliver(id(e.msg), e.sub, now)
		case "phase":
			tl.setPhase(e.phase)
		case "window":
			tl.enter(e.window)
		default:
			t.Fatalf("unknown event %q", e.op)
		}
	}
	return tl
}

func TestTallyClassification(t *testing.T) {
	for _, tc := range []struct {
		name   string
		subs   int
		events []event
		want   counts
	}{
		{
			name:   "delivered",
			events: seq(sendAck(1), []event{deliver(1, 0)}),
			want:   counts{Sent: 1, Acknowledged: 1, Received: 1},
		},
		{
			name:   "delivered before its acknowledgement was seen",
			events: []event{send(1), deliver(1, 0), ack(1)},
			want:   counts{Sent: 1, Acknowledged: 1, Received: 1},
		},
		{
			name:   "acknowledged, never delivered: lost",
			events: seq(sendAck(1), sendAck(2), []event{deliver(2, 0)}),
			want:   counts{Sent: 2, Acknowledged: 2, Received: 1, Lost: 1},
		},
		{
			name:   "delivered only after the recheck restart: stranded",
			events: seq(sendAck(1), sendAck(2), []event{deliver(1, 0), toPhase(phaseDrain), toPhase(phaseRecheck), deliver(2, 0)}),
			want:   counts{Sent: 2, Acknowledged: 2, Received: 2, Stranded: 1},
		},
		{
			name:   "delivered during the drain: neither",
			events: seq(sendAck(1), []event{toPhase(phaseDrain), deliver(1, 0)}),
			want:   counts{Sent: 1, Acknowledged: 1, Received: 1},
		},
		{
			name:   "a duplicate in the recheck does not strand a message delivered before",
			events: seq(sendAck(1), []event{deliver(1, 0), toPhase(phaseRecheck), deliver(1, 0)}),
			want:   counts{Sent: 1, Acknowledged: 1, Received: 1, Duplicates: 1},
		},
		{
			name:   "never acknowledged: owed nothing, received counted apart",
			events: []event{send(1), send(2), deliver(2, 0)},
			want:   counts{Sent: 2, Received: 1, ReceivedUnacked: 1},
		},
		{
			name:   "never acknowledged, delivered late: not stranded",
			events: []event{send(1), toPhase(phaseRecheck), deliver(1, 0)},
			want:   counts{Sent: 1, Received: 1, ReceivedUnacked: 1},
		},
		{
			name:   "duplicates",
			events: seq(sendAck(1), []event{deliver(1, 0), deliver(1, 0), deliver(1, 0)}),
			want:   counts{Sent: 1, Acknowledged: 1, Received: 1, Duplicates: 2},
		},
		{
			name:   "a delivery of an id never sent is corrupt",
			events: []event{deliver(9, 0)},
			want:   counts{Corrupt: 1},
		},
		{
			name:   "fan-out: each subscriber owes its delivery",
			subs:   3,
			events: seq(sendAck(1), []event{deliver(1, 0), deliver(1, 2), toPhase(phaseRecheck), deliver(1, 1)}),
			want:   counts{Sent: 3, Acknowledged: 3, Received: 3, Stranded: 1},
		},
		{
			name:   "fan-out: one subscriber lost",
			subs:   2,
			events: seq(sendAck(1), []event{deliver(1, 1)}),
			want:   counts{Sent: 2, Acknowledged: 2, Received: 1, Lost: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := play(t, max(tc.subs, 1), tc.events)
			got := tl.classify()
			got.LostIDs, got.StrandedIDs, got.CorruptSample = nil, nil, nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("classify() = %+v\nwant        %+v", got, tc.want)
			}
			if wantMissing := tc.want.Lost + tc.want.Stranded; tc.want.Stranded == 0 && tl.missing() != wantMissing {
				t.Errorf("missing() = %d, want %d", tl.missing(), wantMissing)
			}
		})
	}
}

func TestTallySamples(t *testing.T) {
	tl := play(t, 1, seq(sendAck(1), sendAck(2), []event{toPhase(phaseRecheck), deliver(2, 0)}))
	c := tl.classify()
	if len(c.LostIDs) != 1 || len(c.StrandedIDs) != 1 || c.LostIDs[0] == c.StrandedIDs[0] {
		t.Errorf("samples: lost %v, stranded %v; want one id each", c.LostIDs, c.StrandedIDs)
	}
	if ids := tl.missingIDs(0); len(ids) != 1 || ids[0].String() != c.LostIDs[0] {
		t.Errorf("missingIDs = %v, want the lost id %s", ids, c.LostIDs[0])
	}
}

func TestTallyWindows(t *testing.T) {
	tl := play(t, 1, seq(sendAck(1), sendAck(2), sendAck(3), []event{
		deliver(1, 0), deliver(1, 0), // steady: 2 deliveries, 1 duplicate
		inWindow("herald-kill"), deliver(2, 0), deliver(2, 0), deliver(1, 0), // 3, 2
		inWindow(""), deliver(3, 0), // steady again: 3, 1
		toPhase(phaseDrain), deliver(3, 0), // drain: 1, 1
	}))
	want := map[string]dupStats{
		"steady":      {Deliveries: 3, Duplicates: 1},
		"herald-kill": {Deliveries: 3, Duplicates: 2},
		"drain":       {Deliveries: 1, Duplicates: 1},
	}
	got := tl.windowStats()
	for name, w := range want {
		if got[name] != w {
			t.Errorf("window %s = %+v, want %+v", name, got[name], w)
		}
	}
	if tl.duplicates.Load() != 4 {
		t.Errorf("duplicates = %d, want 4", tl.duplicates.Load())
	}
}

func TestProbeMeasuresOperationsStartedAfterTheFault(t *testing.T) {
	tl := newTally(1)
	a, b := newID(), newID()
	tl.sentMsg(a)
	tl.sentMsg(b)
	before := time.Now()
	time.Sleep(2 * time.Millisecond)
	end := time.Now()
	p := tl.arm(end)
	tl.ack(a, before) // started before the fault ended: not a recovery
	tl.deliver(a, 0, before)
	if p.ackAt.Load() != 0 || p.recvAt.Load() != 0 {
		t.Fatal("an operation started before the fault's end counted as the recovery")
	}
	time.Sleep(2 * time.Millisecond)
	tl.ack(b, time.Now())
	tl.deliver(b, 0, time.Now())
	ack, recv, health := p.recovery()
	if ack <= 0 || recv <= 0 || health != -1 {
		t.Errorf("recovery = %v, %v, %v; want two positive durations and -1", ack, recv, health)
	}
}

func TestNextMissingMovesOn(t *testing.T) {
	tl := newTally(1)
	ids := make([]uuid.UUID, 10)
	for i := range ids {
		ids[i] = newID()
		tl.sentMsg(ids[i])
	}
	for _, i := range []int{3, 1, 4, 0, 5, 9, 2, 6} { // acknowledged in this order
		tl.ack(ids[i], time.Now())
	}
	tl.deliver(ids[3], 0, time.Now())
	tl.deliver(ids[4], 0, time.Now())
	if got, want := tl.nextMissing(3), []uuid.UUID{ids[1], ids[0], ids[5]}; !slices.Equal(got, want) {
		t.Fatalf("first nextMissing(3) = %v, want %v (ack order, delivered and unacknowledged left out)", got, want)
	}
	// The window moves on, though none of those was delivered, and wraps.
	if got, want := tl.nextMissing(3), []uuid.UUID{ids[9], ids[2], ids[6]}; !slices.Equal(got, want) {
		t.Fatalf("second nextMissing(3) = %v, want %v", got, want)
	}
	if got, want := tl.nextMissing(2), []uuid.UUID{ids[1], ids[0]}; !slices.Equal(got, want) {
		t.Fatalf("third nextMissing(2) = %v, want %v (wrapped)", got, want)
	}
	for _, i := range []int{1, 0, 5, 9, 2} {
		tl.deliver(ids[i], 0, time.Now())
	}
	if got := tl.nextMissing(10); !slices.Equal(got, []uuid.UUID{ids[6]}) {
		t.Fatalf("nextMissing(10) = %v, want only the last missing", got)
	}
}
