package sqs_test

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

// fakeFences is the dc_fences table (sqs.Fences).
type fakeFences struct {
	mu     sync.Mutex
	fenced map[string]string
}

func (f *fakeFences) Fences(context.Context) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.fenced), nil
}

func (f *fakeFences) Fence(_ context.Context, dc, by string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fenced[dc] = by
	return nil
}

func (f *fakeFences) Unfence(_ context.Context, dc string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.fenced, dc)
	return nil
}

// hidingStore hides some messages from GetMessageRecords, as a replica
// that has not yet received them would.
type hidingStore struct {
	sqs.Store
	mu     sync.Mutex
	hidden map[uuid.UUID]bool
}

func (h *hidingStore) GetMessageRecords(ctx context.Context, q *sqs.Queue, ids []uuid.UUID) ([]*sqs.Message, error) {
	msgs, err := sqs.ReadRecords(ctx, h.Store, q, ids)
	h.mu.Lock()
	defer h.mu.Unlock()
	out := msgs[:0]
	for _, m := range msgs {
		if !h.hidden[m.ID] {
			out = append(out, m)
		}
	}
	return out, err
}

func (h *hidingStore) hide(id uuid.UUID, hidden bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hidden[id] = hidden
}

// activeDCs is one Store (Cassandra, replicated) under two data centers,
// each with its own Index (its own Redis), both reachable from both (the
// nodes' DCIndex), and one node per data center.
type activeDCs struct {
	ctx      context.Context
	clock    *fakeClock
	fences   *fakeFences
	epochs   map[string]*fakeEpochs
	index    map[string]*flakyIndex // by data center, as its nodes reach it
	store    *hidingStore
	node     map[string]*sqs.Service
	notifier map[string]*sqsmem.Notifier
}

func newActiveDCs(t *testing.T) *activeDCs {
	t.Helper()
	clock := &fakeClock{t: time.Now().Truncate(time.Millisecond)}
	d := &activeDCs{
		ctx: context.Background(), clock: clock,
		fences:   &fakeFences{fenced: map[string]string{}},
		epochs:   map[string]*fakeEpochs{"dc1": {}, "dc2": {}},
		index:    map[string]*flakyIndex{},
		store:    &hidingStore{Store: sqsmem.NewStore(), hidden: map[uuid.UUID]bool{}},
		node:     map[string]*sqs.Service{},
		notifier: map[string]*sqsmem.Notifier{"dc1": sqsmem.NewNotifier(), "dc2": sqsmem.NewNotifier()},
	}
	for _, dc := range []string{"dc1", "dc2"} {
		d.index[dc] = &flakyIndex{Index: sqsmem.NewIndex(sqsmem.IndexOptions{Clock: clock.Now})}
	}
	for dc, peer := range map[string]string{"dc1": "dc2", "dc2": "dc1"} {
		index := sqs.NewDCIndex(dc, map[string]sqs.Index{"dc1": d.index["dc1"], "dc2": d.index["dc2"]})
		notifier := sqs.NewDCNotifier(d.notifier[dc], []sqs.Notifier{d.notifier[peer]})
		svc := sqs.NewService(d.store, index, notifier, sqs.Config{
			Clock: clock.Now, IndexEpochs: d.epochs[dc], IndexEpochRefresh: 50 * time.Millisecond,
			OperatorAccount: account, ReconcileInterval: -1, LongPollRecheck: time.Minute,
			DC: sqs.DCConfig{
				Local: dc, LegacyHome: "dc1", Fences: d.fences, Refresh: 50 * time.Millisecond,
				Epochs: func(dc string) sqs.IndexEpochs { return d.epochs[dc] },
			},
		})
		t.Cleanup(func() { svc.Close(); notifier.Close() })
		d.node[dc] = svc
	}
	return d
}

// tick lets every node's fence and epoch caches expire.
func (d *activeDCs) tick() { d.clock.Advance(100 * time.Millisecond) }

func (d *activeDCs) createQueue(t *testing.T, dc, name string, attrs map[string]string) string {
	t.Helper()
	url, err := d.node[dc].CreateQueue(d.ctx, caller, sqs.CreateQueueInput{QueueName: name, Attributes: attrs})
	wantCode(t, err, "")
	return url
}

func (d *activeDCs) send(t *testing.T, dc, url, body, group string) string {
	t.Helper()
	in := sqs.SendMessageInput{QueueURL: url, MessageBody: body}
	if group != "" {
		in.MessageGroupID, in.MessageDeduplicationID = &group, &body
	}
	out, err := d.node[dc].SendMessage(d.ctx, caller, in)
	wantCode(t, err, "")
	return out.MessageID
}

func (d *activeDCs) receive(t *testing.T, dc, url string, maxN, vis int) []sqs.ReceivedMessage {
	t.Helper()
	out, err := d.node[dc].ReceiveMessage(d.ctx, caller, sqs.ReceiveMessageInput{
		QueueURL: url, MaxNumberOfMessages: &maxN, VisibilityTimeout: &vis,
		MessageSystemAttributeNames: []string{"All"},
	})
	wantCode(t, err, "")
	return out.Messages
}

func (d *activeDCs) deleteMessage(t *testing.T, dc, url, handle string) {
	t.Helper()
	wantCode(t, d.node[dc].DeleteMessage(d.ctx, caller, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: handle}), "")
}

// indexHolds reports whether data center dc's Index holds any state of the
// queue named name.
func (d *activeDCs) indexHolds(t *testing.T, dc, name string) bool {
	t.Helper()
	q, err := d.store.GetQueue(d.ctx, account, name)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.index[dc].Index.Counts(d.ctx, sqs.IndexQueue{ID: q.ID, FIFO: q.Attributes.FifoQueue, Epoch: d.epochs[dc].epoch}, d.clock.Now())
	return err == nil
}

// TestTwoDCsQueueIsServedByItsHomeIndexFromBothDCs: messages sent in either
// data center are received in either, each exactly once, and only the
// home data center's Index holds the queue.
func TestTwoDCsQueueIsServedByItsHomeIndexFromBothDCs(t *testing.T) {
	d := newActiveDCs(t)
	url := d.createQueue(t, "dc1", "shared", nil)
	const n = 60
	for i := range n {
		d.send(t, []string{"dc1", "dc2"}[i%2], url, fmt.Sprintf("m%02d", i), "")
	}
	seen := map[string]int{}
	for round := 0; len(seen) < n && round < 50; round++ {
		dc := []string{"dc2", "dc1"}[round%2]
		for _, m := range d.receive(t, dc, url, 7, 30) {
			seen[m.Body]++
			if got := m.Attributes["ApproximateReceiveCount"]; got != "1" {
				t.Errorf("%s received in %s with receive count %s, want 1", m.Body, dc, got)
			}
			// Delete through the other data center.
			d.deleteMessage(t, map[string]string{"dc1": "dc2", "dc2": "dc1"}[dc], url, m.ReceiptHandle)
		}
	}
	if len(seen) != n {
		t.Fatalf("received %d distinct messages, want %d", len(seen), n)
	}
	for body, k := range seen {
		if k != 1 {
			t.Errorf("%s received %d times, want once", body, k)
		}
	}
	d.clock.Advance(time.Minute)
	for _, dc := range []string{"dc1", "dc2"} {
		if got := d.receive(t, dc, url, 10, 30); len(got) != 0 {
			t.Errorf("%s received %d messages after every one was deleted through the other data center", dc, len(got))
		}
	}
	if !d.indexHolds(t, "dc1", "shared") || d.indexHolds(t, "dc2", "shared") {
		t.Errorf("index state of the dc1 queue: in dc1 %v, in dc2 %v; want only in dc1", d.indexHolds(t, "dc1", "shared"), d.indexHolds(t, "dc2", "shared"))
	}
}

// TestTwoDCsFIFOGroupKeepsSendOrderAcrossDCs: sends of one group from both
// data centers come out in send order, whichever data center receives.
func TestTwoDCsFIFOGroupKeepsSendOrderAcrossDCs(t *testing.T) {
	d := newActiveDCs(t)
	url := d.createQueue(t, "dc2", "order.fifo", map[string]string{"FifoQueue": "true"})
	var want []string
	for i := range 30 {
		body := fmt.Sprintf("m%02d", i)
		d.send(t, []string{"dc1", "dc2"}[i%3%2], url, body, "g")
		want = append(want, body)
	}
	var got []string
	for round := 0; len(got) < len(want) && round < 40; round++ {
		dc := []string{"dc1", "dc2"}[round%2]
		for _, m := range d.receive(t, dc, url, 4, 30) {
			got = append(got, m.Body)
			d.deleteMessage(t, dc, url, m.ReceiptHandle)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("received %v, want %v", got, want)
	}
}

// TestTwoDCsVisibilityAndReceiveCountsHoldAcrossDCs: a message received in
// one data center is invisible in the other, a visibility change through
// the other data center's node applies, and the receive count goes on.
func TestTwoDCsVisibilityAndReceiveCountsHoldAcrossDCs(t *testing.T) {
	d := newActiveDCs(t)
	url := d.createQueue(t, "dc1", "vis", nil)
	d.send(t, "dc2", url, "one", "")
	got := d.receive(t, "dc1", url, 1, 30)
	if len(got) != 1 {
		t.Fatalf("dc1 received %d, want 1", len(got))
	}
	if again := d.receive(t, "dc2", url, 1, 30); len(again) != 0 {
		t.Fatalf("dc2 received %q while it was in flight from dc1", again[0].Body)
	}
	err := d.node["dc2"].ChangeMessageVisibility(d.ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: url, ReceiptHandle: got[0].ReceiptHandle, VisibilityTimeout: ptr(0)})
	wantCode(t, err, "")
	again := d.receive(t, "dc2", url, 1, 30)
	if len(again) != 1 || again[0].Attributes["ApproximateReceiveCount"] != "2" {
		t.Fatalf("dc2 after the visibility change through it: %v, want the message with receive count 2", again)
	}
}

// TestTwoDCsLongPollWakesOnASendInTheOtherDC: a long poll in dc2 on a dc1
// queue returns as soon as dc1 sends, not at its recheck (a minute).
func TestTwoDCsLongPollWakesOnASendInTheOtherDC(t *testing.T) {
	d := newActiveDCs(t)
	url := d.createQueue(t, "dc1", "wake", nil)
	got := make(chan []sqs.ReceivedMessage, 1)
	go func() {
		out, err := d.node["dc2"].ReceiveMessage(d.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, WaitTimeSeconds: ptr(20)})
		if err != nil {
			t.Error(err)
		}
		got <- out.Messages
	}()
	// The poll subscribes before it looks; give it the time to.
	time.Sleep(100 * time.Millisecond)
	d.send(t, "dc1", url, "wake up", "")
	select {
	case msgs := <-got:
		if len(msgs) != 1 {
			t.Fatalf("the long poll returned %d messages, want 1", len(msgs))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the long poll in dc2 did not wake on dc1's send")
	}
}

// TestTwoDCsNoDegradedReceiveOfAnotherDCsQueue: while dc1's Index is out
// of dc2's reach, dc2 does not serve dc1's queue from the Store (dc1 may
// still serve it), and says so.
func TestTwoDCsNoDegradedReceiveOfAnotherDCsQueue(t *testing.T) {
	d := newActiveDCs(t)
	url := d.createQueue(t, "dc1", "cut", nil)
	d.send(t, "dc1", url, "one", "")
	d.index["dc1"].down.Store(true)
	vis := 30
	_, err := d.node["dc2"].ReceiveMessage(d.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, VisibilityTimeout: &vis})
	wantCode(t, err, sqs.CodeServiceUnavailable)
	if n := d.node["dc2"].Stats().DegradedReceives.Load(); n != 0 {
		t.Errorf("dc2 served %d degraded receives of dc1's queue", n)
	}
	// dc1 itself falls back to the Store, as in one data center.
	if got := d.receive(t, "dc1", url, 1, 30); len(got) != 1 {
		t.Errorf("dc1 received %d in degraded mode, want 1", len(got))
	}
}

// TestTwoDCsClaimOfAMessageNotYetReplicatedIsHandedBack: a claim whose
// message the receiving data center's replicas do not have yet is handed
// back, not forgotten, and delivered once it has replicated.
func TestTwoDCsClaimOfAMessageNotYetReplicatedIsHandedBack(t *testing.T) {
	d := newActiveDCs(t)
	url := d.createQueue(t, "dc1", "lag", nil)
	id := uuid.MustParse(d.send(t, "dc1", url, "late", ""))
	d.store.hide(id, true)
	if got := d.receive(t, "dc2", url, 1, 30); len(got) != 0 {
		t.Fatalf("received %d of a message the replicas do not have", len(got))
	}
	d.store.hide(id, false)
	d.clock.Advance(2 * time.Second)
	if got := d.receive(t, "dc2", url, 1, 30); len(got) != 1 || got[0].MessageID != id.String() {
		t.Fatalf("after replication: received %v, want the message", got)
	}
}

// TestTwoDCsFenceMovesQueuesAndUnfenceBringsThemBack: dc1 is lost with
// messages in flight; fenced from dc2, its queue is served by dc2's Index,
// rebuilt from the Store with its states (in flight stays in flight);
// unfenced, dc1 serves it again from a fresh state, including what was
// sent during the fence, and nothing is stranded behind dc1's old state.
func TestTwoDCsFenceMovesQueuesAndUnfenceBringsThemBack(t *testing.T) {
	d := newActiveDCs(t)
	url := d.createQueue(t, "dc1", "failover", nil)
	for i := range 10 {
		d.send(t, "dc1", url, fmt.Sprintf("m%d", i), "")
	}
	inFlight := d.receive(t, "dc1", url, 3, 60)
	if len(inFlight) != 3 {
		t.Fatalf("received %d, want 3", len(inFlight))
	}
	// dc1 dies: its Index is out of reach.
	d.index["dc1"].down.Store(true)
	vis := 30
	_, err := d.node["dc2"].ReceiveMessage(d.ctx, caller, sqs.ReceiveMessageInput{QueueURL: url, VisibilityTimeout: &vis})
	wantCode(t, err, sqs.CodeServiceUnavailable)

	operator := caller
	st, err := d.node["dc2"].FenceDC(d.ctx, operator, "dc1")
	wantCode(t, err, "")
	if st.Fenced["dc1"] != "dc2" {
		t.Fatalf("after the fence: %+v", st)
	}
	_, err = d.node["dc2"].FenceDC(d.ctx, operator, "dc2")
	wantCode(t, err, sqs.CodeInvalidParameterValue)
	d.tick()
	got := d.receive(t, "dc2", url, 10, 30)
	if len(got) != 7 {
		t.Fatalf("dc2 after the fence received %d, want the 7 not in flight", len(got))
	}
	for _, m := range got {
		d.deleteMessage(t, "dc2", url, m.ReceiptHandle)
	}
	d.send(t, "dc2", url, "during the fence", "")
	d.clock.Advance(61 * time.Second)
	back := d.receive(t, "dc2", url, 10, 30)
	if len(back) != 4 {
		t.Fatalf("dc2 after the visibility timeout received %d, want the 3 in flight and the one sent", len(back))
	}
	for _, m := range back {
		if m.Body != "during the fence" && m.Attributes["ApproximateReceiveCount"] != "2" {
			t.Errorf("%s: receive count %s, want 2 (dc1's receive kept)", m.Body, m.Attributes["ApproximateReceiveCount"])
		}
	}
	// dc1 comes back, its Redis with its old state, and is unfenced; the
	// message sent during the fence and not deleted must come out of it.
	d.send(t, "dc2", url, "just before the unfence", "")
	d.index["dc1"].down.Store(false)
	st, err = d.node["dc2"].UnfenceDC(d.ctx, operator, "dc1")
	wantCode(t, err, "")
	if len(st.Fenced) != 0 {
		t.Fatalf("after the unfence: %+v", st)
	}
	d.clock.Advance(31 * time.Second)
	seen := map[string]bool{}
	for _, dc := range []string{"dc1", "dc2", "dc1"} {
		for _, m := range d.receive(t, dc, url, 10, 30) {
			if seen[m.Body] {
				t.Errorf("%s received twice after the unfence", m.Body)
			}
			seen[m.Body] = true
		}
	}
	if len(seen) != 5 || !seen["just before the unfence"] || !seen["during the fence"] {
		t.Errorf("after the unfence received %v, want the 5 undeleted messages", seen)
	}
	if !d.indexHolds(t, "dc1", "failover") {
		t.Error("dc1's Index does not serve its queue after the unfence")
	}
}

// TestTwoDCsUnfenceRebuildsAfterEveryNodeSwitched: during an unfence, a
// node that has not yet seen it still sends into the taker's Index; the
// returning data center, rebuilt once already, rebuilds again once every
// node has switched (the second epoch bump), so that message is not
// stranded.
func TestTwoDCsUnfenceRebuildsAfterEveryNodeSwitched(t *testing.T) {
	d := newActiveDCs(t)
	url := d.createQueue(t, "dc1", "switch", nil)
	d.send(t, "dc1", url, "before", "")
	_, err := d.node["dc2"].FenceDC(d.ctx, caller, "dc1")
	wantCode(t, err, "")
	d.tick()
	if got := d.receive(t, "dc2", url, 10, 0); len(got) != 1 {
		t.Fatalf("dc2 during the fence received %d, want 1", len(got))
	}
	// Hold dc1's second bump (the unfence's last step) until the window
	// below is done.
	reached, release := make(chan struct{}), make(chan struct{})
	d.epochs["dc1"].beforeBump = func(epoch uint64) {
		if epoch == 1 {
			close(reached)
			<-release
		}
	}
	done := make(chan error, 1)
	// The unfence runs on dc1's node; dc2's node reads the fences only
	// when its refresh comes, and the fake clock stands still.
	go func() {
		_, err := d.node["dc1"].UnfenceDC(d.ctx, caller, "dc1")
		done <- err
	}()
	select {
	case <-reached:
	case err := <-done:
		t.Fatalf("the unfence ended (%v) without bumping dc1's epoch a second time", err)
	}
	if got := d.receive(t, "dc1", url, 10, 0); len(got) != 1 {
		t.Fatalf("dc1 after the unfence received %d, want 1", len(got))
	}
	d.send(t, "dc2", url, "in the window", "")
	close(release)
	wantCode(t, <-done, "")
	d.tick()
	seen := map[string]bool{}
	for _, dc := range []string{"dc1", "dc2"} {
		for _, m := range d.receive(t, dc, url, 10, 30) {
			seen[m.Body] = true
		}
	}
	if !seen["before"] || !seen["in the window"] {
		t.Errorf("after the unfence received %v, want both messages", seen)
	}
}

// TestTwoDCsFenceIsForTheOperatorOnly: only the operator account may
// fence, and not on a node of one data center.
func TestTwoDCsFenceIsForTheOperatorOnly(t *testing.T) {
	d := newActiveDCs(t)
	other := caller
	other.Account = "111111111111"
	_, err := d.node["dc2"].FenceDC(d.ctx, other, "dc1")
	wantCode(t, err, sqs.CodeAccessDenied)
	e := newEnv(t, func(c *sqs.Config) { c.OperatorAccount = account })
	_, err = e.svc.FenceDC(e.ctx, caller, "dc1")
	wantCode(t, err, sqs.CodeUnsupportedOperation)
}
