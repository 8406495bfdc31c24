package amqp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	rabbit "github.com/rabbitmq/amqp091-go"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/paths"
)

// fakePutter records puts. It refuses invalid paths as cache.Service does,
// and answers "unavailable" to the first failFirst calls.
type fakePutter struct {
	mu        sync.Mutex
	failFirst int
	calls     int
	puts      []cache.PutInput
}

func (f *fakePutter) Put(_ context.Context, in cache.PutInput) (*cache.Message, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.calls <= f.failFirst {
		return nil, false, herald.Unavailable("put", context.DeadlineExceeded)
	}
	var meta struct{ Paths []string }
	if err := json.Unmarshal(in.Metadata, &meta); err != nil {
		return nil, false, herald.Errorf(herald.EInvalid, "metadata: %v", err)
	}
	for _, p := range meta.Paths {
		if err := paths.Validate(p); err != nil {
			return nil, false, herald.Errorf(herald.EInvalid, "metadata.paths: %v", err)
		}
	}
	f.puts = append(f.puts, in)
	return &cache.Message{Paths: meta.Paths}, true, nil
}

func (f *fakePutter) stored() []cache.PutInput {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]cache.PutInput(nil), f.puts...)
}

func startIngest(t testing.TB, o Options, p Putter) *Ingest {
	t.Helper()
	g, err := NewIngest(o, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if err := g.Ready(readyCtx(t)); err != nil {
		t.Fatalf("ingest not ready: %v", err)
	}
	return g
}

func publish(t testing.TB, ch *rabbit.Channel, exchange, key string, msg rabbit.Publishing) {
	t.Helper()
	if err := ch.PublishWithContext(context.Background(), exchange, key, false, false, msg); err != nil {
		t.Fatalf("publish: %v", err)
	}
}

func TestIngestRoundTrip(t *testing.T) {
	url := amqpURL(t)
	o := testOptions(t, url)
	f := &fakePutter{}
	startIngest(t, o, f)
	ch := testChannel(t, url)

	id, _ := uuid.NewUUID()
	publish(t, ch, o.IngestExchange, "feeds.breaking-news.12345", rabbit.Publishing{
		MessageId: id.String(), Expiration: "60000", Body: []byte("hello"),
		Headers: rabbit.Table{"source": "wire", "priority": int32(5)},
	})
	publish(t, ch, o.IngestExchange, "ignored", rabbit.Publishing{
		Body: []byte("two"), Headers: rabbit.Table{"paths": []any{"a.b", "c.d"}},
	})
	waitFor(t, 10*time.Second, "two puts", func() bool { return len(f.stored()) == 2 })

	byBody := map[string]cache.PutInput{}
	for _, in := range f.stored() {
		byBody[string(in.Body)] = in
	}
	first := byBody["hello"]
	if want := `{"paths":["feeds.breaking-news.12345"],"priority":5,"source":"wire"}`; string(first.Metadata) != want {
		t.Errorf("metadata = %s, want %s", first.Metadata, want)
	}
	if first.MessageID != id.String() || first.TTL == nil || *first.TTL != 60 {
		t.Errorf("first put = %+v", first)
	}
	if want := `{"paths":["a.b","c.d"]}`; string(byBody["two"].Metadata) != want {
		t.Errorf("metadata = %s, want %s", byBody["two"].Metadata, want)
	}
	assertQueueEmpty(t, ch, o.IngestQueue)
}

// assertQueueEmpty checks that queue holds no message, ready or
// unacknowledged (with no consumer left, unacknowledged ones would be ready).
func assertQueueEmpty(t testing.TB, ch *rabbit.Channel, queue string) {
	t.Helper()
	waitFor(t, 5*time.Second, "an empty "+queue, func() bool {
		q, err := ch.QueueDeclarePassive(queue, true, false, false, false, nil)
		return err == nil && q.Messages == 0
	})
}

func TestIngestDeadLettersInvalidMessages(t *testing.T) {
	url := amqpURL(t)
	o := testOptions(t, url)
	f := &fakePutter{}
	g := startIngest(t, o, f)
	ch := testChannel(t, url)

	publish(t, ch, o.IngestExchange, "bad..path", rabbit.Publishing{Body: []byte("bad path"), Expiration: "600000"})
	publish(t, ch, o.IngestExchange, "a", rabbit.Publishing{Body: []byte("bad header"), Headers: rabbit.Table{"paths": int32(7)}})
	publish(t, ch, o.IngestExchange, "good", rabbit.Publishing{Body: []byte("good")})

	dead, err := ch.Consume(o.DeadQueue, "", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for len(reasons) < 2 {
		select {
		case d := <-dead:
			reason, _ := d.Headers[ErrorHeader].(string)
			if reason == "" {
				t.Errorf("dead letter %q has no %s header: %v", d.Body, ErrorHeader, d.Headers)
			}
			reasons[string(d.Body)] = reason
			if string(d.Body) == "bad path" && (d.RoutingKey != "bad..path" || d.Headers["x-herald-expiration"] != "600000") {
				t.Errorf("dead letter lost the original's routing key or expiration: %q %v", d.RoutingKey, d.Headers)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("dead letters: got %v, want 2", reasons)
		}
	}
	t.Logf("reasons: %q", reasons)
	if _, ok := reasons["bad path"]; !ok {
		t.Errorf("no dead letter for the bad path: %v", reasons)
	}
	waitFor(t, 5*time.Second, "the good message", func() bool { return len(f.stored()) == 1 })
	waitFor(t, 5*time.Second, "2 dead letters counted", func() bool { return g.Stats().DeadLettered == 2 })
	if s := g.Stats(); s.Stored != 1 || s.Requeued != 0 {
		t.Errorf("stats = %+v", s)
	}
	assertQueueEmpty(t, ch, o.IngestQueue)
}

func TestIngestRequeuesWhileTheStoreIsUnavailable(t *testing.T) {
	url := amqpURL(t)
	o := testOptions(t, url)
	f := &fakePutter{failFirst: 4}
	g := startIngest(t, o, f)
	ch := testChannel(t, url)

	publish(t, ch, o.IngestExchange, "a.b", rabbit.Publishing{Body: []byte("later")})
	waitFor(t, 10*time.Second, "the put", func() bool { return len(f.stored()) == 1 })
	if s := g.Stats(); s.Requeued != 4 || s.Stored != 1 || s.DeadLettered != 0 {
		t.Errorf("stats = %+v", s)
	}
	assertQueueEmpty(t, ch, o.IngestQueue)
}

func TestIngestSurvivesAnOutage(t *testing.T) {
	url := amqpURL(t)
	o := testOptions(t, url)
	px, viaProxy := newProxy(t, url)
	po := o
	po.URL = viaProxy
	f := &fakePutter{}
	startIngest(t, po, f)
	ch := testChannel(t, url)

	const n = 2000
	for i := range n {
		publish(t, ch, o.IngestExchange, "in.x", rabbit.Publishing{Body: fmt.Appendf(nil, "%d", i)})
		if i == n/3 {
			px.cut()
		}
		if i == n/2 {
			time.Sleep(300 * time.Millisecond)
			px.restore()
		}
	}
	distinct := func() int {
		seen := map[string]bool{}
		for _, in := range f.stored() {
			seen[string(in.Body)] = true
		}
		return len(seen)
	}
	waitFor(t, 30*time.Second, "every message stored", func() bool { return distinct() == n })
	assertQueueEmpty(t, ch, o.IngestQueue)
	t.Logf("%d puts for %d messages", len(f.stored()), n)
}
