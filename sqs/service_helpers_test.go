package sqs_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

const account = "000000000000"

var caller = sqs.Caller{Account: account, SenderID: "AKIDTEST", Scheme: "http", Host: "localhost:4566"}

// fakeClock is a settable clock shared by the Service and the Index.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// flakyIndex wraps an Index: it counts Receive calls and, while down, fails
// every call with an EUnavailable error as an unreachable Redis would.
type flakyIndex struct {
	sqs.Index
	down     atomic.Bool
	receives atomic.Int64
	drops    atomic.Int64
	// onAdd, when set, runs after every Add that succeeded: a test places
	// a fault (a loss of the Index's data) at an exact step of a rebuild.
	onAdd atomic.Pointer[func(ctx context.Context, q sqs.IndexQueue)]
}

func (x *flakyIndex) fail() error {
	if x.down.Load() {
		return herald.Unavailable("index", context.DeadlineExceeded)
	}
	return nil
}

func (x *flakyIndex) Add(ctx context.Context, q sqs.IndexQueue, e []sqs.Entry) error {
	if err := x.fail(); err != nil {
		return err
	}
	if err := x.Index.Add(ctx, q, e); err != nil {
		return err
	}
	if f := x.onAdd.Load(); f != nil {
		(*f)(ctx, q)
	}
	return nil
}

func (x *flakyIndex) Receive(ctx context.Context, q sqs.IndexQueue, r sqs.ReceiveRequest) (sqs.ReceiveResult, error) {
	x.receives.Add(1)
	if err := x.fail(); err != nil {
		return sqs.ReceiveResult{}, err
	}
	return x.Index.Receive(ctx, q, r)
}

func (x *flakyIndex) Remove(ctx context.Context, q sqs.IndexQueue, ids []uuid.UUID) error {
	if err := x.fail(); err != nil {
		return err
	}
	return x.Index.Remove(ctx, q, ids)
}

func (x *flakyIndex) SetVisibleAt(ctx context.Context, q sqs.IndexQueue, id uuid.UUID, receiveCount int, now, at time.Time) error {
	if err := x.fail(); err != nil {
		return err
	}
	return x.Index.SetVisibleAt(ctx, q, id, receiveCount, now, at)
}

func (x *flakyIndex) Counts(ctx context.Context, q sqs.IndexQueue, now time.Time) (sqs.Counts, error) {
	if err := x.fail(); err != nil {
		return sqs.Counts{}, err
	}
	return x.Index.Counts(ctx, q, now)
}

func (x *flakyIndex) Drop(ctx context.Context, q sqs.IndexQueue) error {
	if err := x.fail(); err != nil {
		return err
	}
	x.drops.Add(1)
	return x.Index.Drop(ctx, q)
}

func (x *flakyIndex) MarkBuilt(ctx context.Context, q sqs.IndexQueue) error {
	if err := x.fail(); err != nil {
		return err
	}
	return x.Index.MarkBuilt(ctx, q)
}

func (x *flakyIndex) LockRebuild(ctx context.Context, q sqs.IndexQueue, lease time.Duration) (sqs.RebuildLease, bool, error) {
	if err := x.fail(); err != nil {
		return nil, false, err
	}
	l, ok, err := x.Index.LockRebuild(ctx, q, lease)
	if err != nil || !ok {
		return l, ok, err
	}
	return flakyLease{l, x, q}, true, nil
}

// flakyLease fails its Commit, Progress and Add while its Index is down,
// and runs the Index's onAdd hook after every Add that succeeded.
type flakyLease struct {
	sqs.RebuildLease
	x *flakyIndex
	q sqs.IndexQueue
}

func (l flakyLease) Add(ctx context.Context, e []sqs.Entry, position string) error {
	if err := l.x.fail(); err != nil {
		return err
	}
	if err := l.RebuildLease.Add(ctx, e, position); err != nil {
		return err
	}
	if f := l.x.onAdd.Load(); f != nil {
		(*f)(ctx, l.q)
	}
	return nil
}

func (l flakyLease) Progress(ctx context.Context) (string, error) {
	if err := l.x.fail(); err != nil {
		return "", err
	}
	return l.RebuildLease.Progress(ctx)
}

func (l flakyLease) Commit(ctx context.Context) error {
	if err := l.x.fail(); err != nil {
		return err
	}
	return l.RebuildLease.Commit(ctx)
}

func (x *flakyIndex) Deduplicate(ctx context.Context, q sqs.IndexQueue, key string, id uuid.UUID, w time.Duration) (uuid.UUID, bool, error) {
	if err := x.fail(); err != nil {
		return uuid.Nil, false, err
	}
	return x.Index.Deduplicate(ctx, q, key, id, w)
}

// countingStore counts MarkUnindexed calls.
type countingStore struct {
	*sqsmem.Store
	marked    atomic.Int64
	scanned   atomic.Int64 // messages read by ScanMessages
	failScans atomic.Bool
	onScan    atomic.Pointer[func()] // runs after every successful scan
}

// ScanMessages counts the scans and the messages they read, and fails
// every scan while failScans is set (a Store failing mid-rebuild).
func (s *countingStore) ScanMessages(ctx context.Context, q *sqs.Queue, shard int, after uuid.UUID, limit int) ([]*sqs.Message, error) {
	if s.failScans.Load() {
		return nil, herald.Unavailable("scan messages", context.DeadlineExceeded)
	}
	page, err := s.Store.ScanMessages(ctx, q, shard, after, limit)
	s.scanned.Add(int64(len(page)))
	if f := s.onScan.Load(); f != nil {
		(*f)()
	}
	return page, err
}

func (s *countingStore) MarkUnindexed(ctx context.Context, id uuid.UUID) error {
	s.marked.Add(1)
	return s.Store.MarkUnindexed(ctx, id)
}

// env is a Service on the in-memory Store, Index and Notifier.
type env struct {
	svc   *sqs.Service
	store *countingStore
	index *flakyIndex
	clock *fakeClock // nil with realClock
	ctx   context.Context
}

type envOption func(*sqs.Config)

// realClock runs the Service on the wall clock, for long-poll tests.
func realClock(c *sqs.Config) { c.Clock = nil }

func shards(n int) envOption { return func(c *sqs.Config) { c.Shards = n } }

// recheck sets how long a long poll sleeps without a notification.
func recheck(d time.Duration) envOption { return func(c *sqs.Config) { c.LongPollRecheck = d } }

func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	clock := &fakeClock{t: time.Now().Truncate(time.Millisecond)}
	cfg := sqs.Config{Clock: clock.Now}
	for _, o := range opts {
		o(&cfg)
	}
	e := &env{store: &countingStore{Store: sqsmem.NewStore()}, ctx: context.Background()}
	idxClock := clock.Now
	if cfg.Clock == nil {
		clock, idxClock = nil, time.Now
	}
	e.clock = clock
	e.index = &flakyIndex{Index: sqsmem.NewIndex(sqsmem.IndexOptions{Clock: idxClock})}
	e.svc = sqs.NewService(e.store, e.index, sqsmem.NewNotifier(), cfg)
	t.Cleanup(func() { e.svc.Close() })
	return e
}

func (e *env) advance(d time.Duration) { e.clock.Advance(d) }

// redeploy returns a new Service on e's Store and Index, as after a
// restart with other flags: the options configure it as newEnv's do.
func (e *env) redeploy(t *testing.T, opts ...envOption) *env {
	t.Helper()
	cfg := sqs.Config{Clock: time.Now}
	if e.clock != nil {
		cfg.Clock = e.clock.Now
	}
	for _, o := range opts {
		o(&cfg)
	}
	next := *e
	next.svc = sqs.NewService(e.store, e.index, sqsmem.NewNotifier(), cfg)
	t.Cleanup(func() { next.svc.Close() })
	return &next
}

// wantCode checks that err is exactly an *sqs.Error of code, or nil for "".
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	se, ok := err.(*sqs.Error)
	if !ok {
		t.Fatalf("error %v (%T) is not an *sqs.Error, want %s", err, err, code)
	}
	if se.Code != code {
		t.Fatalf("error code %s (%v), want %s", se.Code, se, code)
	}
}

func (e *env) createQueue(t *testing.T, name string, attrs map[string]string) string {
	t.Helper()
	url, err := e.svc.CreateQueue(e.ctx, caller, sqs.CreateQueueInput{QueueName: name, Attributes: attrs})
	wantCode(t, err, "")
	return url
}

func (e *env) send(t *testing.T, url, body string) sqs.SendMessageOutput {
	t.Helper()
	out, err := e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: body})
	wantCode(t, err, "")
	return out
}

func (e *env) sendFIFO(t *testing.T, url, body, group, dedup string) sqs.SendMessageOutput {
	t.Helper()
	out, err := e.svc.SendMessage(e.ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: body, MessageGroupID: &group, MessageDeduplicationID: optional(dedup)})
	wantCode(t, err, "")
	return out
}

// receive receives without waiting, with all system attributes.
func (e *env) receive(t *testing.T, url string, maxN int, vis *int) []sqs.ReceivedMessage {
	t.Helper()
	zero := 0
	out, err := e.svc.ReceiveMessage(e.ctx, caller, sqs.ReceiveMessageInput{
		QueueURL: url, MaxNumberOfMessages: &maxN, VisibilityTimeout: vis, WaitTimeSeconds: &zero,
		MessageSystemAttributeNames: []string{"All"}, MessageAttributeNames: []string{"All"},
	})
	wantCode(t, err, "")
	return out.Messages
}

func (e *env) deleteMessage(t *testing.T, url, handle string) {
	t.Helper()
	wantCode(t, e.svc.DeleteMessage(e.ctx, caller, sqs.DeleteMessageInput{QueueURL: url, ReceiptHandle: handle}), "")
}

func (e *env) attributes(t *testing.T, url string, names ...string) map[string]string {
	t.Helper()
	attrs, err := e.svc.GetQueueAttributes(e.ctx, caller, sqs.GetQueueAttributesInput{QueueURL: url, AttributeNames: names})
	wantCode(t, err, "")
	return attrs
}

func bodies(msgs []sqs.ReceivedMessage) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Body
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// optional is &s, or nil (absent) for "".
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// queueID returns the stored ID of a queue of the test account.
func queueID(t *testing.T, e *env, name string) uuid.UUID {
	t.Helper()
	return storedQueue(t, e, name).ID
}

// storedQueue returns the stored record of a queue of the test account.
func storedQueue(t *testing.T, e *env, name string) *sqs.Queue {
	t.Helper()
	q, err := e.store.GetQueue(e.ctx, account, name)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
