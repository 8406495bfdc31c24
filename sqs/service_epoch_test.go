package sqs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

// fakeEpochs is one data center's index epoch (sqs.IndexEpochs), as the
// Cassandra table keeps it, counting reads.
type fakeEpochs struct {
	mu    sync.Mutex
	epoch uint64
	reads int
	// beforeBump, when set, runs before a bump with the epoch it raises.
	beforeBump func(epoch uint64)
}

func (f *fakeEpochs) IndexEpoch(context.Context) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	return f.epoch, nil
}

func (f *fakeEpochs) BumpIndexEpoch(context.Context) (uint64, error) {
	f.mu.Lock()
	if f.beforeBump != nil {
		e := f.epoch
		f.mu.Unlock()
		f.beforeBump(e)
		f.mu.Lock()
	}
	defer f.mu.Unlock()
	f.epoch++
	return f.epoch, nil
}

func (f *fakeEpochs) readCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads
}

// twoDCs is one Store (Cassandra, replicated) under two data centers, each
// with its own Index (its own Redis) and index epoch; dc1 has two nodes.
type twoDCs struct {
	ctx       context.Context
	clock     *fakeClock
	dc1, dc1b *sqs.Service // two nodes of dc1: one Index, one epoch
	dc2       *sqs.Service
	epochs1   *fakeEpochs
	url       string
}

func newTwoDCs(t *testing.T) *twoDCs {
	t.Helper()
	clock := &fakeClock{t: time.Now().Truncate(time.Millisecond)}
	store := sqsmem.NewStore()
	d := &twoDCs{ctx: context.Background(), clock: clock, epochs1: &fakeEpochs{}}
	index1 := sqsmem.NewIndex(sqsmem.IndexOptions{Clock: clock.Now})
	index2 := sqsmem.NewIndex(sqsmem.IndexOptions{Clock: clock.Now})
	node := func(index sqs.Index, epochs sqs.IndexEpochs) *sqs.Service {
		svc := sqs.NewService(store, index, sqsmem.NewNotifier(), sqs.Config{
			Clock: clock.Now, IndexEpochs: epochs, IndexEpochRefresh: 5 * time.Second, OperatorAccount: account,
			ReconcileInterval: -1,
		})
		t.Cleanup(func() { svc.Close() })
		return svc
	}
	d.dc1, d.dc1b = node(index1, d.epochs1), node(index1, d.epochs1)
	d.dc2 = node(index2, &fakeEpochs{})
	url, err := d.dc1.CreateQueue(d.ctx, caller, sqs.CreateQueueInput{QueueName: "switch-back"})
	wantCode(t, err, "")
	d.url = url
	return d
}

func (d *twoDCs) send(t *testing.T, svc *sqs.Service, body string) {
	t.Helper()
	_, err := svc.SendMessage(d.ctx, caller, sqs.SendMessageInput{QueueURL: d.url, MessageBody: body})
	wantCode(t, err, "")
}

// take receives (and deletes) what svc hands out now.
func (d *twoDCs) take(t *testing.T, svc *sqs.Service) []string {
	t.Helper()
	out, err := svc.ReceiveMessage(d.ctx, caller, sqs.ReceiveMessageInput{QueueURL: d.url, MaxNumberOfMessages: ptr(10), WaitTimeSeconds: ptr(0)})
	wantCode(t, err, "")
	for _, m := range out.Messages {
		wantCode(t, svc.DeleteMessage(d.ctx, caller, sqs.DeleteMessageInput{QueueURL: d.url, ReceiptHandle: m.ReceiptHandle}), "")
	}
	return bodies(out.Messages)
}

func wantBodies(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %q, want %q", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: got %q, want %q", what, got, want)
		}
	}
}

// strand builds dc1's Index state of the queue, then sends a message
// through dc2 (a fail-over): dc1's Index, marked built, never learns of it.
func (d *twoDCs) strand(t *testing.T) {
	t.Helper()
	d.send(t, d.dc1, "before")
	wantBodies(t, "dc1 before the fail-over", d.take(t, d.dc1), "before")
	d.send(t, d.dc2, "while dc1 was away")
	wantBodies(t, "dc1 after the switch-back, without a reindex (stranded)", d.take(t, d.dc1))
}

// TestReindexDeliversStrandedMessages: after a switch-back, the message
// sent through the other data center is stranded in the Store until
// Reindex bumps dc1's epoch; the bumping node then rebuilds the queue at
// once and delivers it, and dc1's other node, whose epoch is still the old
// one, is told its epoch is stale, reads it again and goes on (sending
// and receiving under the new epoch) without dropping the rebuilt state.
func TestReindexDeliversStrandedMessages(t *testing.T) {
	d := newTwoDCs(t)
	wantBodies(t, "dc1's second node before", d.take(t, d.dc1b)) // reads epoch 0
	d.strand(t)
	epoch, err := d.dc1.Reindex(d.ctx, caller)
	wantCode(t, err, "")
	if epoch != 1 {
		t.Fatalf("Reindex = %d, want 1", epoch)
	}
	wantBodies(t, "dc1 after the reindex", d.take(t, d.dc1), "while dc1 was away")
	reads := d.epochs1.readCount()
	d.send(t, d.dc1b, "through the second node")
	wantBodies(t, "dc1's second node after the reindex", d.take(t, d.dc1b), "through the second node")
	if got := d.epochs1.readCount() - reads; got != 1 {
		t.Errorf("the second node read the epoch %d times on ErrStaleEpoch, want 1", got)
	}
	wantBodies(t, "dc1 afterwards", d.take(t, d.dc1))
}

// TestIndexEpochReadEveryRefresh: a bump made elsewhere (another node of
// the data center ran the reindex) reaches a node within
// IndexEpochRefresh: before it the node still serves its old state, after
// it the node rebuilds the queue and delivers the stranded message.
func TestIndexEpochReadEveryRefresh(t *testing.T) {
	d := newTwoDCs(t)
	d.strand(t)
	if _, err := d.epochs1.BumpIndexEpoch(d.ctx); err != nil {
		t.Fatal(err)
	}
	d.clock.Advance(4 * time.Second)
	wantBodies(t, "dc1 within the refresh interval", d.take(t, d.dc1))
	d.clock.Advance(time.Second)
	wantBodies(t, "dc1 once the interval passed", d.take(t, d.dc1), "while dc1 was away")
}

// TestReindexAuthorization: only callers of the operator account may bump
// the epoch, and only an engine with one has it.
func TestReindexAuthorization(t *testing.T) {
	tests := []struct {
		name   string
		caller sqs.Caller
		epochs sqs.IndexEpochs
		want   string
	}{
		{"operator account", caller, &fakeEpochs{}, ""},
		{"another account", sqs.Caller{Account: "111111111111", SenderID: "AKIDOTHER"}, &fakeEpochs{}, sqs.CodeAccessDenied},
		{"a service principal", sqs.Caller{Account: account, Service: "sns.amazonaws.com"}, &fakeEpochs{}, sqs.CodeAccessDenied},
		{"internal caller", sqs.InternalCaller("herald-sns"), &fakeEpochs{}, sqs.CodeAccessDenied},
		{"embedded engine (no epochs)", caller, nil, sqs.CodeUnsupportedOperation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sqs.Config{OperatorAccount: account, IndexEpochs: tc.epochs}
			svc := sqs.NewService(sqsmem.NewStore(), sqsmem.NewIndex(sqsmem.IndexOptions{}), sqsmem.NewNotifier(), cfg)
			t.Cleanup(func() { svc.Close() })
			_, err := svc.Reindex(context.Background(), tc.caller)
			wantCode(t, err, tc.want)
		})
	}
}
