package sns_test

import (
	"context"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sns/snsmem"
	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

const account = "000000000000"

var caller = sns.Caller{Account: account, SenderID: "AKIDTEST", Scheme: "http", Host: "localhost:4566"}

// fakeHTTP records http deliveries and confirmations; an endpoint fails
// as many times as fails[endpoint] says (-1: always).
type fakeHTTP struct {
	mu            sync.Mutex
	fails         map[string]int
	attempts      map[string][]time.Time
	delivered     map[string][]sns.Notification
	confirmations map[string][]sns.Confirmation
}

func newFakeHTTP() *fakeHTTP {
	return &fakeHTTP{fails: map[string]int{}, attempts: map[string][]time.Time{},
		delivered: map[string][]sns.Notification{}, confirmations: map[string][]sns.Confirmation{}}
}

func (f *fakeHTTP) Deliver(ctx context.Context, t sns.Target, n sns.Notification) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.attempts[t.Endpoint] = append(f.attempts[t.Endpoint], time.Now())
	if n := f.fails[t.Endpoint]; n != 0 {
		if n > 0 {
			f.fails[t.Endpoint]--
		}
		return errors.New("endpoint answered 500")
	}
	f.delivered[t.Endpoint] = append(f.delivered[t.Endpoint], n)
	return nil
}

func (f *fakeHTTP) SendConfirmation(ctx context.Context, t sns.Target, c sns.Confirmation) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.confirmations[t.Endpoint] = append(f.confirmations[t.Endpoint], c)
	return nil
}

func (f *fakeHTTP) count(endpoint string) (attempts, delivered int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.attempts[endpoint]), len(f.delivered[endpoint])
}

func (f *fakeHTTP) confirmation(endpoint string) (sns.Confirmation, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.confirmations[endpoint]
	if len(c) == 0 {
		return sns.Confirmation{}, false
	}
	return c[0], true
}

// fakePaths records notifications put at cache paths.
type fakePaths struct {
	mu  sync.Mutex
	got map[string][]sns.Notification
}

func (f *fakePaths) PutNotification(ctx context.Context, path string, n sns.Notification) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.got == nil {
		f.got = map[string][]sns.Notification{}
	}
	f.got[path] = append(f.got[path], n)
	return nil
}

func (f *fakePaths) get(path string) []sns.Notification {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sns.Notification(nil), f.got[path]...)
}

// env is an SNS Service on snsmem and a real SQS Service on sqsmem.
type env struct {
	svc    *sns.Service
	queues *sqs.Service
	store  *snsmem.Store
	st     sns.Store // the store the Services use: store unless withStore
	http   *fakeHTTP
	paths  *fakePaths
	cfg    sns.Config
	ctx    context.Context
}

type option func(*sns.Config)

func newEnv(t *testing.T, opts ...option) *env {
	t.Helper()
	return newEnvOn(t, nil, opts...)
}

// newEnvOn is newEnv with the Services on st (nil: an snsmem.Store).
func newEnvOn(t *testing.T, st sns.Store, opts ...option) *env {
	t.Helper()
	queues := sqs.NewService(sqsmem.NewStore(), sqsmem.NewIndex(sqsmem.IndexOptions{}), sqsmem.NewNotifier(), sqs.Config{})
	t.Cleanup(func() { queues.Close() })
	e := &env{queues: queues, store: snsmem.NewStore(), http: newFakeHTTP(), paths: &fakePaths{}, ctx: context.Background()}
	e.cfg = sns.Config{
		Queues: queues, HTTP: e.http, Paths: e.paths, Workers: 2, PollWait: time.Second,
		PublishVisibility: 2 * time.Second, DeliveryVisibility: 2 * time.Second,
		ConfirmDelay: 10 * time.Millisecond,
	}
	e.st = e.store
	if st != nil {
		e.st = st
	}
	for _, o := range opts {
		o(&e.cfg)
	}
	e.svc = e.newNode(t, e.cfg)
	return e
}

// newNode starts another Service on the same stores (another Herald node).
func (e *env) newNode(t *testing.T, cfg sns.Config) *sns.Service {
	t.Helper()
	svc := sns.NewService(e.st, cfg)
	t.Cleanup(func() { svc.Close() })
	return svc
}

// run starts the workers of svc until the test ends (or cancel is called).
func run(t *testing.T, svc *sns.Service) (cancel func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { svc.Run(ctx); close(done) }()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return cancel
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	se, ok := err.(*sns.Error)
	if !ok {
		t.Fatalf("error %v (%T) is not an *sns.Error, want %s", err, err, code)
	}
	if se.Code != code {
		t.Fatalf("error code %s (%v), want %s", se.Code, se, code)
	}
}

func (e *env) createTopic(t *testing.T, name string, attrs map[string]string) string {
	t.Helper()
	arn, err := e.svc.CreateTopic(e.ctx, caller, sns.CreateTopicInput{Name: name, Attributes: attrs})
	wantCode(t, err, "")
	return arn
}

func (e *env) subscribe(t *testing.T, topic, protocol, endpoint string, attrs map[string]string) string {
	t.Helper()
	arn, err := e.svc.Subscribe(e.ctx, caller, sns.SubscribeInput{TopicARN: topic, Protocol: protocol, Endpoint: endpoint,
		Attributes: attrs, ReturnSubscriptionARN: true})
	wantCode(t, err, "")
	return arn
}

func (e *env) publish(t *testing.T, in sns.PublishInput) sns.PublishOutput {
	t.Helper()
	out, err := e.svc.Publish(e.ctx, caller, in)
	wantCode(t, err, "")
	return out
}

// createQueue creates a subscriber queue and returns its ARN.
func (e *env) createQueue(t *testing.T, name string, attrs map[string]string) string {
	t.Helper()
	_, err := e.queues.CreateQueue(e.ctx, sqs.Caller{Account: account}, sqs.CreateQueueInput{QueueName: name, Attributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	return sqs.QueueARN("us-east-1", account, name)
}

// drain receives (and deletes) everything now in a subscriber queue.
func (e *env) drain(t *testing.T, name string) []sqs.ReceivedMessage {
	t.Helper()
	var all []sqs.ReceivedMessage
	for {
		n, wait := 10, 0
		out, err := e.queues.ReceiveMessage(e.ctx, sqs.Caller{Account: account}, sqs.ReceiveMessageInput{
			QueueURL: "/" + account + "/" + name, MaxNumberOfMessages: &n, WaitTimeSeconds: &wait,
			MessageAttributeNames: []string{"All"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			return all
		}
		for _, m := range out.Messages {
			if err := e.queues.DeleteMessage(e.ctx, sqs.Caller{Account: account}, sqs.DeleteMessageInput{
				QueueURL: "/" + account + "/" + name, ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
		all = append(all, out.Messages...)
	}
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// wantError checks err is the *sns.Error of code with exactly message.
func wantError(t *testing.T, err error, code, message string) {
	t.Helper()
	wantCode(t, err, code)
	if se := err.(*sns.Error); se.Message != message {
		t.Fatalf("error message %q, want %q", se.Message, message)
	}
}

// ptr is a pointer to v, for optional inputs.
func ptr[T any](v T) *T { return &v }
