package sqsload

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/heraldmq/herald/load/loadgen"
)

// MixReport is what a mix run measured. Actions has one result per SQS
// action called (Items: messages the action handled); All covers every API
// call; Cycles covers whole worker cycles.
type MixReport struct {
	Scenario       string           `json:"scenario"`
	Server         string           `json:"server"`
	Mix            string           `json:"mix"`
	Concurrency    int              `json:"concurrency"`
	Queues         int              `json:"queues"`
	Batch          int              `json:"batch"`
	MessageSize    int              `json:"message_size"`
	WaitSeconds    int              `json:"wait_seconds"`
	Prefilled      int              `json:"prefilled_messages"`
	Elapsed        time.Duration    `json:"elapsed_ns"`
	CallsPerSec    float64          `json:"calls_per_sec"`
	SentPerSec     float64          `json:"messages_sent_per_sec"`
	ReceivedPerSec float64          `json:"messages_received_per_sec"`
	DeletedPerSec  float64          `json:"messages_deleted_per_sec"`
	Actions        []loadgen.Result `json:"actions"`
	All            loadgen.Result   `json:"all"`
	Cycles         loadgen.Result   `json:"cycles"`
	QueuesLeft     string           `json:"queues_left,omitempty"` // prefix of queues not deleted
	CleanupError   string           `json:"cleanup_error,omitempty"`
}

// String renders the report for a terminal.
func (r MixReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sqs mix %s: %d workers, %d queue(s), batch %d, %d-byte messages, wait %ds, %s\n",
		r.Mix, r.Concurrency, r.Queues, r.Batch, r.MessageSize, r.WaitSeconds, r.Elapsed.Round(time.Millisecond))
	for _, a := range r.Actions {
		fmt.Fprintln(&b, a)
	}
	fmt.Fprintln(&b, r.All)
	fmt.Fprintf(&b, "throughput: %.0f API calls/s; messages/s: %.0f sent, %.0f received, %.0f deleted\n",
		r.CallsPerSec, r.SentPerSec, r.ReceivedPerSec, r.DeletedPerSec)
	if r.QueuesLeft != "" {
		fmt.Fprintf(&b, "queues left on the server: %s-*\n", r.QueuesLeft)
	}
	if r.CleanupError != "" {
		fmt.Fprintf(&b, "cleanup: %s\n", r.CleanupError)
	}
	return b.String()
}

// mixQueue is one queue of a mix run with its pre-encoded requests.
type mixQueue struct {
	url     string
	send    Request
	receive Request
}

// RunMix creates cfg.Queues queues, optionally pre-fills them, runs
// cfg.Mix from cfg.Concurrency workers and deletes the queues again unless
// cfg.Keep. Worker w's cycle number s uses queue (w + s*Concurrency) mod
// Queues, so every queue gets load and a cycle stays on one queue.
func RunMix(ctx context.Context, cfg Config) (report MixReport, err error) {
	if cfg, err = cfg.withDefaults(); err != nil {
		return MixReport{}, err
	}
	c := cfg.client()
	defer c.Close()
	urls, created := createQueues(ctx, c, cfg, cfg.Queues, nil)
	report = MixReport{Scenario: "mix", Server: cfg.Server, Mix: cfg.Mix.String(), Concurrency: cfg.Concurrency,
		Queues: cfg.Queues, Batch: cfg.Batch, MessageSize: cfg.MessageSize, WaitSeconds: cfg.Wait}
	defer func() {
		if cfg.Keep {
			report.QueuesLeft = cfg.QueuePrefix
			return
		}
		// An interrupted run still removes its few queues, within a bound.
		cleanupCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if d := deleteQueues(cleanupCtx, c, urls, cfg.Concurrency, nil); d.Errors > 0 {
			report.QueuesLeft, report.CleanupError = cfg.QueuePrefix, d.FirstError
		}
	}()
	if created.Errors > 0 {
		return report, fmt.Errorf("creating queues: %d of %d failed, first: %s", created.Errors, cfg.Queues, created.FirstError)
	}

	body := messageBody(cfg.MessageSize)
	if cfg.Prefill > 0 {
		p := prefill(ctx, c, urls, cfg.Prefill, body, cfg.Concurrency, cfg.Progress)
		if p.Errors > 0 {
			return report, fmt.Errorf("pre-filling queues: %d calls failed, first: %s", p.Errors, p.FirstError)
		}
		report.Prefilled = p.Items
	}
	bodies := slices.Repeat([]string{body}, cfg.Batch)
	queues := make([]mixQueue, len(urls))
	for i, u := range urls {
		queues[i] = mixQueue{url: u, send: c.SendRequest(u, bodies), receive: c.ReceiveRequest(u, cfg.Batch, cfg.Wait, cfg.Visibility)}
	}

	tally := NewTally(cfg.Concurrency)
	clients, closeClients := cfg.workerClients(c)
	defer closeClients()
	w := mixWorkers{clients: clients, cfg: cfg, queues: queues, tally: tally,
		received: make([][]Message, cfg.Concurrency), handles: make([][]string, cfg.Concurrency)}
	cfg.mark(MarkLoadStart)
	report.Cycles = loadgen.Run(ctx, "cycle", loadgen.Config{Concurrency: cfg.Concurrency, Duration: cfg.Duration,
		Requests: cfg.Requests, Progress: cfg.Progress, Rate: cfg.Rate}, w.cycle)
	cfg.mark(MarkLoadEnd)
	report.Elapsed = report.Cycles.Elapsed
	report.Actions, report.All = tally.Results(report.Elapsed, cfg.Concurrency)
	report.CallsPerSec = report.All.CallsPerSec
	for _, a := range report.Actions {
		switch a.Name {
		case ActionSendMessage, ActionSendMessageBatch:
			report.SentPerSec += a.ItemsPerSec
		case ActionReceiveMessage:
			report.ReceivedPerSec += a.ItemsPerSec
		case ActionDeleteMessage, ActionDeleteMessageBatch:
			report.DeletedPerSec += a.ItemsPerSec
		}
	}
	return report, nil
}

// mixWorkers runs the cycles of a mix run. Each worker owns its slot of
// received and handles, reused from cycle to cycle.
type mixWorkers struct {
	clients  []*Client // each worker's
	cfg      Config
	queues   []mixQueue
	tally    *Tally
	received [][]Message
	handles  [][]string
}

// cycle is one worker's send → receive → delete round; every API call is
// recorded under its own action. It returns the messages sent.
func (m *mixWorkers) cycle(ctx context.Context, worker, seq int) (int, error) {
	q := &m.queues[(worker+seq*m.cfg.Concurrency)%len(m.queues)]
	client := m.clients[worker]
	sent := 0
	// In a paced run the cycle's first call counts from when the cycle was
	// due, so time spent waiting for a free worker is not hidden.
	due := loadgen.Scheduled(ctx)
	startCall := func() time.Time {
		if t := due; !t.IsZero() {
			due = time.Time{}
			return t
		}
		return time.Now()
	}
	for range m.cfg.Mix.Sends {
		t0 := startCall()
		n, err := client.Send(ctx, q.send, m.cfg.Batch)
		if err := m.record(ctx, worker, q.send.Action(), t0, n, err); err != nil {
			return sent, err
		}
		sent += n
	}
	received := m.received[worker][:0]
	defer func() { m.received[worker] = received[:0] }()
	for range m.cfg.Mix.Receives {
		before := len(received)
		t0 := startCall()
		var err error
		received, err = client.Receive(ctx, q.receive, received)
		if err := m.record(ctx, worker, ActionReceiveMessage, t0, len(received)-before, err); err != nil {
			return sent, err
		}
	}
	if !m.cfg.Mix.Delete {
		return sent, nil
	}
	handles := m.handles[worker][:0]
	for _, msg := range received {
		handles = append(handles, msg.ReceiptHandle)
	}
	m.handles[worker] = handles
	for start := 0; start < len(handles); start += m.cfg.Batch {
		chunk := handles[start:min(start+m.cfg.Batch, len(handles))]
		t0 := startCall()
		action, n, err := client.Delete(ctx, q.url, chunk, m.cfg.Batch > 1)
		if err := m.record(ctx, worker, action, t0, n, err); err != nil {
			return sent, err
		}
	}
	return sent, nil
}

// record tallies one call that started at t0 and returns its error. A call
// cut short by the end of the run is neither a failure nor a measurement:
// it is not tallied, and the run's own error is returned so the cycle ends.
func (m *mixWorkers) record(ctx context.Context, worker int, action string, t0 time.Time, items int, err error) error {
	d := time.Since(t0)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	m.tally.Record(worker, action, d, items, err)
	return err
}
