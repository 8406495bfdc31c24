package snsload

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heraldmq/herald/load/loadgen"
)

// HTTPReport is what the http scenario measured.
type HTTPReport struct {
	Scenario    string  `json:"scenario"`
	Server      string  `json:"server"`
	Topic       string  `json:"topic_arn"`
	Subscribers int     `json:"subscribers"`
	Listeners   int     `json:"listeners"`
	Publishers  int     `json:"publishers"`
	Rate        float64 `json:"rate"`

	Subscribe      loadgen.Result `json:"subscribe"`
	Confirmed      int            `json:"confirmed"`
	ConfirmElapsed time.Duration  `json:"confirm_elapsed_ns"` // from the first Subscribe until all were confirmed
	ConfirmErrors  int            `json:"confirm_errors"`
	ConfirmError   string         `json:"first_confirm_error,omitempty"`

	Publish         loadgen.Result `json:"publish"` // the Publish calls themselves
	Published       int            `json:"published"`
	PublishesPerSec float64        `json:"publishes_per_sec"`
	// Expected is Published times Confirmed; Delivered counts distinct
	// (subscriber, message) arrivals, Lost the expected that never came
	// within Drain, Duplicates the arrivals beyond the first, Unexpected
	// those of messages whose Publish call failed.
	Expected   int `json:"expected"`
	Delivered  int `json:"delivered"`
	Lost       int `json:"lost"`
	Duplicates int `json:"duplicates"`
	Unexpected int `json:"unexpected"`
	// DeliveriesPerSec is Delivered over DeliverySpan, from the start of
	// publishing to the last arrival.
	DeliveriesPerSec float64       `json:"deliveries_per_sec"`
	DeliverySpan     time.Duration `json:"delivery_span_ns"`
	Drained          time.Duration `json:"drained_ns"` // waited after the last publish
	// Latency is publish → arrival: from the Publish call's start (or,
	// with Rate, from when it was due) to the subscriber reading it.
	Latency        Latency `json:"latency"`
	Enveloped      int     `json:"enveloped"` // notifications not delivered raw
	Malformed      int     `json:"malformed"`
	FirstMalformed string  `json:"first_malformed,omitempty"`
	TopicLeft      string  `json:"topic_left,omitempty"`
	CleanupError   string  `json:"cleanup_error,omitempty"`
}

// String renders the report for a terminal.
func (r HTTPReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sns http: %d subscribers on %d local ports, %d confirmed in %s", r.Subscribers, r.Listeners, r.Confirmed, short(r.ConfirmElapsed))
	if r.ConfirmErrors > 0 {
		fmt.Fprintf(&b, " (%d confirmations failed, first: %s)", r.ConfirmErrors, r.ConfirmError)
	}
	fmt.Fprintf(&b, "\n%s\n%s\n", r.Subscribe, r.Publish)
	fmt.Fprintf(&b, "published %d (%.0f/s); delivered %d of %d (%.0f deliveries/s over %s); lost %d, duplicates %d, unexpected %d\n",
		r.Published, r.PublishesPerSec, r.Delivered, r.Expected, r.DeliveriesPerSec, short(r.DeliverySpan), r.Lost, r.Duplicates, r.Unexpected)
	fmt.Fprintf(&b, "publish → arrival: %s\n", r.Latency)
	if r.Enveloped > 0 {
		fmt.Fprintf(&b, "%d notifications came in the JSON envelope although raw delivery was asked for\n", r.Enveloped)
	}
	if r.Malformed > 0 {
		fmt.Fprintf(&b, "%d unexpected requests to the subscribers, first: %s\n", r.Malformed, r.FirstMalformed)
	}
	if r.TopicLeft != "" {
		fmt.Fprintf(&b, "topic left on the server: %s\n", r.TopicLeft)
	}
	if r.CleanupError != "" {
		fmt.Fprintf(&b, "cleanup: %s\n", r.CleanupError)
	}
	return b.String()
}

// RunHTTP runs the http scenario: it subscribes cfg.Subscribers local HTTP
// endpoints (raw delivery) to a new topic, waits until all are confirmed,
// publishes for cfg.Duration and reports what arrived where and when.
func RunHTTP(ctx context.Context, cfg Config) (report HTTPReport, err error) {
	if cfg, err = cfg.withDefaults(); err != nil {
		return HTTPReport{}, err
	}
	c := cfg.snsClient()
	defer c.Close()
	report = HTTPReport{Scenario: "http", Server: cfg.Server, Subscribers: cfg.Subscribers, Listeners: cfg.Listeners,
		Publishers: cfg.Concurrency, Rate: cfg.Rate}

	e, err := startEndpoints(cfg.Subscribers, cfg.Listeners, confirmer(c))
	if err != nil {
		return report, err
	}
	defer e.close()
	topic, err := c.CreateTopic(ctx, cfg.Prefix)
	if err != nil {
		return report, err
	}
	report.Topic = topic
	defer func() {
		if cerr := cleanupTopic(c, cfg, topic, &report.TopicLeft); cerr != nil {
			report.CleanupError = cerr.Error()
		}
	}()

	// Subscribe everyone, then wait for the confirmations.
	started := time.Now()
	var next atomic.Int64
	report.Subscribe = loadgen.Run(ctx, ActionSubscribe, loadgen.Config{Concurrency: min(cfg.Concurrency, cfg.Subscribers), Requests: cfg.Subscribers, Progress: cfg.Progress},
		func(ctx context.Context, _, _ int) (int, error) {
			_, err := c.Subscribe(ctx, topic, "http", e.urls[next.Add(1)-1], true)
			return 1, err
		})
	if report.Subscribe.Errors > 0 {
		return report, fmt.Errorf("subscribing: %d of %d failed, first: %s", report.Subscribe.Errors, cfg.Subscribers, report.Subscribe.FirstError)
	}
	waitCtx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	e.waitConfirmed(waitCtx, cfg.Subscribers)
	cancel()
	report.ConfirmElapsed = time.Since(started)
	report.Confirmed = int(e.confirmed.Load())
	report.ConfirmErrors = int(e.confirmFailures.Load())
	report.ConfirmError, _ = e.firstConfirmError.Load().(string)
	if ctx.Err() != nil {
		return report, ctx.Err()
	}
	if report.Confirmed < cfg.Subscribers {
		return report, fmt.Errorf("only %d of %d subscriptions were confirmed within %s", report.Confirmed, cfg.Subscribers, cfg.Timeout)
	}

	// Publish.
	var (
		seqs atomic.Int64
		mu   sync.Mutex
		ok   []bool // by message number: did its Publish succeed
	)
	publishStart := time.Now()
	report.Publish = loadgen.Run(ctx, ActionPublish, loadgen.Config{Concurrency: cfg.Concurrency, Duration: cfg.Duration, Rate: cfg.Rate, Progress: cfg.Progress},
		func(opCtx context.Context, _, _ int) (int, error) {
			seq := int(seqs.Add(1) - 1)
			at := loadgen.Scheduled(opCtx)
			if at.IsZero() {
				at = time.Now()
			}
			// The call gets the run's context, not the op's: a Publish in
			// flight when the duration ends completes, so whether its
			// message was published is known.
			_, err := c.Publish(ctx, topic, message(seq, at.UnixNano(), cfg.MessageSize))
			mu.Lock()
			if seq >= len(ok) {
				ok = append(ok, make([]bool, seq+1-len(ok)+1024)...)
			}
			ok[seq] = err == nil
			mu.Unlock()
			return 1, err
		})
	mu.Lock()
	ok = ok[:min(len(ok), int(seqs.Load()))]
	for _, published := range ok {
		if published {
			report.Published++
		}
	}
	mu.Unlock()
	report.PublishesPerSec = float64(report.Published) / report.Publish.Elapsed.Seconds()

	// Drain: wait for what is still on its way. Delivered also counts
	// messages whose Publish failed, so once it is high enough the
	// expected arrivals are checked one by one.
	want := int64(report.Published * report.Confirmed)
	drainStart := time.Now()
	drainCtx, cancel := context.WithTimeout(ctx, cfg.Drain)
	for drainCtx.Err() == nil {
		if e.delivered.Load() >= want {
			if _, lost, _, _ := e.tally(ok, false); lost == 0 {
				break
			}
		}
		select {
		case <-drainCtx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	report.Drained = time.Since(drainStart)

	var latencies []time.Duration
	report.Expected, report.Lost, report.Unexpected, latencies = e.tally(ok, true)
	report.Delivered = int(e.delivered.Load())
	report.Duplicates = int(e.duplicates.Load())
	report.Enveloped = int(e.enveloped.Load())
	report.Malformed = int(e.malformed.Load())
	report.FirstMalformed, _ = e.firstMalformed.Load().(string)
	if last := e.lastArrival.Load(); last > 0 {
		report.DeliverySpan = time.Unix(0, last).Sub(publishStart)
		report.DeliveriesPerSec = float64(report.Delivered) / report.DeliverySpan.Seconds()
	}
	s := loadgen.Summarize(loadgen.Result{}, latencies)
	report.Latency = Latency{P50: s.P50, P90: s.P90, P99: s.P99, P999: s.P999, Max: s.Max}
	return report, nil
}

// confirmer confirms a subscription the way a real endpoint does: by
// fetching its SubscribeURL, or with ConfirmSubscription and the token when
// the server sent no URL.
func confirmer(c *Client) func(context.Context, confirmation) error {
	get := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16}}
	return func(ctx context.Context, conf confirmation) error {
		if conf.SubscribeURL == "" {
			return c.ConfirmSubscription(ctx, conf.TopicArn, conf.Token)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, conf.SubscribeURL, nil)
		if err != nil {
			return fmt.Errorf("SubscribeURL: %w", err)
		}
		resp, err := get.Do(req)
		if err != nil {
			return fmt.Errorf("SubscribeURL: %w", err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("SubscribeURL: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
		}
		return nil
	}
}

// cleanupTopic deletes the topic unless cfg.Keep, in which case it names
// it in *left. It runs after an interrupted run too, on its own deadline.
func cleanupTopic(c *Client, cfg Config, topic string, left *string) error {
	if cfg.Keep {
		*left = topic
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.DeleteTopic(ctx, topic); err != nil {
		*left = topic
		return err
	}
	return nil
}
