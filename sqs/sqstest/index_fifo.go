package sqstest

import "github.com/heraldmq/herald/sqs"

func testFIFOOrder(e *indexEnv) {
	q := e.queue(true)
	e.add(q, "b", 0, "b1", "b2")
	e.add(q, "a", 0, "a1")
	e.add(q, "b", 0, "b3")
	e.add(q, "a", 0, "a2")
	e.add(q, "c", 0, "c1")
	res := e.expect(q, 1000, 10, 31_000, "b1", "b2", "b3", "a1", "a2", "c1")
	for _, c := range res.Claims {
		if want := e.names[c.ID][:1]; c.Group != want {
			e.t.Errorf("claim of %s: Group %q, want %q", e.names[c.ID], c.Group, want)
		}
	}
}

// testFIFOSendOrder adds a group's messages out of send order, as after a
// Redis restart: sends that arrive once Redis is back are added first, the
// rebuild's older backlog after them, and a message whose Add failed last
// (by the reconciler). Receive hands them out in send order all the same.
func testFIFOSendOrder(e *indexEnv) {
	q := e.queue(true)
	e.idsOf("a1", "a2", "a3", "a4", "a5") // sent in this order
	e.add(q, "a", 0, "a4", "a5")
	e.add(q, "a", 0, "a1", "a3")
	e.add(q, "a", 0, "a2")
	e.expect(q, 1000, 10, 31_000, "a1", "a2", "a3", "a4", "a5")
}

// testFIFOLateAdd adds older messages to a group while a newer one is in
// flight: the oldest heads the group now, and only the head blocks a
// group, so it is handed out although a later message is in flight, and
// the receive stops at that one.
func testFIFOLateAdd(e *indexEnv) {
	q := e.queue(true)
	e.idsOf("a1", "a2", "a3", "a4")
	e.add(q, "a", 0, "a2", "a4")
	e.expect(q, 1000, 1, 31_000, "a2")
	e.add(q, "a", 0, "a1", "a3")
	e.expect(q, 2000, 10, 32_000, "a1")
	e.remove(q, "a1") // a2 heads the group, in flight
	e.expect(q, 3000, 10, 33_000)
	e.remove(q, "a2")
	e.expect(q, 3000, 10, 33_000, "a3", "a4")
}

// testFIFOHeadBackWhileLaterInFlight: as on AWS, a group is blocked only
// while its first message is in flight. When that one comes back (here
// its visibility set to end now), it is handed out again although the
// messages received with it are still in flight; the group is then
// blocked by it alone.
func testFIFOHeadBackWhileLaterInFlight(e *indexEnv) {
	q := e.queue(true)
	e.add(q, "a", 0, "a1", "a2", "a3")
	e.expect(q, 1000, 3, 31_000, "a1", "a2", "a3")
	if err := e.x.SetVisibleAt(e.ctx, q, e.id("a1"), 1, e.at(2000), e.at(2000)); err != nil {
		e.t.Fatal(err)
	}
	res := e.expect(q, 2000, 10, 40_000, "a1")
	if c := e.claim(res, "a1"); c.ReceiveCount != 2 {
		e.t.Errorf("a1 ReceiveCount = %d, want 2", c.ReceiveCount)
	}
	e.expect(q, 31_000, 10, 50_000) // a2 and a3 are back, but a1 blocks
	e.expect(q, 40_000, 10, 50_000, "a1", "a2", "a3")
}

// testFIFOHeadVisibilityIsTheBlock: extending the visibility of a group's
// first message extends the group's block; extending a later one's does
// not block the group, whose receive then stops at that message.
func testFIFOHeadVisibilityIsTheBlock(e *indexEnv) {
	q := e.queue(true)
	e.add(q, "a", 0, "a1", "a2")
	e.add(q, "b", 0, "b1", "b2")
	e.expect(q, 1000, 10, 31_000, "a1", "a2", "b1", "b2")
	for _, name := range []string{"a1", "b2"} {
		if err := e.x.SetVisibleAt(e.ctx, q, e.id(name), 0, e.at(2000), e.at(50_000)); err != nil {
			e.t.Fatal(err)
		}
	}
	e.expect(q, 31_000, 10, 60_000, "b1")
	e.expect(q, 50_000, 10, 70_000, "a1", "a2")
}

// testFIFOFreshGroupsFirst: groups never received are served before groups
// whose messages came back, even when those are older.
func testFIFOFreshGroupsFirst(e *indexEnv) {
	q := e.queue(true)
	e.add(q, "a", 0, "a1")
	e.add(q, "b", 0, "b1")
	e.add(q, "c", 0, "c1")
	e.expect(q, 1000, 1, 31_000, "a1")
	e.expect(q, 31_000, 1, 61_000, "b1")
	e.expect(q, 31_000, 1, 61_000, "c1")
	e.expect(q, 31_000, 1, 61_000, "a1")
}

func testFIFOBlocked(e *indexEnv) {
	q := e.queue(true)
	e.add(q, "a", 0, "a1", "a2", "a3")
	e.add(q, "b", 0, "b1")
	e.expect(q, 1000, 2, 31_000, "a1", "a2")
	// a3 is visible, but its group has messages in flight.
	e.expect(q, 2000, 10, 32_000, "b1")
	e.expect(q, 3000, 10, 33_000)
	e.counts(q, 3000, sqs.Counts{Visible: 1, InFlight: 3})
	e.add(q, "a", 0, "a4")
	e.add(q, "c", 0, "c1")
	e.expect(q, 4000, 10, 34_000, "c1")
}

func testFIFOUnblockedByDelete(e *indexEnv) {
	q := e.queue(true)
	e.add(q, "a", 0, "a1", "a2", "a3")
	e.expect(q, 1000, 2, 31_000, "a1", "a2")
	e.remove(q, "a1")
	e.expect(q, 2000, 10, 32_000)
	e.remove(q, "a2")
	e.expect(q, 2000, 10, 32_000, "a3")
}

func testFIFOAfterTimeout(e *indexEnv) {
	q := e.queue(true)
	e.add(q, "a", 0, "a1", "a2", "a3")
	e.expect(q, 1000, 2, 31_000, "a1", "a2")
	e.remove(q, "a2") // deleted out of order: a1 still blocks the group
	e.expect(q, 30_999, 10, 60_000)
	res := e.expect(q, 31_000, 10, 61_000, "a1", "a3")
	if c := e.claim(res, "a1"); c.ReceiveCount != 2 {
		e.t.Errorf("a1 ReceiveCount = %d, want 2", c.ReceiveCount)
	}
	// A shortened timeout unblocks the group when it ends.
	if err := e.x.SetVisibleAt(e.ctx, q, e.id("a1"), 0, e.at(32_000), e.at(40_000)); err != nil {
		e.t.Fatal(err)
	}
	e.expect(q, 39_999, 10, 70_000)
	if err := e.x.SetVisibleAt(e.ctx, q, e.id("a3"), 0, e.at(32_000), e.at(35_000)); err != nil {
		e.t.Fatal(err)
	}
	e.expect(q, 39_999, 10, 70_000)
	e.expect(q, 40_000, 10, 70_000, "a1", "a3")
}

func testFIFOConsecutive(e *indexEnv) {
	q := e.queue(true)
	e.add(q, "a", 0, "a1")
	e.add(q, "a", 10_000, "a2")
	e.add(q, "a", 0, "a3")
	e.expect(q, 1000, 10, 2000, "a1")
	e.remove(q, "a1")
	// a2 heads the group and is delayed: a3 waits behind it.
	e.expect(q, 5000, 10, 6000)
	e.expect(q, 10_000, 10, 40_000, "a2", "a3")
}

func testFIFORebuiltInFlight(e *indexEnv) {
	q := sqs.IndexQueue{ID: UUIDAt(e.base), FIFO: true}
	err := e.x.Add(e.ctx, q, []sqs.Entry{
		{ID: e.id("a1"), Group: "a", VisibleAt: e.at(30_000), ReceiveCount: 1, FirstReceiveAt: e.at(0), InFlight: true},
		{ID: e.id("a2"), Group: "a", VisibleAt: e.at(0)},
		{ID: e.id("b1"), Group: "b", VisibleAt: e.at(0)},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.x.MarkBuilt(e.ctx, q); err != nil {
		e.t.Fatal(err)
	}
	e.expect(q, 1000, 10, 60_000, "b1")
	res := e.expect(q, 30_000, 10, 60_000, "a1", "a2")
	if c := e.claim(res, "a1"); c.ReceiveCount != 2 || !c.FirstReceiveAt.Equal(e.at(0)) {
		e.t.Errorf("a1: ReceiveCount %d FirstReceiveAt %v, want 2 and %v", c.ReceiveCount, c.FirstReceiveAt, e.at(0))
	}
}
