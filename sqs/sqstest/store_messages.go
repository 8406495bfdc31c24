package sqstest

import (
	"bytes"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// fullMessage returns a message with every field set, attributes of every
// type, binary values that are not text, and a delivery state.
func fullMessage(at time.Time, body string) *sqs.Message {
	m := NewMessage(at, body)
	m.Attributes = map[string]sqs.MessageAttributeValue{
		"s":           {DataType: "String", StringValue: "héllo\twörld"},
		"n":           {DataType: "Number", StringValue: "-12.5e3"},
		"b":           {DataType: "Binary", BinaryValue: []byte{0, 1, 0xfe, 0xff, '\n', 0}},
		"custom":      {DataType: "String.label", StringValue: "x"},
		"bin.custom":  {DataType: "Binary.gz", BinaryValue: []byte{0x1f, 0x8b}},
		"Number.zero": {DataType: "Number", StringValue: "0"},
	}
	m.SystemAttributes = map[string]sqs.MessageAttributeValue{
		"AWSTraceHeader": {DataType: "String", StringValue: "Root=1-5759e988-bd862e3fe1be46a994272793"},
	}
	m.SenderID = "AIDAIENQZJOLO23YVJ4VO"
	m.MessageGroupID = "group-1"
	m.MessageDeduplicationID = "dedup-1"
	m.SequenceNumber = "18849496460467696128"
	m.DeadLetterSourceARN = "arn:aws:sqs:us-east-1:123456789012:source"
	m.State = sqs.State{ID: m.ID, ReceiveCount: 3, FirstReceiveAt: m.SentAt.Add(time.Second), VisibleAt: m.SentAt.Add(time.Minute)}
	return m
}

func testPutGetMessage(e *storeEnv) {
	q := e.createSharded("q", 3)
	full := fullMessage(e.now.Add(-time.Second), "full")
	plain := NewMessage(e.now.Add(-time.Second), "plain")
	plain.Body = "plain: <xml>&amp; \u00e9\U0001F600 \r\n"
	unicode := NewMessage(e.now, "")
	e.put(q, full, plain, unicode)
	want := []*sqs.Message{full, plain, unicode}
	sameMessages(e.t, "GetMessages", want, e.get(q, full.ID, plain.ID, unicode.ID))
	var inFullsShard []*sqs.Message
	for _, m := range want {
		if m.Shard == full.Shard {
			inFullsShard = append(inFullsShard, m)
		}
	}
	slices.SortFunc(inFullsShard, func(a, b *sqs.Message) int { return CompareIDs(a.ID, b.ID) })
	sameMessages(e.t, "ScanMessages of full's shard", inFullsShard, e.scanAll(q, full.Shard, 10))
}

func testGetMessagesOrder(e *storeEnv) {
	q := e.create("q")
	ms := msgs(e.now.Add(-time.Minute), "m", 4)
	e.put(q, ms...)
	missing := UUIDAt(e.now)
	got := e.get(q, ms[2].ID, missing, ms[0].ID, ms[3].ID)
	sameMessages(e.t, "GetMessages in the order of ids", []*sqs.Message{ms[2], ms[0], ms[3]}, got)
	if got := e.get(q); len(got) != 0 {
		e.t.Errorf("GetMessages of no ids = %v", bodies(got))
	}
}

func testMessagesApart(e *storeEnv) {
	a, b := e.create("a"), e.create("b")
	ma := NewMessage(e.now, "in a")
	mb := NewMessage(e.now, "in b")
	e.put(a, ma)
	e.put(b, mb)
	if got := e.get(a, ma.ID, mb.ID); !slices.Equal(bodies(got), []string{"in a"}) {
		e.t.Errorf("GetMessages of a = %v, want [in a]", bodies(got))
	}
	if got := e.scanAll(b, 0, 10); !slices.Equal(bodies(got), []string{"in b"}) {
		e.t.Errorf("ScanMessages of b = %v, want [in b]", bodies(got))
	}
}

func testPutOverwrites(e *storeEnv) {
	q := e.create("q")
	m := fullMessage(e.now, "first")
	e.put(q, m)
	again := NewMessage(e.now, "second")
	again.ID, again.State.ID = m.ID, m.ID
	e.put(q, again)
	sameMessages(e.t, "GetMessages after a second put of the ID", []*sqs.Message{again}, e.get(q, m.ID))
	sameMessages(e.t, "ScanMessages after a second put of the ID", []*sqs.Message{again}, e.scanAll(q, 0, 10))
}

func testDeleteMessages(e *storeEnv) {
	q := e.create("q")
	ms := msgs(e.now.Add(-time.Minute), "m", 3)
	e.put(q, ms...)
	if err := e.store.DeleteMessages(e.ctx, q, []uuid.UUID{ms[1].ID, UUIDAt(e.now)}); err != nil {
		e.t.Fatalf("DeleteMessages: %v", err)
	}
	if got := e.get(q, ms[0].ID, ms[1].ID, ms[2].ID); !slices.Equal(bodies(got), []string{"m0a", "m2a"}) {
		e.t.Errorf("GetMessages after deleting m1a = %v", bodies(got))
	}
	if got := e.scanAll(q, 0, 10); !slices.Equal(bodies(got), []string{"m0a", "m2a"}) {
		e.t.Errorf("ScanMessages after deleting m1a = %v", bodies(got))
	}
	if err := e.store.DeleteMessages(e.ctx, q, []uuid.UUID{ms[1].ID}); err != nil {
		e.t.Errorf("DeleteMessages of a deleted message: %v", err)
	}
}

func testSaveStates(e *storeEnv) {
	q := e.create("q")
	ms := msgs(e.now.Add(-time.Minute), "m", 2)
	e.put(q, ms...)
	st := sqs.State{ID: ms[0].ID, ReceiveCount: 2, FirstReceiveAt: e.now.Add(-30 * time.Second), VisibleAt: e.now.Add(time.Minute)}
	unknown := sqs.State{ID: UUIDAt(e.now), ReceiveCount: 1, VisibleAt: e.now}
	if err := e.store.SaveStates(e.ctx, q, []sqs.State{st, unknown}); err != nil {
		e.t.Fatalf("SaveStates: %v", err)
	}
	// SaveStates may return before the write is durable, but it is the
	// same store: the states must be read back (an engine writing them
	// behind should make its own reads wait, or this retries briefly).
	want := *ms[0]
	want.State = st
	check := func() string {
		got := e.get(q, ms[0].ID, ms[1].ID, unknown.ID)
		if len(got) != 2 {
			return "GetMessages returned " + join(bodies(got))
		}
		if d := MessageDiff(&want, got[0]); d != "" {
			return "GetMessages: " + d
		}
		if d := MessageDiff(ms[1], got[1]); d != "" {
			return "GetMessages of the other message: " + d
		}
		scanned := e.scanAll(q, 0, 10)
		if len(scanned) != 2 {
			return "ScanMessages returned " + join(bodies(scanned))
		}
		if d := MessageDiff(&want, scanned[0]); d != "" {
			return "ScanMessages: " + d
		}
		return ""
	}
	if problem := eventually(check); problem != "" {
		e.t.Errorf("after SaveStates: %s", problem)
	}
	// A later state replaces the earlier one.
	st.ReceiveCount, st.VisibleAt = 3, e.now.Add(2*time.Minute)
	if err := e.store.SaveStates(e.ctx, q, []sqs.State{st}); err != nil {
		e.t.Fatal(err)
	}
	want.State = st
	if problem := eventually(check); problem != "" {
		e.t.Errorf("after a second SaveStates: %s", problem)
	}
}

// eventually retries check for up to a second while it reports a problem,
// for writes that may land behind (SaveStates), and returns the last one.
func eventually(check func() string) string {
	deadline := time.Now().Add(time.Second)
	for {
		p := check()
		if p == "" || time.Now().After(deadline) {
			return p
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func join(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}

func testScanOrder(e *storeEnv) {
	q := e.create("q")
	base := e.now.Add(-time.Hour)
	// Put in an order unlike ID time; two pairs share an instant, so
	// their IDs tie on time and are ordered by bytes.
	var ms []*sqs.Message
	for i, off := range []time.Duration{5, 1, 3, 3, 0, 5, 2} {
		m := NewMessage(base.Add(off*time.Second), string(rune('a'+i)))
		ms = append(ms, m)
	}
	e.put(q, ms...)
	want := slices.Clone(ms)
	slices.SortFunc(want, func(a, b *sqs.Message) int { return CompareIDs(a.ID, b.ID) })
	sameMessages(e.t, "ScanMessages", want, e.scanAll(q, 0, 100))
	// Version 1 UUIDs put the low bits of time first, so byte order is
	// not time order: find an older instant whose ID sorts after every
	// other's by bytes, and require it first all the same.
	var older *sqs.Message
	for d := time.Minute; older == nil; d += 13 * time.Millisecond {
		m := NewMessage(base.Add(-d), "older")
		if slices.IndexFunc(ms, func(x *sqs.Message) bool { return bytes.Compare(m.ID[:], x.ID[:]) < 0 }) < 0 {
			older = m
		}
	}
	e.put(q, older)
	got := e.scanAll(q, 0, 100)
	if len(got) == 0 || got[0].Body != "older" {
		e.t.Errorf("ScanMessages after putting an older message = %v, want it first", bodies(got))
	}
}

func testScanPaging(e *storeEnv) {
	q := e.create("q")
	ms := msgs(e.now.Add(-time.Hour), "m", 25)
	e.put(q, ms...)
	for _, page := range []int{1, 4, 25, 100} {
		sameMessages(e.t, "ScanMessages in pages", ms, e.scanAll(q, 0, page))
	}
	got, err := e.store.ScanMessages(e.ctx, q, 0, ms[9].ID, 3)
	if err != nil {
		e.t.Fatal(err)
	}
	sameMessages(e.t, "ScanMessages after m9a", ms[10:13], got)
	// After an ID that is not stored: from the next one in order.
	between := UUIDAt(ms[20].SentAt.Add(time.Microsecond))
	if got, err = e.store.ScanMessages(e.ctx, q, 0, between, 100); err != nil {
		e.t.Fatal(err)
	}
	sameMessages(e.t, "ScanMessages after an ID between m0c and m1c", ms[21:], got)
}

func testScanShards(e *storeEnv) {
	q := e.createSharded("q", 3)
	ms := msgs(e.now.Add(-time.Hour), "m", 30)
	e.put(q, ms...) // each to its ShardOf
	byShard := make([][]*sqs.Message, 3)
	for _, m := range ms {
		byShard[m.Shard] = append(byShard[m.Shard], m)
	}
	for shard, want := range byShard {
		sameMessages(e.t, "ScanMessages of a shard", want, e.scanAll(q, shard, 2))
	}
}

func testPurgeMessages(e *storeEnv) {
	q := e.create("q")
	before := e.now.Add(-time.Minute)
	// Well clear of the boundary: engines may purge by ID time or by
	// SentAt, which differ by less than a millisecond.
	old := msgs(before.Add(-2*time.Second), "old", 3)
	recent := msgs(before.Add(time.Second), "new", 3)
	e.put(q, append(old, recent...)...)
	if err := e.store.PurgeMessages(e.ctx, q, before); err != nil {
		e.t.Fatalf("PurgeMessages: %v", err)
	}
	all := append(slices.Clone(old), recent...)
	ids := make([]uuid.UUID, len(all))
	for i, m := range all {
		ids[i] = m.ID
	}
	sameMessages(e.t, "GetMessages after PurgeMessages", recent, e.get(q, ids...))
	sameMessages(e.t, "ScanMessages after PurgeMessages", recent, e.scanAll(q, 0, 10))
	// Messages sent after the purge are stored as usual.
	later := NewMessage(e.now, "later")
	e.put(q, later)
	sameMessages(e.t, "GetMessages of a message put after PurgeMessages", []*sqs.Message{later}, e.get(q, later.ID))
}

// testPurgedAt checks that PurgedAt is only a record of the last purge:
// reads do not filter by it. A message sent before the purge may enter the
// queue afterwards (a dead-letter move keeps its SentAt), and hiding it
// would lose it; PurgeMessages alone removes messages.
func testPurgedAt(e *storeEnv) {
	q := e.create("q")
	old := msgs(e.now.Add(-time.Minute), "old", 2)
	recent := msgs(e.now.Add(time.Second), "new", 2)
	q.PurgedAt = e.now
	if err := e.store.UpdateQueue(e.ctx, q); err != nil {
		e.t.Fatal(err)
	}
	e.put(q, append(old, recent...)...)
	all := append(append([]*sqs.Message{}, old...), recent...)
	sameMessages(e.t, "GetMessages of a queue with PurgedAt", all, e.get(q, old[0].ID, old[1].ID, recent[0].ID, recent[1].ID))
	sameMessages(e.t, "ScanMessages of a queue with PurgedAt", all, e.scanAll(q, 0, 10))
}
