package snsload

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heraldmq/herald/load/loadgen"
	"github.com/heraldmq/herald/load/sqsload"
)

// QueuesReport is what the queues scenario measured.
type QueuesReport struct {
	Scenario    string `json:"scenario"`
	Server      string `json:"server"`
	Topic       string `json:"topic_arn"`
	Subscribers int    `json:"subscribers"` // queues asked for
	Concurrency int    `json:"concurrency"`

	CreateQueues loadgen.Result `json:"create_queues"`
	Subscribe    loadgen.Result `json:"subscribe"`
	Subscribed   int            `json:"subscribed"` // queues subscribed without error
	Setup        time.Duration  `json:"setup_ns"`   // creating the topic and queues and subscribing them

	Publish time.Duration `json:"publish_ns"` // the one Publish call
	// Reached counts the subscribed queues the message was received from
	// within Timeout; T50, T99 and T100 are the times from the start of the
	// Publish call until 50%, 99% and all of them had yielded it (null when
	// not reached). They are upper bounds: they include the polling.
	// ServerAll is when the server's own count of SNS deliveries
	// (herald_sns_deliveries_total{outcome="delivered"} on /metrics) had
	// grown by the number of subscribed queues, from the start of the
	// Publish call: the fan-out's time without the polling. Null if the
	// server does not export the counter or did not get there in time.
	ServerAll *time.Duration `json:"server_all_ns"`
	Reached   int            `json:"reached"`
	T50       *time.Duration `json:"t50_ns"`
	T99       *time.Duration `json:"t99_ns"`
	T100      *time.Duration `json:"t100_ns"`
	TimedOut  bool           `json:"timed_out"`
	Receive   loadgen.Result `json:"receive"` // every ReceiveMessage call, empty ones too; Items counts messages

	DeleteQueues *loadgen.Result `json:"delete_queues,omitempty"`
	Left         string          `json:"left,omitempty"` // name prefix of the topic and queues left on the server
	CleanupError string          `json:"cleanup_error,omitempty"`
}

// String renders the report for a terminal.
func (r QueuesReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sns queues: %d of %d queues subscribed in %s from %d workers\n%s\n%s\n",
		r.Subscribed, r.Subscribers, short(r.Setup), r.Concurrency, r.CreateQueues, r.Subscribe)
	at := func(d *time.Duration) string {
		if d == nil {
			return "not reached"
		}
		return short(*d).String()
	}
	fmt.Fprintf(&b, "one publish (call %s) in %d of %d queues; 50%% by %s, 99%% by %s, 100%% by %s (upper bounds, polling included); server delivered to all by %s",
		short(r.Publish), r.Reached, r.Subscribed, at(r.T50), at(r.T99), at(r.T100), at(r.ServerAll))
	if r.TimedOut {
		b.WriteString("; timed out")
	}
	fmt.Fprintf(&b, "\n%s\n", r.Receive)
	if r.DeleteQueues != nil {
		fmt.Fprintln(&b, *r.DeleteQueues)
	}
	if r.Left != "" {
		fmt.Fprintf(&b, "topic and queues left on the server: %s*\n", r.Left)
	}
	if r.CleanupError != "" {
		fmt.Fprintf(&b, "cleanup: %s\n", r.CleanupError)
	}
	return b.String()
}

// RunQueues runs the queues scenario: cfg.Subscribers queues subscribed
// (raw) to one topic, one publish, and the time until every queue yields
// the message to ReceiveMessage.
func RunQueues(ctx context.Context, cfg Config) (report QueuesReport, err error) {
	if cfg, err = cfg.withDefaults(); err != nil {
		return QueuesReport{}, err
	}
	c, q := cfg.snsClient(), cfg.sqsClient()
	defer c.Close()
	defer q.Close()
	report = QueuesReport{Scenario: "queues", Server: cfg.Server, Subscribers: cfg.Subscribers, Concurrency: cfg.Concurrency}

	started := time.Now()
	topic, err := c.CreateTopic(ctx, cfg.Prefix)
	if err != nil {
		return report, err
	}
	report.Topic = topic
	urls := make([]string, cfg.Subscribers)
	defer func() {
		if cerr := cleanupQueues(c, q, cfg, ctx.Err() != nil, topic, urls, &report); cerr != nil {
			report.CleanupError = cerr.Error()
		}
	}()
	var next atomic.Int64
	report.CreateQueues = loadgen.Run(ctx, sqsload.ActionCreateQueue, cfg.workers(cfg.Subscribers),
		func(ctx context.Context, _, _ int) (int, error) {
			i := int(next.Add(1) - 1)
			u, err := q.CreateQueue(ctx, fmt.Sprintf("%s-%d", cfg.Prefix, i), nil)
			urls[i] = u
			return 1, err
		})
	if report.CreateQueues.Errors > 0 || ctx.Err() != nil {
		return report, fmt.Errorf("creating queues: %d of %d failed, first: %s", report.CreateQueues.Errors, cfg.Subscribers, report.CreateQueues.FirstError)
	}
	arn, err := queueARNs(ctx, c, urls)
	if err != nil {
		return report, err
	}
	subscribed := make([]bool, len(urls))
	next.Store(0)
	report.Subscribe = loadgen.Run(ctx, ActionSubscribe, cfg.workers(len(urls)),
		func(ctx context.Context, _, _ int) (int, error) {
			i := int(next.Add(1) - 1)
			a, err := arn(ctx, i)
			if err == nil {
				_, err = c.Subscribe(ctx, topic, "sqs", a, true)
			}
			subscribed[i] = err == nil
			return 1, err
		})
	report.Setup = time.Since(started)
	var targets []string
	for i, ok := range subscribed {
		if ok {
			targets = append(targets, urls[i])
		}
	}
	report.Subscribed = len(targets)
	if report.Subscribe.Errors > 0 || ctx.Err() != nil {
		return report, fmt.Errorf("subscribing: %d of %d failed, first: %s", report.Subscribe.Errors, len(urls), report.Subscribe.FirstError)
	}

	baseline, counted, _ := c.Delivered(ctx)
	publishStart := time.Now()
	if _, err := c.Publish(ctx, topic, message(0, publishStart.UnixNano(), cfg.MessageSize)); err != nil {
		return report, err
	}
	report.Publish = time.Since(publishStart)

	// First the server's own count, with nothing else loading the server
	// (100,000 receives would slow the fan-out they measure); then every
	// queue is read to check that the message really is there.
	if counted {
		waitCtx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		report.ServerAll, _ = c.waitDelivered(waitCtx, baseline+float64(len(targets)), publishStart, 20*time.Millisecond)
		cancel()
	}
	arrivals, receive := receiveAll(ctx, q, cfg, targets, publishStart)
	report.Receive, report.Reached = receive, len(arrivals)
	report.TimedOut = len(arrivals) < len(targets)
	report.T50, report.T99, report.T100 = reachedBy(arrivals, len(targets), 0.50), reachedBy(arrivals, len(targets), 0.99), reachedBy(arrivals, len(targets), 1)
	if ctx.Err() != nil {
		return report, ctx.Err()
	}
	if report.TimedOut {
		return report, fmt.Errorf("the message reached %d of %d queues within %s", len(arrivals), len(targets), cfg.Timeout)
	}
	return report, nil
}

// workers is the loadgen configuration of a setup phase of n calls.
func (c Config) workers(n int) loadgen.Config {
	return loadgen.Config{Concurrency: max(1, min(c.Concurrency, n)), Requests: n, Progress: c.Progress}
}

// queueARNs returns a function giving the ARN of urls[i]. It asks the server
// for the first queue's ARN and derives the others from it (same account
// and region, the queue's name last) when the first one ends in its URL's
// last segment; otherwise it asks for every queue.
func queueARNs(ctx context.Context, c *Client, urls []string) (func(context.Context, int) (string, error), error) {
	first, err := c.QueueARN(ctx, urls[0])
	if err != nil {
		return nil, err
	}
	name0 := lastSegment(urls[0])
	if prefix, ok := strings.CutSuffix(first, ":"+name0); ok {
		return func(_ context.Context, i int) (string, error) { return prefix + ":" + lastSegment(urls[i]), nil }, nil
	}
	return func(ctx context.Context, i int) (string, error) { return c.QueueARN(ctx, urls[i]) }, nil
}

func lastSegment(u string) string { return u[strings.LastIndexByte(u, '/')+1:] }

// receiveAll long-polls the queues at urls from cfg.Concurrency workers
// until each has yielded a message or cfg.Timeout passes, and returns the
// times after start at which they did, sorted.
func receiveAll(ctx context.Context, q *sqsload.Client, cfg Config, urls []string, start time.Time) ([]time.Duration, loadgen.Result) {
	pending := make(chan int, len(urls))
	for i := range urls {
		pending <- i
	}
	var (
		mu       sync.Mutex
		arrivals = make([]time.Duration, 0, len(urls))
	)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	r := loadgen.Run(runCtx, sqsload.ActionReceiveMessage, loadgen.Config{Concurrency: max(1, min(cfg.Concurrency, len(urls))), Duration: cfg.Timeout, Progress: cfg.Progress},
		func(ctx context.Context, _, _ int) (int, error) {
			var i int
			select {
			case i = <-pending:
			case <-ctx.Done():
				return 0, ctx.Err()
			}
			got, err := q.Receive(ctx, q.ReceiveRequest(urls[i], 1, cfg.Wait, -1), nil)
			if err != nil || len(got) == 0 {
				pending <- i
				return 0, err
			}
			mu.Lock()
			arrivals = append(arrivals, time.Since(start))
			done := len(arrivals) == len(urls)
			mu.Unlock()
			if done {
				stop()
			}
			return len(got), nil
		})
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(arrivals)
	return slices.Clone(arrivals), r
}

// reachedBy returns the time by which the fraction q of n queues had the
// message, or nil if not that many did.
func reachedBy(sorted []time.Duration, n int, q float64) *time.Duration {
	need := int(q*float64(n) + 0.999999)
	if need < 1 {
		need = 1
	}
	if n == 0 || need > len(sorted) {
		return nil
	}
	d := sorted[need-1]
	return &d
}

// cleanupQueues deletes the topic and the created queues unless cfg.Keep
// (or the run was interrupted: deleting 100,000 queues takes as long as
// creating them), in which case the report names what was left.
func cleanupQueues(c *Client, q *sqsload.Client, cfg Config, interrupted bool, topic string, urls []string, report *QueuesReport) error {
	if cfg.Keep || interrupted {
		report.Left = cfg.Prefix
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := c.DeleteTopic(ctx, topic)
	cancel()
	urls = slices.DeleteFunc(slices.Clone(urls), func(u string) bool { return u == "" })
	if len(urls) == 0 {
		return err
	}
	var next atomic.Int64
	d := loadgen.Run(context.Background(), sqsload.ActionDeleteQueue, cfg.workers(len(urls)),
		func(ctx context.Context, _, _ int) (int, error) {
			return 1, q.DeleteQueue(ctx, urls[next.Add(1)-1])
		})
	report.DeleteQueues = &d
	if err == nil && d.Errors > 0 {
		err = fmt.Errorf("deleting queues: %d of %d failed, first: %s", d.Errors, len(urls), d.FirstError)
	}
	if err != nil {
		report.Left = cfg.Prefix
	}
	return err
}
