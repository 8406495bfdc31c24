package alertload

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heraldmq/herald/internal/promtext"
	"github.com/heraldmq/herald/load/loadgen"
	"github.com/heraldmq/herald/load/snsload"
	"github.com/heraldmq/herald/load/sqsload"
)

// AlertReport is what one alert measured.
type AlertReport struct {
	Name       string            `json:"name"`
	Attributes map[string]string `json:"attributes"`
	Matching   int               `json:"matching"` // devices its filter reaches
	// EnqueuedAllS is the time from the start of the Publish call until the
	// server's count of SNS deliveries (herald_sns_deliveries_total
	// {outcome="delivered"}) had grown by Matching: every matching queue
	// held the message. Null when not reached within Timeout.
	EnqueuedAllS   *float64 `json:"enqueued_all_s"`
	DeliveriesPerS float64  `json:"deliveries_per_s"`
	Connected      int      `json:"connected"` // connected devices it matches
	ConnectedGot   int      `json:"connected_got"`
	ConnectedP50Ms *float64 `json:"connected_p50_ms"`
	ConnectedP99Ms *float64 `json:"connected_p99_ms"`
	ConnectedMaxMs *float64 `json:"connected_max_ms"`
	// SubscriptionsRead is how many subscriptions the server's fan-out
	// read for it (herald_sns_subscriptions_read_total, once its publish
	// job was done): with the filter index, about Matching, not Devices.
	SubscriptionsRead *float64 `json:"subscriptions_read"`
	// Progress samples, every pollEvery from its publish, how many
	// matching queues held it and how many connected devices had it.
	Progress []ProgressPoint `json:"progress"`
}

// ProgressPoint is one sample of an alert's fan-out.
type ProgressPoint struct {
	AtS       float64 `json:"at_s"`
	Enqueued  int     `json:"enqueued"`
	Connected int     `json:"connected"`
}

// Report is what a run measured. Its first fields are the nationwide
// alert's, the run's headline.
type Report struct {
	Devices        int      `json:"devices"`
	EnqueuedAllS   *float64 `json:"enqueued_all_s"`
	DeliveriesPerS float64  `json:"deliveries_per_s"`
	ConnectedP99Ms *float64 `json:"connected_p99_ms"` // over the three alerts
	Lost           int      `json:"lost"`
	Duplicates     int      `json:"duplicates"`

	Server      string `json:"server"`
	Topic       string `json:"topic_arn"`
	Connected   int    `json:"connected"`
	Late        int    `json:"late"`
	States      int    `json:"states"`
	Zips        int    `json:"zips"`
	Concurrency int    `json:"concurrency"`

	CreateQueues loadgen.Result `json:"create_queues"`
	Subscribe    loadgen.Result `json:"subscribe"`
	ListQueuesS  float64        `json:"list_queues_s"` // paging through every device queue by prefix, 1,000 a page
	Listed       int            `json:"listed"`
	ConnectS     float64        `json:"connect_s"` // opening the connected devices' WebSockets

	IdleS          float64 `json:"idle_s,omitempty"`
	IdleCPUPercent float64 `json:"idle_cpu_percent_of_a_core,omitempty"` // the server's CPU while idle with every device created
	RSSIdleBytes   float64 `json:"rss_idle_bytes"`                       // the server's resident memory once every device was created
	RSSPeakBytes   float64 `json:"rss_peak_bytes"`                       // sampled every 2 seconds through the run

	Alerts       []AlertReport `json:"alerts"`
	LateGot      int           `json:"late_got"`  // late devices that got all their alerts on connecting
	ReadBack     int           `json:"read_back"` // offline devices whose queues were read
	ReadBackS    float64       `json:"read_back_s"`
	Unexpected   int           `json:"unexpected"` // alerts a device's filter should not have let through
	OtherFrames  int           `json:"other_frames"`
	ClosedEarly  int           `json:"closed_early"`
	FirstError   string        `json:"first_error,omitempty"`
	Left         string        `json:"left,omitempty"`
	CleanupError string        `json:"cleanup_error,omitempty"`
}

// String renders the report for a terminal.
func (r Report) String() string {
	var b strings.Builder
	ms := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.0f ms", *p)
	}
	s := func(p *float64) string {
		if p == nil {
			return "not reached"
		}
		return fmt.Sprintf("%.2f s", *p)
	}
	fmt.Fprintf(&b, "alert: %d devices (%d states, %d zip codes), %d connected, %d connecting late\n", r.Devices, r.States, r.Zips, r.Connected, r.Late)
	fmt.Fprintf(&b, "%s\n%s\n", r.CreateQueues, r.Subscribe)
	fmt.Fprintf(&b, "ListQueues by prefix: %d queues in %.1f s; WebSockets opened in %.1f s\n", r.Listed, r.ListQueuesS, r.ConnectS)
	if r.IdleS > 0 {
		fmt.Fprintf(&b, "idle for %.0f s with every device: %.2f%% of a core; resident %.0f MiB\n", r.IdleS, r.IdleCPUPercent, r.RSSIdleBytes/(1<<20))
	}
	for _, a := range r.Alerts {
		read := "-"
		if a.SubscriptionsRead != nil {
			read = fmt.Sprintf("%.0f", *a.SubscriptionsRead)
		}
		fmt.Fprintf(&b, "%-10s %8d devices: in every queue by %s (%.0f deliveries/s, %s subscriptions read); %d of %d connected devices got it, p50 %s, p99 %s, max %s\n",
			a.Name, a.Matching, s(a.EnqueuedAllS), a.DeliveriesPerS, read, a.ConnectedGot, a.Connected, ms(a.ConnectedP50Ms), ms(a.ConnectedP99Ms), ms(a.ConnectedMaxMs))
	}
	fmt.Fprintf(&b, "late devices with all their alerts: %d of %d; offline queues read back: %d in %.1f s\n", r.LateGot, r.Late, r.ReadBack, r.ReadBackS)
	fmt.Fprintf(&b, "lost %d, duplicates %d, unexpected %d; peak resident memory %.0f MiB\n", r.Lost, r.Duplicates, r.Unexpected, r.RSSPeakBytes/(1<<20))
	if r.ClosedEarly > 0 {
		fmt.Fprintf(&b, "connections ended by the server: %d (first: %s)\n", r.ClosedEarly, r.FirstError)
	}
	if r.Left != "" {
		fmt.Fprintf(&b, "topic and queues left on the server: %s*\n", r.Left)
	}
	if r.CleanupError != "" {
		fmt.Fprintf(&b, "cleanup: %s\n", r.CleanupError)
	}
	return b.String()
}

// Run runs the alert benchmark against cfg.Server.
func Run(ctx context.Context, cfg Config) (report Report, err error) {
	if cfg, err = cfg.withDefaults(); err != nil {
		return Report{}, err
	}
	report = Report{Devices: cfg.Devices, Server: cfg.Server, Connected: cfg.Connected, Late: cfg.Late,
		States: cfg.States, Zips: cfg.Zips, Concurrency: cfg.Concurrency}
	sns := snsload.NewClient(cfg.Server, cfg.Concurrency, time.Minute, cfg.AccessKey, cfg.SecretKey, cfg.Region)
	defer sns.Close()
	sqs := sqsload.NewClient(cfg.Server, sqsload.Options{Connections: cfg.Concurrency, Timeout: time.Minute,
		AccessKey: cfg.AccessKey, SecretKey: cfg.SecretKey, Region: cfg.Region})
	defer sqs.Close()
	metrics := &http.Client{Timeout: 10 * time.Second}

	peak := promtext.SamplePeakRSS(ctx, metrics, cfg.Server+"/metrics", 2*time.Second)
	defer func() { report.RSSPeakBytes = peak.Stop() }()

	isConnected, isLate := cfg.fleet()

	// The devices: a queue each, subscribed with its filter policy.
	topic, err := sns.CreateTopic(ctx, cfg.Prefix)
	if err != nil {
		return report, err
	}
	report.Topic = topic
	urls := make([]string, cfg.Devices)
	defer func() {
		if cerr := cleanup(sns, sqs, cfg, ctx.Err() != nil, topic, urls, &report); cerr != nil {
			report.CleanupError = cerr.Error()
		}
	}()
	var next atomic.Int64
	report.CreateQueues = loadgen.Run(ctx, sqsload.ActionCreateQueue, cfg.workers(cfg.Devices), func(ctx context.Context, _, _ int) (int, error) {
		i := int(next.Add(1) - 1)
		u, err := sqs.CreateQueue(ctx, cfg.queueName(i), nil)
		urls[i] = u
		return 1, err
	})
	if report.CreateQueues.Errors > 0 || ctx.Err() != nil {
		return report, fmt.Errorf("creating queues: %d of %d failed, first: %s", report.CreateQueues.Errors, cfg.Devices, report.CreateQueues.FirstError)
	}
	first, err := sns.QueueARN(ctx, urls[0])
	if err != nil {
		return report, err
	}
	arnPrefix, ok := strings.CutSuffix(first, ":"+cfg.queueName(0))
	if !ok {
		return report, fmt.Errorf("queue ARN %s does not end in the queue's name", first)
	}
	next.Store(0)
	report.Subscribe = loadgen.Run(ctx, snsload.ActionSubscribe, cfg.workers(cfg.Devices), func(ctx context.Context, _, _ int) (int, error) {
		i := int(next.Add(1) - 1)
		_, err := sns.SubscribeWith(ctx, topic, "sqs", arnPrefix+":"+cfg.queueName(i),
			map[string]string{"RawMessageDelivery": "true", "FilterPolicy": cfg.policy(i)})
		return 1, err
	})
	if report.Subscribe.Errors > 0 || ctx.Err() != nil {
		return report, fmt.Errorf("subscribing: %d of %d failed, first: %s", report.Subscribe.Errors, cfg.Devices, report.Subscribe.FirstError)
	}

	// Paging through them, then the server idle with all of them.
	start := time.Now()
	for tok := ""; ; {
		page, nextTok, err := sqs.ListQueues(ctx, cfg.Prefix+"-", tok, 1000)
		if err != nil {
			return report, fmt.Errorf("ListQueues: %w", err)
		}
		report.Listed += len(page)
		if nextTok == "" {
			break
		}
		tok = nextTok
	}
	report.ListQueuesS = time.Since(start).Seconds()
	if report.Listed != cfg.Devices {
		return report, fmt.Errorf("ListQueues by prefix listed %d queues, not the %d created", report.Listed, cfg.Devices)
	}
	if cfg.Idle > 0 {
		if report.IdleCPUPercent, err = idleCPU(ctx, metrics, cfg.Server+"/metrics", cfg.Idle); err != nil {
			return report, err
		}
		report.IdleS = cfg.Idle.Seconds()
	}
	if m, err := promtext.FetchMemory(ctx, metrics, cfg.Server+"/metrics"); err == nil {
		report.RSSIdleBytes = m.ResidentBytes
	}

	// The connected devices.
	alerts := cfg.alerts()
	rec := newArrivals(len(alerts))
	runCtx, stopDevices := context.WithCancel(ctx)
	defer stopDevices()
	var readers sync.WaitGroup
	defer readers.Wait()
	defer stopDevices()
	wsURL := "ws" + strings.TrimPrefix(cfg.Server, "http") + "/v1/ws"
	connected := slices.Sorted(maps.Keys(isConnected))
	start = time.Now()
	if err := openDevices(runCtx, cfg, wsURL, connected, rec, &readers); err != nil {
		return report, err
	}
	report.ConnectS = time.Since(start).Seconds()

	// The alerts, one after the other.
	for n, a := range alerts {
		ar := AlertReport{Name: a.Name, Attributes: a.Attrs}
		for i := range cfg.Devices {
			if cfg.matches(i, a) {
				ar.Matching++
				if isConnected[i] {
					ar.Connected++
				}
			}
		}
		base, counted, err := sns.Delivered(ctx)
		if err != nil || !counted {
			return report, fmt.Errorf("the server's count of SNS deliveries (herald_sns_deliveries_total) cannot be read: %v", err)
		}
		before, _ := promtext.Fetch(ctx, metrics, cfg.Server+"/metrics", publishedMetric, readMetric)
		t0 := time.Now()
		rec.setPublished(n, t0)
		if _, err := sns.PublishWith(ctx, topic, alertBody(cfg.Prefix, n, t0), a.Attrs); err != nil {
			return report, err
		}
		deadline := t0.Add(cfg.Timeout)
		// Until every matching queue holds it and every matching connected
		// device has it, sampled for the report's progress (and plot).
		for time.Now().Before(deadline) && ctx.Err() == nil {
			got, _, err := sns.Delivered(ctx)
			at := time.Since(t0).Seconds()
			if err == nil && ar.EnqueuedAllS == nil {
				ar.Progress = append(ar.Progress, ProgressPoint{AtS: at, Enqueued: min(ar.Matching, int(got-base)), Connected: rec.count(n)})
				if got >= base+float64(ar.Matching) {
					ar.EnqueuedAllS, ar.DeliveriesPerS = &at, float64(ar.Matching)/at
				}
			} else {
				ar.Progress = append(ar.Progress, ProgressPoint{AtS: at, Enqueued: ar.Matching, Connected: rec.count(n)})
			}
			if ar.EnqueuedAllS != nil && rec.count(n) >= ar.Connected {
				break
			}
			time.Sleep(pollEvery)
		}
		for time.Now().Before(deadline) && ctx.Err() == nil {
			now, err := promtext.Fetch(ctx, metrics, cfg.Server+"/metrics", publishedMetric, readMetric)
			if _, ok := before[readMetric]; err == nil && ok && now[publishedMetric] > before[publishedMetric] {
				read := now[readMetric] - before[readMetric]
				ar.SubscriptionsRead = &read
				break
			}
			time.Sleep(pollEvery)
		}
		rec.mu.Lock()
		ar.ConnectedGot = len(rec.got[n])
		ar.ConnectedP50Ms, ar.ConnectedP99Ms, ar.ConnectedMaxMs = quantileMs(rec.latencies[n], 0.50), quantileMs(rec.latencies[n], 0.99), quantileMs(rec.latencies[n], 1)
		rec.mu.Unlock()
		report.Alerts = append(report.Alerts, ar)
		if ctx.Err() != nil {
			return report, ctx.Err()
		}
	}
	last := report.Alerts[len(report.Alerts)-1]
	report.EnqueuedAllS, report.DeliveriesPerS = last.EnqueuedAllS, last.DeliveriesPerS
	rec.mu.Lock()
	report.ConnectedP99Ms = quantileMs(slices.Concat(rec.latencies...), 0.99)
	rec.mu.Unlock()

	// The late devices connect and get what they missed.
	late := slices.Sorted(maps.Keys(isLate))
	lateRec := newArrivals(len(alerts))
	if err := openDevices(runCtx, cfg, wsURL, late, lateRec, &readers); err != nil {
		return report, err
	}
	want := func(i int) int {
		n := 0
		for _, a := range alerts {
			if cfg.matches(i, a) {
				n++
			}
		}
		return n
	}
	lateWant := 0
	for _, i := range late {
		lateWant += want(i)
	}
	lateDeadline := time.Now().Add(cfg.Timeout)
	for time.Now().Before(lateDeadline) && ctx.Err() == nil {
		lateRec.mu.Lock()
		n := 0
		for a := range alerts {
			n += len(lateRec.got[a])
		}
		lateRec.mu.Unlock()
		if n >= lateWant {
			break
		}
		time.Sleep(pollEvery)
	}
	time.Sleep(500 * time.Millisecond) // duplicates still on their way are counted too
	stopDevices()
	readers.Wait()

	// The accounting: every device's alerts, over its WebSocket or read
	// back from its queue.
	account := func(i int, got func(n int) int) {
		complete := true
		for n, a := range alerts {
			g, w := got(n), 0
			if cfg.matches(i, a) {
				w = 1
			}
			switch {
			case g < w:
				report.Lost++
				complete = false
			case g > w && w == 0:
				report.Unexpected += g
			case g > w:
				report.Duplicates += g - w
			}
		}
		if complete && isLate[i] {
			report.LateGot++
		}
	}
	for _, r := range []*arrivals{rec, lateRec} {
		r.mu.Lock()
		report.OtherFrames += r.other
		report.ClosedEarly += r.closed
		if report.FirstError == "" {
			report.FirstError = r.firstErr
		}
		r.mu.Unlock()
	}
	for _, i := range connected {
		account(i, func(n int) int { return rec.got[n][i] })
	}
	for _, i := range late {
		account(i, func(n int) int { return lateRec.got[n][i] })
	}
	start = time.Now()
	counts, rb, err := readBack(ctx, sqs, cfg, urls, len(alerts), func(i int) bool { return !isConnected[i] && !isLate[i] })
	if err != nil {
		return report, err
	}
	report.ReadBackS, report.ReadBack = time.Since(start).Seconds(), rb
	for i := range cfg.Devices {
		if !isConnected[i] && !isLate[i] {
			account(i, func(n int) int { return int(counts[i][n]) })
		}
	}
	if report.Lost > 0 || report.Unexpected > 0 {
		return report, fmt.Errorf("%d alerts lost, %d delivered against the filter", report.Lost, report.Unexpected)
	}
	return report, nil
}

// pollEvery is how often a run reads the server's counters and its
// devices' progress while it waits: /metrics costs the server a walk over
// every queue it has served (a million here), so not much more often.
const pollEvery = 100 * time.Millisecond

// workers is the loadgen configuration of a setup phase of n calls.
func (c Config) workers(n int) loadgen.Config {
	return loadgen.Config{Concurrency: max(1, min(c.Concurrency, n)), Requests: n, Progress: c.Progress}
}

// openDevices connects the devices ids (at most Concurrency at a time) and
// starts their readers.
func openDevices(ctx context.Context, cfg Config, wsURL string, ids []int, rec *arrivals, readers *sync.WaitGroup) error {
	var (
		next  atomic.Int64
		mu    sync.Mutex
		first error
	)
	r := loadgen.Run(ctx, "connect", cfg.workers(len(ids)), func(opCtx context.Context, _, _ int) (int, error) {
		i := ids[next.Add(1)-1]
		d, err := connectDevice(opCtx, wsURL, i, cfg.queueName(i))
		if err != nil {
			mu.Lock()
			if first == nil {
				first = fmt.Errorf("device %d: %w", i, err)
			}
			mu.Unlock()
			return 1, err
		}
		readers.Add(1)
		go func() { // on ctx, the run's: the op's ends with the connecting
			defer readers.Done()
			defer d.ws.CloseNow()
			d.read(ctx, rec)
		}()
		return 1, nil
	})
	if len(ids) > 0 && r.Errors > 0 {
		return fmt.Errorf("connecting %d devices: %d failed, first: %v", len(ids), r.Errors, first)
	}
	return nil
}

// readBack reads the queue of every offline device until it answers
// empty, and counts its alerts by number (messages stay in flight for 15
// minutes, so none is read twice).
func readBack(ctx context.Context, q *sqsload.Client, cfg Config, urls []string, alerts int, offline func(int) bool) ([][]uint8, int, error) {
	counts := make([][]uint8, len(urls))
	var ids []int
	for i := range urls {
		if offline(i) {
			ids = append(ids, i)
		}
	}
	var next atomic.Int64
	r := loadgen.Run(ctx, sqsload.ActionReceiveMessage, cfg.workers(len(ids)), func(ctx context.Context, _, _ int) (int, error) {
		i := ids[next.Add(1)-1]
		c := make([]uint8, alerts)
		var buf []sqsload.Message
		for {
			got, err := q.Receive(ctx, q.ReceiveRequest(urls[i], 10, 0, 900), buf[:0])
			if err != nil {
				return 1, err
			}
			if len(got) == 0 {
				break
			}
			for _, m := range got {
				if n, _, ok := parseAlert(m.Body); ok && n < alerts {
					c[n]++
				}
			}
			buf = got
		}
		counts[i] = c
		return 1, nil
	})
	if r.Errors > 0 {
		return nil, 0, fmt.Errorf("reading the queues back: %d of %d failed, first: %s", r.Errors, len(ids), r.FirstError)
	}
	return counts, len(ids), nil
}

// quantileMs is the q quantile of ds in milliseconds (nil when empty).
func quantileMs(ds []time.Duration, q float64) *float64 {
	if len(ds) == 0 {
		return nil
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	k := min(len(s)-1, max(0, int(q*float64(len(s))+0.999999)-1))
	v := float64(s[k]) / float64(time.Millisecond)
	return &v
}

// cleanup deletes the topic and the queues unless cfg.Keep or the run was
// interrupted.
func cleanup(c *snsload.Client, q *sqsload.Client, cfg Config, interrupted bool, topic string, urls []string, report *Report) error {
	if cfg.Keep || interrupted {
		report.Left = cfg.Prefix
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	err := c.DeleteTopic(ctx, topic)
	cancel()
	urls = slices.DeleteFunc(slices.Clone(urls), func(u string) bool { return u == "" })
	var next atomic.Int64
	d := loadgen.Run(context.Background(), sqsload.ActionDeleteQueue, cfg.workers(len(urls)), func(ctx context.Context, _, _ int) (int, error) {
		return 1, q.DeleteQueue(ctx, urls[next.Add(1)-1])
	})
	if err == nil && d.Errors > 0 {
		err = fmt.Errorf("deleting queues: %d of %d failed, first: %s", d.Errors, len(urls), d.FirstError)
	}
	if err != nil {
		report.Left = cfg.Prefix
	}
	return err
}
