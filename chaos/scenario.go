package chaos

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
)

// scenario is one kind of load: how its messages are sent, how they are
// consumed, and what Herald needs for it.
type scenario interface {
	// uses says which faults apply to the scenario.
	uses() uses
	// subscribers is the number of deliveries each message owes.
	subscribers() int
	// heraldArgs are extra flags of `herald serve`.
	heraldArgs(w *world) []string
	// setup creates what the load needs (queues, topics, subscriptions),
	// with Herald running.
	setup(ctx context.Context, r *scenarioRun) error
	// produce sends up to n messages in one operation: each is recorded
	// with tally.sentMsg before it is sent and tally.ack once the server
	// acknowledged it.
	produce(ctx context.Context, r *scenarioRun, worker, n int) error
	// consume receives messages (recording each with r.received) until
	// stop is closed, finishing the operation under way first so no
	// received message goes unrecorded.
	consume(ctx context.Context, r *scenarioRun, worker int, stop <-chan struct{})
	// finish adds scenario-specific figures to the report.
	finish(r *scenarioRun)
	// teardown removes what setup created, with Herald still running;
	// afterStop what must wait until Herald stopped.
	teardown(ctx context.Context, r *scenarioRun)
	afterStop(ctx context.Context, r *scenarioRun)
}

// scenarios are the drill's scenarios by name, in the order "all" runs
// them.
var scenarios = []struct {
	name string
	make func(c *Config) scenario
}{
	{"sqs", func(*Config) scenario { return &sqsScenario{} }},
	{"sqs-fifo", func(*Config) scenario { return &sqsScenario{fifo: true} }},
	{"sns-queues", func(c *Config) scenario { return &snsQueuesScenario{subs: c.Subscribers} }},
	{"sns-http", func(c *Config) scenario { return &snsHTTPScenario{subs: c.Subscribers} }},
	{"cache", func(*Config) scenario { return &cacheScenario{} }},
	{"amqp", func(*Config) scenario { return &amqpScenario{} }},
	{"ws-queue", func(*Config) scenario { return &wsQueueScenario{} }},
}

// ScenarioNames lists the scenarios.
func ScenarioNames() []string {
	out := make([]string, len(scenarios))
	for i, s := range scenarios {
		out[i] = s.name
	}
	return out
}

func newScenario(name string, c *Config) scenario {
	for _, s := range scenarios {
		if s.name == name {
			return s.make(c)
		}
	}
	return nil
}

// scenarioRun is one scenario's run: what its scenario code may use.
type scenarioRun struct {
	w     *world
	cfg   *Config
	name  string
	url   string // Herald's base URL, the same across restarts
	tally *tally
	rep   *ScenarioReport

	errMu sync.Mutex
	errs  map[string]*errorCount
}

// prefix is a name unique to this scenario of this drill, for queues,
// topics, paths.
func (r *scenarioRun) prefix() string { return "chaos-" + r.w.run + "-" + r.name }

// pathPrefix is prefix as a cache path (words separated by dots).
func (r *scenarioRun) pathPrefix() string { return "chaos." + r.w.run + "." + r.name }

// fail counts a failed operation.
func (r *scenarioRun) fail(op string, err error) {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	e := r.errs[op]
	if e == nil {
		e = &errorCount{First: clip(err.Error(), 300)}
		r.errs[op] = e
	}
	e.Count++
}

// received checks a delivered body and records its delivery to
// subscriber sub by an operation that started at started. ok is false for
// a corrupt body; first reports the key's first delivery.
func (r *scenarioRun) received(body string, sub int, started time.Time) (id uuid.UUID, payload string, first, ok bool) {
	id, payload, err := decodeBody(body)
	if err != nil {
		r.tally.corruptBody(fmt.Sprintf("%v: %q", err, clip(body, 120)))
		return id, payload, false, false
	}
	return id, payload, r.tally.deliver(id, sub, started), true
}

// newMessage makes a message with payload prefix: records it as sent and
// returns its id and body.
func (r *scenarioRun) newMessage(prefix string) (uuid.UUID, string) {
	id := newID()
	body := encodeBody(id, filler(prefix, id, r.cfg.PayloadBytes))
	r.tally.sentMsg(id)
	return id, body
}

// sleep waits d or until stop or ctx ends; false when they did.
func sleep(ctx context.Context, stop <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	case <-ctx.Done():
		return false
	}
}

// stopped reports whether stop is closed.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}
