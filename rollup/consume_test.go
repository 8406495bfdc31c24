package rollup_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/rollup"
	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

const account = "000000000000"

var owner = sqs.Caller{Account: account, SenderID: account, Scheme: "http", Host: "localhost"}

// queueEnv is a rollup service consuming queues of a real SQS service (on
// the in-memory queue engine) into a Pebble rollup store.
type queueEnv struct {
	queues *sqs.Service
	svc    *rollup.Service
	ctx    context.Context
}

func newQueueEnv(t *testing.T) *queueEnv {
	t.Helper()
	return newQueueEnvWith(t, func(s rollup.Store) rollup.Store { return s })
}

// newQueueEnvWith is newQueueEnv with the rollup store wrapped by wrap.
func newQueueEnvWith(t *testing.T, wrap func(rollup.Store) rollup.Store) *queueEnv {
	t.Helper()
	queues := sqs.NewService(sqsmem.NewStore(), sqsmem.NewIndex(sqsmem.IndexOptions{}), sqsmem.NewNotifier(), sqs.Config{})
	t.Cleanup(func() { queues.Close() })
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := rollup.NewService(rollup.Config{Store: wrap(db.Rollups()), DefaultAccount: account, Queues: queues,
		FlushInterval: 50 * time.Millisecond, SourcesInterval: 50 * time.Millisecond})
	return &queueEnv{queues: queues, svc: svc, ctx: context.Background()}
}

func (e *queueEnv) createQueue(t *testing.T, name string, attrs map[string]string) string {
	t.Helper()
	url, err := e.queues.CreateQueue(e.ctx, owner, sqs.CreateQueueInput{QueueName: name, Attributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	return url
}

func (e *queueEnv) send(t *testing.T, url, body string) {
	t.Helper()
	if _, err := e.queues.SendMessage(e.ctx, owner, sqs.SendMessageInput{QueueURL: url, MessageBody: body}); err != nil {
		t.Fatal(err)
	}
}

// run starts the consumers until the test ends.
func (e *queueEnv) run(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.svc.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// waitTotal waits until the all-time plays of channel c reach want (and
// checks they stay there), or fails after 20 s.
func (e *queueEnv) waitTotal(t *testing.T, c string, want int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var got int64
	for time.Now().Before(deadline) {
		tot, err := e.svc.Totals(e.ctx, "plays", rollup.Selector{Scope: map[string]string{"channel": c}}, rollup.Range{Unit: rollup.All}, []string{"plays"})
		if err == nil {
			got = tot.Values[0]
		}
		if got == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("all-time plays of %s = %d, want %d", c, got, want)
}

func (e *queueEnv) approximate(t *testing.T, url string) string {
	t.Helper()
	attrs, err := e.queues.GetQueueAttributes(e.ctx, owner, sqs.GetQueueAttributesInput{QueueURL: url, AttributeNames: []string{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	return attrs["ApproximateNumberOfMessages"] + "/" + attrs["ApproximateNumberOfMessagesNotVisible"]
}

const queueDef = `{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]], "metrics": ["plays"],
	"periods": [{"unit": "day"}, {"unit": "all"}], "sources": {"queue": %q}}`

// TestQueueIngestCountsEachEventOnce: events packed ten per message, every
// message sent twice, and a body that holds no events: the rollup counts
// each event once and empties the queue.
func TestQueueIngestCountsEachEventOnce(t *testing.T) {
	e := newQueueEnv(t)
	url := e.createQueue(t, "events", nil)
	if _, _, err := e.svc.Put(e.ctx, "plays", fmt.Appendf(nil, queueDef, url)); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	var want int64
	for m := range 30 {
		var events []map[string]any
		for i := range 10 {
			n := m*10 + i
			events = append(events, map[string]any{"id": fmt.Sprint(n), "time": now, "channel": "c", "plays": n % 3})
			want += int64(n % 3)
		}
		b, _ := json.Marshal(events)
		e.send(t, url, string(b))
		e.send(t, url, string(b))
	}
	e.send(t, url, "not events")
	e.run(t)
	e.waitTotal(t, "c", want)
	deadline := time.Now().Add(10 * time.Second)
	for e.approximate(t, url) != "0/0" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := e.approximate(t, url); got != "0/0" {
		t.Fatalf("queue holds %s (visible/in flight), want it empty", got)
	}
	if acc, dup, bad := e.svc.Stats.Accepted.Load(), e.svc.Stats.Duplicates.Load(), e.svc.Stats.Malformed.Load(); acc != 300 || dup != 300 || bad != 1 {
		t.Fatalf("accepted %d, duplicates %d, malformed %d; want 300, 300, 1", acc, dup, bad)
	}
}

// TestQueueIngestLeavesBadBodiesToTheDLQ: on a queue with a redrive
// policy, a body that holds no events is not deleted: SQS moves it to the
// dead-letter queue after maxReceiveCount receives.
func TestQueueIngestLeavesBadBodiesToTheDLQ(t *testing.T) {
	e := newQueueEnv(t)
	dlq := e.createQueue(t, "events-dlq", nil)
	attrs, err := e.queues.GetQueueAttributes(e.ctx, owner, sqs.GetQueueAttributesInput{QueueURL: dlq, AttributeNames: []string{"QueueArn"}})
	if err != nil {
		t.Fatal(err)
	}
	url := e.createQueue(t, "events", map[string]string{
		"RedrivePolicy":     fmt.Sprintf(`{"deadLetterTargetArn": %q, "maxReceiveCount": 1}`, attrs["QueueArn"]),
		"VisibilityTimeout": "0",
	})
	if _, _, err := e.svc.Put(e.ctx, "plays", fmt.Appendf(nil, queueDef, url)); err != nil {
		t.Fatal(err)
	}
	e.send(t, url, "[1, 2, 3")
	e.send(t, url, fmt.Sprintf(`{"id": "ok", "time": %q, "channel": "c", "plays": 5}`, time.Now().UTC().Format(time.RFC3339)))
	e.run(t)
	e.waitTotal(t, "c", 5)
	deadline := time.Now().Add(90 * time.Second)
	for e.approximate(t, dlq) != "1/0" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := e.approximate(t, dlq); got != "1/0" {
		t.Fatalf("dead-letter queue holds %s, want the bad body", got)
	}
}

// TestQueueSourceOfAnotherAccountRefused: a definition cannot name a queue
// its account may not consume.
func TestQueueSourceOfAnotherAccountRefused(t *testing.T) {
	e := newQueueEnv(t)
	other := sqs.Caller{Account: "999999999999", SenderID: "999999999999", Scheme: "http", Host: "localhost"}
	url, err := e.queues.CreateQueue(e.ctx, other, sqs.CreateQueueInput{QueueName: "theirs"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = e.svc.Put(e.ctx, "plays", fmt.Appendf(nil, queueDef, url))
	if err == nil || !strings.Contains(err.Error(), "sources.queue: ") {
		t.Fatalf("Put naming another account's queue: %v, want an error on sources.queue", err)
	}
}

// gatedStore holds its first Commit until release is closed, telling
// entered when it starts waiting.
type gatedStore struct {
	rollup.Store
	once             sync.Once
	entered, release chan struct{}
}

func (g *gatedStore) Commit(ctx context.Context, d *rollup.Definition, b *rollup.Batch, now time.Time) error {
	g.once.Do(func() {
		close(g.entered)
		<-g.release
	})
	return g.Store.Commit(ctx, d, b, now)
}

// TestQueueIngestGathersWhileACommitRuns: while the commit of a first
// message is held, the consumer goes on receiving (the second message is
// in flight, not left in the queue); once released, both count.
func TestQueueIngestGathersWhileACommitRuns(t *testing.T) {
	g := &gatedStore{entered: make(chan struct{}), release: make(chan struct{})}
	e := newQueueEnvWith(t, func(s rollup.Store) rollup.Store { g.Store = s; return g })
	url := e.createQueue(t, "events", nil)
	if _, _, err := e.svc.Put(e.ctx, "plays", fmt.Appendf(nil, queueDef, url)); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	e.run(t)
	release := sync.OnceFunc(func() { close(g.release) })
	t.Cleanup(release) // before the consumers stop, should the test fail
	e.send(t, url, fmt.Sprintf(`{"id": "a", "time": %q, "channel": "c", "plays": 1}`, now))
	select {
	case <-g.entered:
	case <-time.After(20 * time.Second):
		t.Fatal("the first commit did not start")
	}
	e.send(t, url, fmt.Sprintf(`{"id": "b", "time": %q, "channel": "c", "plays": 2}`, now))
	deadline := time.Now().Add(10 * time.Second)
	for e.approximate(t, url) != "0/2" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := e.approximate(t, url); got != "0/2" {
		t.Fatalf("while the first commit is held, the queue holds %s (visible/in flight), want 0/2", got)
	}
	release()
	e.waitTotal(t, "c", 3)
}

// TestQueueIngestFollowsTheRollupAsItGainsParts: a queue-fed rollup gains
// a dimension and a metric while its consumer runs; the consumer counts
// with the new version (it kept the first before), the new parts taking
// the events timed from their start and the old parts every event.
func TestQueueIngestFollowsTheRollupAsItGainsParts(t *testing.T) {
	e := newQueueEnv(t)
	url := e.createQueue(t, "grow", nil)
	if _, _, err := e.svc.Put(e.ctx, "plays", fmt.Appendf(nil, queueDef, url)); err != nil {
		t.Fatal(err)
	}
	e.run(t)
	event := func(id string, at time.Time, shares int) string {
		return fmt.Sprintf(`{"id": %q, "time": %q, "channel": "c", "city": "Paris", "plays": 1, "shares": %d}`, id, at.UTC().Format(time.RFC3339Nano), shares)
	}
	before := time.Now().Add(-time.Minute)
	e.send(t, url, event("1", before, 1))
	e.waitTotal(t, "c", 1)
	grown := `{"event": {"id": "id", "time": "time"}, "scopes": [["channel"]], "metrics": ["plays", "shares"], "dimensions": ["city"],
	"periods": [{"unit": "day"}, {"unit": "all"}], "sources": {"queue": %q}}`
	d, created, err := e.svc.Put(e.ctx, "plays", fmt.Appendf(nil, grown, url))
	if err != nil || created {
		t.Fatalf("Put with a dimension and a metric added: created %v, %v", created, err)
	}
	start := d.Added["dimensions.city"]
	if !start.Equal(d.Added["metrics.shares"]) || !start.After(time.Now()) {
		t.Fatalf("added %v: want both parts to start together, ahead of the clock", d.Added)
	}
	e.send(t, url, event("2", before, 4)) // timed before the parts' start
	// Events are timed by their producers' clocks: once the clock passed
	// the start, one timed now counts in the new parts.
	waitPast(start)
	e.send(t, url, event("3", time.Now(), 2))
	e.waitTotal(t, "c", 3)
	tot, err := e.svc.Totals(e.ctx, "plays", rollup.Selector{Scope: map[string]string{"channel": "c"}}, rollup.Range{Unit: rollup.All}, []string{"plays", "shares"})
	if err != nil || fmt.Sprint(tot.Values) != "[3 2]" {
		t.Errorf("totals %v, %v; want [3 2]: plays of every event, shares from the start only", tot.Values, err)
	}
	top, err := e.svc.Top(e.ctx, "plays", rollup.TopQuery{Selector: rollup.Selector{Scope: map[string]string{"channel": "c"}, Dim: "city"}, Range: rollup.Range{Unit: rollup.All}})
	if err != nil || len(top.Values) != 1 || top.Values[0].Value != "Paris" || fmt.Sprint(top.Values[0].Values) != "[1 2]" {
		t.Errorf("top cities %+v, %v; want Paris [1 2]: the event timed from the start only", top.Values, err)
	}
}
