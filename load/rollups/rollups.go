package rollups

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Config says what to run.
type Config struct {
	Server           string        // Herald's base URL
	Account          string        // the account of the rollup and its queue (the server's default when it allows anonymous calls)
	Duration         time.Duration // how long events are sent
	Rate             float64       // events per second in all (0: as fast as the senders go)
	Senders          int           // concurrent SendMessageBatch callers (the queue door)
	APISenders       int           // concurrent POST .../events callers (the API door)
	Overlap          float64       // the fraction of each batch made of events another sender sent before, the other door's first (0 to 1)
	EventsPerMessage int           // events packed in one message (LoopLogic: 10)
	Channels         int           // distinct channels (Zipf); videos, cities, sites scale from it
	Name             string        // rollup and queue name
	Keep             bool          // keep the rollup and queue afterwards
	// Plain makes viewers and first_time sums of deltas, as before
	// rollups had distinct metrics; by default they count the events'
	// viewer member (distinct and first_seen).
	Plain    bool
	Progress io.Writer // a line every few seconds; nil: none
}

// Report is what a run measured.
type Report struct {
	Events             int64         `json:"events"`
	Messages           int64         `json:"messages"`
	Seconds            float64       `json:"seconds"`
	EventsPerSecond    float64       `json:"events_per_second"`
	RowsPerEvent       int           `json:"rows_per_event"`
	CountersPerEvent   int           `json:"counters_per_event"`
	CounterUpdatesPerS float64       `json:"counter_updates_per_second"`
	Settled            time.Duration `json:"settled_ns"` // from the last send until every total matched
	FreshnessP50       time.Duration `json:"freshness_p50_ns"`
	FreshnessP99       time.Duration `json:"freshness_p99_ns"`
	FreshnessProbes    int           `json:"freshness_probes"`
	Resent             int64         `json:"resent"`         // events sent a second time, by another sender (Overlap)
	APIDuplicates      int64         `json:"api_duplicates"` // events the API door answered as duplicates
	Errors             int64         `json:"errors"`         // failed sends and posts (each retried until it succeeded)
	FirstError         string        `json:"first_error,omitempty"`
	Exact              bool          `json:"exact"`
	Mismatches         []string      `json:"mismatches,omitempty"`
}

// Dimensions, drill-downs and metrics of the LoopLogic shape.
var (
	dimensions = []string{"country", "region", "city", "site", "browser", "os", "device", "referrer",
		"player", "quality", "lang", "hour_of_day", "weekday", "source", "medium", "content_type"}
	metrics = []string{"views", "plays", "completions", "q25", "q50", "q75", "seconds_watched", "clicks", "shares",
		"likes", "comments", "ads_started", "ads_completed", "buffering", "errors", "viewers", "first_time", "returning"}
)

// Definition returns the LoopLogic-shaped definition Run defines, fed by
// queueURL (none if ""), with the distinct metrics unless plain: for
// load generators of their own (bench/scale's rollup-queue).
func Definition(queueURL string, plain bool) map[string]any {
	d := definition(queueURL, plain)
	if queueURL == "" {
		delete(d, "sources")
	}
	return d
}

func definition(queueURL string, plain bool) map[string]any {
	d := map[string]any{
		"event":      map[string]string{"id": "id", "time": "time"},
		"scopes":     [][]string{{"channel"}, {"channel", "video"}, {"channel", "video", "campaign"}},
		"metrics":    metrics,
		"dimensions": dimensions,
		"drilldowns": [][]string{{"country", "city"}, {"city", "site"}},
		"periods":    []map[string]string{{"unit": "day"}, {"unit": "week"}, {"unit": "month"}, {"unit": "year"}, {"unit": "all"}},
		"sources":    map[string]string{"queue": queueURL},
	}
	if !plain {
		d["distinct"] = []map[string]string{{"metric": "viewers", "of": "viewer", "kind": "distinct"},
			{"metric": "first_time", "of": "viewer", "kind": "first_seen"}}
	}
	return d
}

// rowsPerEvent and countersPerEvent of the definition, for an event with
// every member.
const (
	rowsPerEvent     = 3 * 5 * (1 + 16 + 2)
	countersPerEvent = rowsPerEvent * 18
)

// reference is the bench's own count: all-time plays per channel, and
// per (channel, city), and the viewers of each channel.
type reference struct {
	mu      sync.Mutex
	plays   map[string]int64
	cities  map[string]map[string]int64
	viewers map[string]map[string]bool
}

func newReference() *reference {
	return &reference{plays: map[string]int64{}, cities: map[string]map[string]int64{}, viewers: map[string]map[string]bool{}}
}

func (r *reference) add(channel, city, viewer string, plays int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.plays[channel] += plays
	if r.viewers[channel] == nil {
		r.viewers[channel] = map[string]bool{}
	}
	r.viewers[channel][viewer] = true
	if r.cities[channel] == nil {
		r.cities[channel] = map[string]int64{}
	}
	r.cities[channel][city] += plays
}

// Run runs the benchmark against cfg.Server.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.Senders < 0 || cfg.APISenders < 0 || cfg.Senders+cfg.APISenders == 0 {
		cfg.Senders, cfg.APISenders = 4, 0
	}
	if cfg.Overlap < 0 || cfg.Overlap > 1 {
		return Report{}, fmt.Errorf("overlap %v: want 0 to 1", cfg.Overlap)
	}
	if cfg.EventsPerMessage <= 0 {
		cfg.EventsPerMessage = 10
	}
	if cfg.Channels <= 0 {
		cfg.Channels = 20
	}
	if cfg.Name == "" {
		cfg.Name = fmt.Sprintf("bench-%d", time.Now().Unix())
	}
	if cfg.Account == "" {
		cfg.Account = "000000000000"
	}
	q := sqs.New(sqs.Options{BaseEndpoint: aws.String(cfg.Server), Region: "us-east-1", RetryMaxAttempts: 3,
		Credentials: aws.AnonymousCredentials{}})
	hc := &http.Client{Timeout: 30 * time.Second}
	created, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(cfg.Name)})
	if err != nil {
		return Report{}, fmt.Errorf("create the queue: %w", err)
	}
	qurl := aws.ToString(created.QueueUrl)
	if err := call(ctx, hc, http.MethodPut, cfg.Server+"/v1/rollups/"+cfg.Name, definition(qurl, cfg.Plain), nil); err != nil {
		return Report{}, fmt.Errorf("define the rollup: %w", err)
	}
	if !cfg.Keep {
		defer func() {
			cctx := context.WithoutCancel(ctx)
			_ = call(cctx, hc, http.MethodDelete, cfg.Server+"/v1/rollups/"+cfg.Name, nil, nil)
			_, _ = q.DeleteQueue(cctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(qurl)})
		}()
	}
	ref := newReference()
	runCtx, stop := context.WithTimeout(ctx, cfg.Duration)
	defer stop()
	start := time.Now()
	var limiter <-chan time.Time
	if cfg.Rate > 0 {
		per := time.Duration(float64(time.Second) * float64(cfg.EventsPerMessage*10) / cfg.Rate)
		t := time.NewTicker(max(per, time.Microsecond))
		defer t.Stop()
		limiter = t.C
	}
	sn := newSenders(cfg, ref, limiter)
	var wg sync.WaitGroup
	for w := range cfg.Senders + cfg.APISenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w < cfg.Senders {
				sn.queue(runCtx, ctx, q, qurl, w)
			} else {
				sn.api(runCtx, ctx, hc, cfg.Server+"/v1/rollups/"+cfg.Name+"/events", w)
			}
		}()
	}
	events, messages := &sn.events, &sn.messages
	probes := freshness(runCtx, hc, q, qurl, cfg)
	progress := time.NewTicker(5 * time.Second)
	defer progress.Stop()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
wait:
	for {
		select {
		case <-done:
			break wait
		case <-progress.C:
			if cfg.Progress != nil {
				e := events.Load()
				fmt.Fprintf(cfg.Progress, "rollups: %s: %d events sent (%.0f/s)\n", time.Since(start).Round(time.Second), e, float64(e)/time.Since(start).Seconds())
			}
		}
	}
	sent := time.Since(start)
	lat := <-probes
	if ctx.Err() != nil {
		return Report{}, ctx.Err()
	}
	rep := Report{Events: events.Load(), Messages: messages.Load(), Seconds: sent.Seconds(), RowsPerEvent: rowsPerEvent, CountersPerEvent: countersPerEvent,
		Resent: sn.resent.Load(), APIDuplicates: sn.apiDuplicates.Load(), Errors: sn.errors.Load(), FirstError: sn.firstError()}
	rep.FreshnessProbes = len(lat)
	if len(lat) > 0 {
		slices.Sort(lat)
		rep.FreshnessP50, rep.FreshnessP99 = lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
	}
	// Wait until every total matches the reference.
	deadline := time.Now().Add(5 * time.Minute)
	for {
		rep.Mismatches = check(ctx, hc, cfg, ref)
		if len(rep.Mismatches) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Second)
	}
	rep.Settled = time.Since(start) - sent
	rep.Exact = len(rep.Mismatches) == 0
	// The rate is of events counted: sent, then settled.
	rep.EventsPerSecond = float64(rep.Events) / (time.Since(start).Seconds())
	rep.CounterUpdatesPerS = rep.EventsPerSecond * countersPerEvent
	return rep, nil
}

// check compares the server's all-time plays per channel, and the top
// cities of every channel, with the reference, and unless cfg.Plain the
// channel's all-time viewers and first-time viewers (both the number of
// its distinct viewers); it returns the mismatches.
func check(ctx context.Context, hc *http.Client, cfg Config, ref *reference) []string {
	ref.mu.Lock()
	defer ref.mu.Unlock()
	var bad []string
	for channel, want := range ref.plays {
		var tot struct{ Values []int64 }
		q := url.Values{"scope.channel": {channel}, "unit": {"all"}, "metrics": {"plays,viewers,first_time"}}
		if err := call(ctx, hc, http.MethodGet, cfg.Server+"/v1/rollups/"+cfg.Name+"/totals?"+q.Encode(), nil, &tot); err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", channel, err))
			continue
		}
		if len(tot.Values) != 3 || tot.Values[0] != want {
			bad = append(bad, fmt.Sprintf("channel %s: plays %v, want %d", channel, tot.Values, want))
			continue
		}
		if v := int64(len(ref.viewers[channel])); !cfg.Plain && (tot.Values[1] != v || tot.Values[2] != v) {
			bad = append(bad, fmt.Sprintf("channel %s: viewers and first-time viewers %v, want %d", channel, tot.Values[1:], v))
			continue
		}
		var top struct {
			Values []struct {
				Value  string
				Values []int64
			}
		}
		q = url.Values{"scope.channel": {channel}, "unit": {"all"}, "dimension": {"city"}, "order_by": {"plays"}, "n": {"1000"}}
		if err := call(ctx, hc, http.MethodGet, cfg.Server+"/v1/rollups/"+cfg.Name+"/top?"+q.Encode(), nil, &top); err != nil {
			bad = append(bad, fmt.Sprintf("%s top: %v", channel, err))
			continue
		}
		got := map[string]int64{}
		for _, v := range top.Values {
			got[v.Value] = v.Values[1] // plays is the second metric
		}
		for city, p := range ref.cities[channel] {
			if got[city] != p {
				bad = append(bad, fmt.Sprintf("channel %s, city %s: plays %d, want %d", channel, city, got[city], p))
				break
			}
		}
	}
	return bad
}

// generator makes LoopLogic-shaped events.
type generator struct {
	r                               *rand.Rand
	channels, videos, cities, sites *rand.Zipf
	countries, viewers              *rand.Zipf
}

func newGenerator(seed uint64, channels int) *generator {
	r := rand.New(rand.NewPCG(seed, 42))
	z := func(n int) *rand.Zipf { return rand.NewZipf(r, 1.2, 1, uint64(n-1)) }
	return &generator{r: r, channels: z(channels), videos: z(channels * 10), countries: z(60), cities: z(1000), sites: z(500), viewers: z(channels * 1000)}
}

// message returns one message body: an array of n events.
func (g *generator) message(prefix string, n int, ref *reference) string {
	var b strings.Builder
	b.WriteByte('[')
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(g.counted(fmt.Sprintf("%s-%d", prefix, i), now, ref))
	}
	b.WriteByte(']')
	return b.String()
}

// counted returns a new event as JSON, counted in ref.
func (g *generator) counted(id, at string, ref *reference) []byte {
	e := g.event(id, at)
	ref.add(e["channel"].(string), e["city"].(string), e["viewer"].(string), int64(e["plays"].(int)))
	raw, _ := json.Marshal(e)
	return raw
}

// event returns one event with the members of the definition (every one
// but region): string values for the scopes and dimensions, int deltas
// for the metrics.
func (g *generator) event(id, at string) map[string]any {
	e := map[string]any{"id": id, "time": at,
		"channel": fmt.Sprint("c", g.channels.Uint64())}
	city := fmt.Sprint("city", g.cities.Uint64())
	e["video"], e["campaign"] = fmt.Sprint("v", g.videos.Uint64()), fmt.Sprint("k", g.r.IntN(5))
	e["country"], e["city"], e["site"] = fmt.Sprint("cc", g.countries.Uint64()), city, fmt.Sprint("s", g.sites.Uint64())
	for j, d := range dimensions[4:] {
		e[d] = fmt.Sprint(d[:2], g.r.IntN(3+j))
	}
	for j, m := range metrics {
		e[m] = g.r.IntN(2 + j%3)
	}
	e["viewer"] = fmt.Sprint("u", g.viewers.Uint64())
	return e
}

// Generator makes LoopLogic-shaped events, as Run sends them, for load
// generators of their own (bench/scale's rollup-queue): Zipf-distributed
// channels (c0, c1, ...), videos, countries (cc0 ... cc59), cities (city0
// ... city999) and sites, the other dimensions uniform, and every metric a
// small delta (plays 0 to 2). It is not safe for concurrent use: one per
// sender.
type Generator struct{ g *generator }

// NewGenerator returns a Generator drawing from seed over channels
// channels (videos are 10 per channel; 0 or less: Run's default, 20).
func NewGenerator(seed uint64, channels int) *Generator {
	if channels <= 0 {
		channels = 20
	}
	return &Generator{g: newGenerator(seed, channels)}
}

// Event returns one event named id at time at: "id", "time" (RFC 3339),
// the members of the LoopLogic definition's scopes (channel, video,
// campaign) and dimensions (country, city, site, ...; every one but
// region) and its viewer (u0, u1, ..., Zipf over 1,000 per channel) as
// strings, and its metrics (views, plays, ...) as int deltas (those of
// viewers and first_time unread by a definition counting viewers).
// The caller may add members.
func (g *Generator) Event(id string, at time.Time) map[string]any {
	return g.g.event(id, at.UTC().Format(time.RFC3339Nano))
}

// freshness sends a probe event in a channel of its own every 500 ms and
// times until a query shows it; the latencies come on the channel when ctx
// ends.
func freshness(ctx context.Context, hc *http.Client, q *sqs.Client, qurl string, cfg Config) <-chan []time.Duration {
	out := make(chan []time.Duration, 1)
	go func() {
		var lat []time.Duration
		defer func() { out <- lat }()
		for i := 0; ctx.Err() == nil; i++ {
			channel := fmt.Sprintf("probe-%d-%d", time.Now().UnixNano(), i)
			body := fmt.Sprintf(`{"id": %q, "time": %q, "channel": %q, "plays": 1}`, channel, time.Now().UTC().Format(time.RFC3339Nano), channel)
			sent := time.Now()
			if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(qurl), MessageBody: aws.String(body)}); err != nil {
				return
			}
			for ctx.Err() == nil && time.Since(sent) < 30*time.Second {
				var tot struct{ Values []int64 }
				qs := url.Values{"scope.channel": {channel}, "unit": {"all"}, "metrics": {"plays"}}
				if call(ctx, hc, http.MethodGet, cfg.Server+"/v1/rollups/"+cfg.Name+"/totals?"+qs.Encode(), nil, &tot) == nil &&
					len(tot.Values) == 1 && tot.Values[0] == 1 {
					lat = append(lat, time.Since(sent))
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			select {
			case <-ctx.Done():
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	return out
}

// call sends a JSON request and decodes a 2xx answer into out.
func call(ctx context.Context, hc *http.Client, method, u string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = strings.NewReader(string(b))
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, u, resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}
