package snsload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// endpoints are the http scenario's local subscribers: Subscribers URLs
// (/s/<index>) spread over Listeners ports of 127.0.0.1. They confirm their
// subscriptions and record every notification's arrival.
type endpoints struct {
	urls    []string
	servers []*http.Server
	subs    []subscriber
	confirm func(ctx context.Context, c confirmation) error
	ctx     context.Context // ends confirmations still running when the endpoints close
	cancel  context.CancelFunc
	wg      sync.WaitGroup // confirmations in flight

	confirmed, confirmFailures atomic.Int64
	firstConfirmError          atomic.Value // string
	delivered, duplicates      atomic.Int64
	enveloped                  atomic.Int64 // notifications wrapped in the JSON envelope despite raw delivery
	malformed                  atomic.Int64
	firstMalformed             atomic.Value // string
	lastArrival                atomic.Int64 // Unix nanoseconds
}

// subscriber is what one endpoint received.
type subscriber struct {
	confirmed atomic.Bool
	mu        sync.Mutex
	counts    []uint8 // deliveries by message number, saturating
	latencies []time.Duration
}

// confirmation is what a SubscriptionConfirmation request carries.
type confirmation struct {
	SubscribeURL string `json:"SubscribeURL"`
	Token        string `json:"Token"`
	TopicArn     string `json:"TopicArn"`
}

// startEndpoints listens on listeners ports of 127.0.0.1 for n subscribers;
// confirm confirms one subscription.
func startEndpoints(n, listeners int, confirm func(context.Context, confirmation) error) (*endpoints, error) {
	e := &endpoints{urls: make([]string, n), subs: make([]subscriber, n), confirm: confirm}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	ports := make([]string, listeners)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			e.close()
			return nil, fmt.Errorf("subscriber listener: %w", err)
		}
		srv := &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
		e.servers = append(e.servers, srv)
		go srv.Serve(l)
		ports[i] = l.Addr().String()
	}
	for i := range e.urls {
		e.urls[i] = "http://" + ports[i%listeners] + "/s/" + strconv.Itoa(i)
	}
	return e, nil
}

// close stops the listeners and waits for running confirmations.
func (e *endpoints) close() {
	e.cancel()
	for _, s := range e.servers {
		s.Close()
	}
	e.wg.Wait()
}

// ServeHTTP takes one request of the server to a subscriber.
func (e *endpoints) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	index, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/s/"))
	if r.Method != http.MethodPost || err != nil || index < 0 || index >= len(e.subs) {
		e.bad(fmt.Sprintf("%s %s: not a subscriber", r.Method, r.URL.Path))
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	now := time.Now()
	if err != nil {
		e.bad("reading a request: " + err.Error())
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	switch kind := r.Header.Get("x-amz-sns-message-type"); kind {
	case "Notification":
		e.notification(&e.subs[index], body, now)
	case "SubscriptionConfirmation":
		var c confirmation
		if err := json.Unmarshal(body, &c); err != nil || (c.SubscribeURL == "" && c.Token == "") {
			e.bad("a SubscriptionConfirmation without SubscribeURL or Token")
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		// Confirm after answering: the server may wait for this answer
		// before it serves the confirmation.
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.confirmOne(&e.subs[index], c)
		}()
	case "UnsubscribeConfirmation":
	default:
		e.bad(fmt.Sprintf("x-amz-sns-message-type %q", kind))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (e *endpoints) confirmOne(s *subscriber, c confirmation) {
	if s.confirmed.Load() {
		return
	}
	if err := e.confirm(e.ctx, c); err != nil {
		e.confirmFailures.Add(1)
		e.firstConfirmError.CompareAndSwap(nil, err.Error())
		return
	}
	if s.confirmed.CompareAndSwap(false, true) {
		e.confirmed.Add(1)
	}
}

// notification records one delivery that arrived at now.
func (e *endpoints) notification(s *subscriber, body []byte, now time.Time) {
	text := body
	if len(body) > 0 && body[0] == '{' {
		// Not raw: the JSON envelope carries the message.
		var env struct {
			Message *string `json:"Message"`
		}
		if json.Unmarshal(body, &env) != nil || env.Message == nil {
			e.bad("a Notification that is neither a benchmark message nor an envelope of one")
			return
		}
		e.enveloped.Add(1)
		text = []byte(*env.Message)
	}
	seq, published, ok := parseMessage(text)
	if !ok {
		e.bad(fmt.Sprintf("a Notification that is not a benchmark message: %.40q", bytes.TrimSpace(text)))
		return
	}
	latency := now.Sub(time.Unix(0, published))
	s.mu.Lock()
	if seq >= len(s.counts) {
		s.counts = append(s.counts, make([]uint8, seq+1-len(s.counts)+1024)...)
	}
	first := s.counts[seq] == 0
	if s.counts[seq] < 255 {
		s.counts[seq]++
	}
	if first {
		s.latencies = append(s.latencies, latency)
	}
	s.mu.Unlock()
	if !first {
		e.duplicates.Add(1)
		return
	}
	e.delivered.Add(1)
	for at := now.UnixNano(); ; {
		last := e.lastArrival.Load()
		if at <= last || e.lastArrival.CompareAndSwap(last, at) {
			break
		}
	}
}

func (e *endpoints) bad(what string) {
	e.malformed.Add(1)
	e.firstMalformed.CompareAndSwap(nil, what)
}

// waitConfirmed waits until n subscriptions are confirmed or ctx ends.
func (e *endpoints) waitConfirmed(ctx context.Context, n int) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for e.confirmed.Load() < int64(n) {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// tally compares what arrived with what was published: ok[seq] tells
// whether publish seq succeeded. Only confirmed subscribers count. The
// latencies of first arrivals are returned only with withLatencies.
func (e *endpoints) tally(ok []bool, withLatencies bool) (expected, lost, unexpected int, latencies []time.Duration) {
	for i := range e.subs {
		s := &e.subs[i]
		if !s.confirmed.Load() {
			continue
		}
		s.mu.Lock()
		for seq, published := range ok {
			got := seq < len(s.counts) && s.counts[seq] > 0
			switch {
			case published:
				expected++
				if !got {
					lost++
				}
			case got:
				unexpected++
			}
		}
		for seq := len(ok); seq < len(s.counts); seq++ {
			if s.counts[seq] > 0 {
				unexpected++
			}
		}
		if withLatencies {
			latencies = append(latencies, s.latencies...)
		}
		s.mu.Unlock()
	}
	return expected, lost, unexpected, latencies
}
