package sqstest

import "github.com/heraldmq/herald/sqs"

func testStandardOrder(e *indexEnv) {
	q := e.queue(false)
	e.add(q, "", 3000, "c")
	e.add(q, "", 1000, "a")
	e.add(q, "", 2000, "b")
	e.expect(q, 5000, 10, 35000, "a", "b", "c")
}

// testStandardReturnedFirst: as on AWS, a message whose visibility timeout
// ended is handed out before messages that became visible before that end
// but were sent after it.
func testStandardReturnedFirst(e *indexEnv) {
	q := e.queue(false)
	e.add(q, "", 0, "m1")
	e.expect(q, 1000, 1, 11_000, "m1")
	e.add(q, "", 5000, "m2")
	e.add(q, "", 6000, "m3")
	e.expect(q, 12_000, 2, 40_000, "m1", "m2")
	e.expect(q, 12_000, 2, 40_000, "m3")
}

// testZeroVisibility: a receive with a visibility timeout of 0 hands each
// message out once, and the next receive hands them out again.
func testZeroVisibility(e *indexEnv) {
	q := e.queue(false)
	e.add(q, "", 0, "a", "b")
	e.expect(q, 1000, 10, 1000, "a", "b")
	res := e.expect(q, 2000, 10, 2000, "a", "b")
	for _, c := range res.Claims {
		if c.ReceiveCount != 2 {
			e.t.Errorf("%s: ReceiveCount %d after two receives", e.names[c.ID], c.ReceiveCount)
		}
	}
}

// testHide: Hide makes a received message invisible again, whether its
// timeout ended (the message is back) or it is in flight under a later
// receive, and returns its current receive; never-received and unknown
// messages are ErrNotInFlight. On a FIFO queue a hidden head blocks its
// group.
func testHide(e *indexEnv) {
	q := e.queue(false)
	e.add(q, "", 0, "m")
	for _, name := range []string{"m", "unknown"} {
		_, err := e.x.Hide(e.ctx, q, e.id(name), e.at(0), e.at(5000))
		wantErr(e.t, "Hide before any receive", err, sqs.ErrNotInFlight)
	}
	e.expect(q, 1000, 1, 11_000, "m")
	c, err := e.x.Hide(e.ctx, q, e.id("m"), e.at(12_000), e.at(20_000))
	if err != nil || c.ID != e.id("m") || c.ReceiveCount != 1 || !c.FirstReceiveAt.Equal(e.at(1000)) {
		e.t.Fatalf("Hide of a message back from its timeout = %+v, %v; want receive 1 first received at %v", c, err, e.at(1000))
	}
	e.expect(q, 12_000, 10, 40_000)
	e.counts(q, 12_000, sqs.Counts{InFlight: 1})
	e.expect(q, 20_000, 10, 40_000, "m")
	if c, err = e.x.Hide(e.ctx, q, e.id("m"), e.at(21_000), e.at(60_000)); err != nil || c.ReceiveCount != 2 {
		e.t.Fatalf("Hide in flight = %+v, %v; want receive 2", c, err)
	}
	e.expect(q, 40_000, 10, 70_000)
	e.expect(q, 60_000, 10, 70_000, "m")

	f := e.queue(true)
	e.add(f, "a", 0, "a1", "a2")
	e.expect(f, 1000, 1, 11_000, "a1")
	if c, err = e.x.Hide(e.ctx, f, e.id("a1"), e.at(12_000), e.at(20_000)); err != nil || c.Group != "a" {
		e.t.Fatalf("Hide of a FIFO head = %+v, %v; want group a", c, err)
	}
	e.expect(f, 12_000, 10, 40_000)
	e.expect(f, 20_000, 10, 40_000, "a1", "a2")
}

func testDelayed(e *indexEnv) {
	q := e.queue(false)
	e.add(q, "", 0, "now")
	e.add(q, "", 10_000, "later")
	e.expect(q, 0, 10, 30_000, "now")
	e.expect(q, 9999, 10, 30_000)
	e.expect(q, 10_000, 10, 40_000, "later")
}

func testVisibilityTimeout(e *indexEnv) {
	q := e.queue(false)
	e.add(q, "", 0, "m")
	res := e.expect(q, 1000, 10, 31_000, "m")
	c := e.claim(res, "m")
	if c.ReceiveCount != 1 || !c.FirstReceiveAt.Equal(e.at(1000)) {
		e.t.Errorf("first receive: ReceiveCount %d FirstReceiveAt %v, want 1 and %v", c.ReceiveCount, c.FirstReceiveAt, e.at(1000))
	}
	e.expect(q, 2000, 10, 32_000)
	e.expect(q, 30_999, 10, 60_000)
	res = e.expect(q, 31_000, 10, 61_000, "m")
	c = e.claim(res, "m")
	if c.ReceiveCount != 2 || !c.FirstReceiveAt.Equal(e.at(1000)) {
		e.t.Errorf("second receive: ReceiveCount %d FirstReceiveAt %v, want 2 and %v", c.ReceiveCount, c.FirstReceiveAt, e.at(1000))
	}
}

func testMaxBounds(e *indexEnv) {
	for _, fifo := range []bool{false, true} {
		q := e.queue(fifo)
		ns := names(map[bool]string{false: "s", true: "f"}[fifo], 5)
		for i, n := range ns {
			// FIFO: one group each, so that groups do not block the rest.
			e.add(q, n, i, n)
		}
		e.expect(q, 100, 2, 30_000, ns[0], ns[1])
		e.expect(q, 100, 2, 30_000, ns[2], ns[3])
		e.expect(q, 100, 2, 30_000, ns[4])
		e.expect(q, 100, 2, 30_000)
	}
}

func testNextVisibleAt(e *indexEnv) {
	for _, fifo := range []bool{false, true} {
		q := e.queue(fifo)
		e.add(q, "g1", 0, "m"+map[bool]string{false: "s", true: "f"}[fifo])
		e.add(q, "g2", 50_000, "delayed"+map[bool]string{false: "s", true: "f"}[fifo])
		res := e.receive(q, 1000, 10, 20_000)
		if len(res.Claims) != 1 {
			e.t.Fatalf("fifo=%v: received %d messages, want 1", fifo, len(res.Claims))
		}
		// What was handed out does not count: the delayed message does.
		if !res.NextVisibleAt.Equal(e.at(50_000)) {
			e.t.Errorf("fifo=%v: NextVisibleAt = %v, want the delayed message's %v", fifo, res.NextVisibleAt, e.at(50_000))
		}
		// Now the received message's timeout (20 s) ends first.
		res = e.receive(q, 2000, 10, 60_000)
		if len(res.Claims) != 0 || !res.NextVisibleAt.Equal(e.at(20_000)) {
			e.t.Errorf("fifo=%v: nothing visible: %d claims, NextVisibleAt = %v, want the end of the visibility timeout at %v",
				fifo, len(res.Claims), res.NextVisibleAt, e.at(20_000))
		}
		empty := e.queue(fifo)
		if res := e.receive(empty, 0, 10, 1000); len(res.Claims) != 0 || !res.NextVisibleAt.IsZero() {
			e.t.Errorf("fifo=%v: empty queue: %+v, want no claims and a zero NextVisibleAt", fifo, res)
		}
	}
}

func testCounts(e *indexEnv) {
	q := e.queue(false)
	e.counts(q, 0, sqs.Counts{})
	e.add(q, "", 0, "a", "b", "c")
	e.add(q, "", 60_000, "d")
	e.counts(q, 0, sqs.Counts{Visible: 3, Delayed: 1})
	e.receive(q, 1000, 2, 31_000)
	e.counts(q, 1000, sqs.Counts{Visible: 1, InFlight: 2, Delayed: 1})
	e.counts(q, 31_000, sqs.Counts{Visible: 3, Delayed: 1})
	e.remove(q, "a")
	e.counts(q, 60_000, sqs.Counts{Visible: 3})
}

func testSetVisibleAt(e *indexEnv) {
	q := e.queue(false)
	e.add(q, "", 0, "extended", "shortened", "released")
	e.expectSet(q, 1000, 10, 31_000, "extended", "shortened", "released")
	for _, c := range []struct {
		name      string
		visibleAt int
	}{{"extended", 90_000}, {"shortened", 5000}, {"released", 2000}} {
		if err := e.x.SetVisibleAt(e.ctx, q, e.id(c.name), 0, e.at(2000), e.at(c.visibleAt)); err != nil {
			e.t.Fatalf("SetVisibleAt %s: %v", c.name, err)
		}
	}
	e.expect(q, 2000, 10, 95_000, "released")
	e.counts(q, 2000, sqs.Counts{InFlight: 3})
	e.expect(q, 4999, 10, 100_000)
	e.expect(q, 5000, 10, 100_000, "shortened")
	e.expect(q, 89_999, 10, 100_000)
	res := e.expect(q, 90_000, 10, 100_000, "extended")
	if c := e.claim(res, "extended"); c.ReceiveCount != 2 {
		e.t.Errorf("ReceiveCount after SetVisibleAt and a receive = %d, want 2", c.ReceiveCount)
	}
}

func testSetVisibleAtNotInFlight(e *indexEnv) {
	q := e.queue(false)
	e.add(q, "", 0, "expired", "removed")
	e.expectSet(q, 2000, 10, 3000, "expired", "removed")
	e.remove(q, "removed")
	e.add(q, "", 0, "never")
	for _, c := range []struct {
		name string
		now  int
	}{
		{"never", 2000},   // never received
		{"expired", 3000}, // its timeout ends at 3000
		{"removed", 2500}, // deleted
	} {
		err := e.x.SetVisibleAt(e.ctx, q, e.id(c.name), 0, e.at(c.now), e.at(60_000))
		wantErr(e.t, "SetVisibleAt of "+c.name, err, sqs.ErrNotInFlight)
	}
	// The failed calls changed nothing.
	e.expectSet(q, 3000, 10, 4000, "expired", "never")
}

// testSetVisibleAtStaleReceipt checks that SetVisibleAt refuses the
// receive count of an earlier receive (a stale receipt handle) without
// changing anything, and accepts the current one or 0.
func testSetVisibleAtStaleReceipt(e *indexEnv) {
	for _, fifo := range []bool{false, true} {
		q := e.queue(fifo)
		name := "m" + map[bool]string{false: "s", true: "f"}[fifo]
		e.add(q, "g", 0, name)
		e.expect(q, 1000, 10, 31_000, name)
		res := e.expect(q, 31_000, 10, 61_000, name)
		if c := e.claim(res, name); c.ReceiveCount != 2 {
			e.t.Fatalf("fifo=%v: second receive: ReceiveCount %d, want 2", fifo, c.ReceiveCount)
		}
		// Neither an extension nor a release through the first receive.
		for _, visibleAt := range []int{100_000, 32_000} {
			err := e.x.SetVisibleAt(e.ctx, q, e.id(name), 1, e.at(32_000), e.at(visibleAt))
			wantErr(e.t, "SetVisibleAt with the receive count of an earlier receive", err, sqs.ErrStaleReceipt)
		}
		// Still in flight until the second receive's timeout ends.
		if res := e.receive(q, 32_000, 10, 62_000); len(res.Claims) != 0 || !res.NextVisibleAt.Equal(e.at(61_000)) {
			e.t.Errorf("fifo=%v: after stale SetVisibleAt: %d claims, NextVisibleAt %v, want none and %v",
				fifo, len(res.Claims), res.NextVisibleAt, e.at(61_000))
		}
		e.counts(q, 32_000, sqs.Counts{InFlight: 1})
		if err := e.x.SetVisibleAt(e.ctx, q, e.id(name), 2, e.at(33_000), e.at(50_000)); err != nil {
			e.t.Fatalf("fifo=%v: SetVisibleAt with the current receive count: %v", fifo, err)
		}
		if res := e.receive(q, 33_000, 10, 63_000); len(res.Claims) != 0 || !res.NextVisibleAt.Equal(e.at(50_000)) {
			e.t.Errorf("fifo=%v: after SetVisibleAt: %d claims, NextVisibleAt %v, want none and %v",
				fifo, len(res.Claims), res.NextVisibleAt, e.at(50_000))
		}
		if err := e.x.SetVisibleAt(e.ctx, q, e.id(name), 0, e.at(34_000), e.at(40_000)); err != nil {
			e.t.Fatalf("fifo=%v: SetVisibleAt with receive count 0: %v", fifo, err)
		}
		e.expect(q, 39_999, 10, 70_000)
		res = e.expect(q, 40_000, 10, 70_000, name)
		if c := e.claim(res, name); c.ReceiveCount != 3 {
			e.t.Errorf("fifo=%v: third receive: ReceiveCount %d, want 3", fifo, c.ReceiveCount)
		}
		err := e.x.SetVisibleAt(e.ctx, q, e.id(name), 2, e.at(41_000), e.at(41_000))
		wantErr(e.t, "SetVisibleAt with the receive count of the second of three receives", err, sqs.ErrStaleReceipt)
		e.expect(q, 41_000, 10, 80_000)
	}
}

func testRemove(e *indexEnv) {
	q := e.queue(false)
	e.add(q, "", 0, "a", "b", "c", "d")
	e.receive(q, 1000, 1, 31_000)
	if err := e.x.Remove(e.ctx, q, append(e.idsOf("a", "b", "c"), UUIDAt(e.base))); err != nil {
		e.t.Fatalf("Remove with an unknown ID: %v", err)
	}
	e.expect(q, 40_000, 10, 70_000, "d")
	e.counts(q, 40_000, sqs.Counts{InFlight: 1})
}

func testNotBuilt(e *indexEnv) {
	q := sqs.IndexQueue{ID: UUIDAt(e.base)}
	_, err := e.x.Receive(e.ctx, q, sqs.ReceiveRequest{Now: e.at(0), Max: 1, Until: e.at(1000)})
	wantErr(e.t, "Receive of a queue never built", err, sqs.ErrNotBuilt)
	_, err = e.x.Counts(e.ctx, q, e.at(0))
	wantErr(e.t, "Counts of a queue never built", err, sqs.ErrNotBuilt)
	// A rebuild adds the stored messages, then declares the state complete.
	e.add(q, "", 0, "a")
	_, err = e.x.Receive(e.ctx, q, sqs.ReceiveRequest{Now: e.at(0), Max: 1, Until: e.at(1000)})
	wantErr(e.t, "Receive before MarkBuilt", err, sqs.ErrNotBuilt)
	if err := e.x.MarkBuilt(e.ctx, q); err != nil {
		e.t.Fatal(err)
	}
	e.counts(q, 0, sqs.Counts{Visible: 1})
	e.expect(q, 0, 10, 1000, "a")
	// MarkBuilt of a queue with no messages at all.
	empty := e.queue(false)
	e.counts(empty, 0, sqs.Counts{})
	e.expect(empty, 0, 10, 1000)
}

func testDrop(e *indexEnv) {
	for _, fifo := range []bool{false, true} {
		q := e.queue(fifo)
		prefix := map[bool]string{false: "s", true: "f"}[fifo]
		e.add(q, "g", 0, prefix+"a", prefix+"b")
		e.receive(q, 1000, 1, 60_000)
		if err := e.x.Drop(e.ctx, q); err != nil {
			e.t.Fatalf("Drop: %v", err)
		}
		_, err := e.x.Receive(e.ctx, q, sqs.ReceiveRequest{Now: e.at(2000), Max: 10, Until: e.at(3000)})
		wantErr(e.t, "Receive after Drop", err, sqs.ErrNotBuilt)
		_, err = e.x.Counts(e.ctx, q, e.at(2000))
		wantErr(e.t, "Counts after Drop", err, sqs.ErrNotBuilt)
		// Rebuilt with what the store still has: every entry is new again.
		e.add(q, "g", 0, prefix+"b")
		if err := e.x.MarkBuilt(e.ctx, q); err != nil {
			e.t.Fatal(err)
		}
		e.counts(q, 2000, sqs.Counts{Visible: 1})
		e.expect(q, 2000, 10, 3000, prefix+"b")
	}
}

func testAddDoesNotOverride(e *indexEnv) {
	q := e.queue(false)
	e.add(q, "", 0, "m")
	e.add(q, "", 60_000, "delayed")
	e.add(q, "", 0, "delayed") // already tracked: stays delayed
	e.expect(q, 1000, 10, 31_000, "m")
	// A rebuild racing the receive re-adds the message as the store saw it
	// before: it stays in flight and keeps its count.
	e.add(q, "", 0, "m")
	e.expect(q, 2000, 10, 32_000)
	e.counts(q, 2000, sqs.Counts{InFlight: 1, Delayed: 1})
	res := e.expect(q, 31_000, 10, 61_000, "m")
	if c := e.claim(res, "m"); c.ReceiveCount != 2 {
		e.t.Errorf("ReceiveCount = %d, want 2", c.ReceiveCount)
	}
}

func testRebuiltEntries(e *indexEnv) {
	q := sqs.IndexQueue{ID: UUIDAt(e.base)}
	entries := []sqs.Entry{
		{ID: e.id("inflight"), VisibleAt: e.at(30_000), ReceiveCount: 2, FirstReceiveAt: e.at(-60_000), InFlight: true},
		{ID: e.id("received"), VisibleAt: e.at(-1000), ReceiveCount: 1, FirstReceiveAt: e.at(-90_000)},
		{ID: e.id("delayed"), VisibleAt: e.at(20_000)},
	}
	if err := e.x.Add(e.ctx, q, entries); err != nil {
		e.t.Fatal(err)
	}
	if err := e.x.MarkBuilt(e.ctx, q); err != nil {
		e.t.Fatal(err)
	}
	e.counts(q, 0, sqs.Counts{Visible: 1, InFlight: 1, Delayed: 1})
	res := e.expect(q, 0, 10, 100_000, "received")
	if c := e.claim(res, "received"); c.ReceiveCount != 2 || !c.FirstReceiveAt.Equal(e.at(-90_000)) {
		e.t.Errorf("received: ReceiveCount %d FirstReceiveAt %v, want 2 and %v", c.ReceiveCount, c.FirstReceiveAt, e.at(-90_000))
	}
	res = e.expectSet(q, 30_000, 10, 100_000, "delayed", "inflight")
	if c := e.claim(res, "inflight"); c.ReceiveCount != 3 || !c.FirstReceiveAt.Equal(e.at(-60_000)) {
		e.t.Errorf("inflight: ReceiveCount %d FirstReceiveAt %v, want 3 and %v", c.ReceiveCount, c.FirstReceiveAt, e.at(-60_000))
	}
	if c := e.claim(res, "delayed"); c.ReceiveCount != 1 || !c.FirstReceiveAt.Equal(e.at(30_000)) {
		e.t.Errorf("delayed: ReceiveCount %d FirstReceiveAt %v, want 1 and %v", c.ReceiveCount, c.FirstReceiveAt, e.at(30_000))
	}
}

func testUnknownQueue(e *indexEnv) {
	q := sqs.IndexQueue{ID: UUIDAt(e.base)}
	if err := e.x.Remove(e.ctx, q, e.idsOf("x")); err != nil {
		e.t.Errorf("Remove on an unknown queue: %v", err)
	}
	wantErr(e.t, "SetVisibleAt on an unknown queue", e.x.SetVisibleAt(e.ctx, q, e.id("x"), 0, e.at(0), e.at(1000)), sqs.ErrNotInFlight)
	if err := e.x.Drop(e.ctx, q); err != nil {
		e.t.Errorf("Drop on an unknown queue: %v", err)
	}
	_, err := e.x.Counts(e.ctx, q, e.at(0))
	wantErr(e.t, "Counts after operations on an unknown queue", err, sqs.ErrNotBuilt)
}
