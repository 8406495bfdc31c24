package rollups

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// senders are a run's event senders through its two doors, the queue
// (SendMessageBatch) and the API (POST .../events), and the events they
// send again (Config.Overlap): every new event goes to its door's pool,
// and a fraction Overlap of each batch is taken from the pools, the other
// door's first, never an event of the taking sender's own, each at most
// once. So the same IDs reach the rollup from two senders, in two
// batches and mostly through both doors, as redeliveries and client
// retries bring them; the reference counts each once.
type senders struct {
	cfg     Config
	ref     *reference
	limiter <-chan time.Time
	pools   [2]pool // by door: events sent once

	events        atomic.Int64 // new events sent (each counted once by the reference)
	messages      atomic.Int64
	resent        atomic.Int64
	apiDuplicates atomic.Int64
	errors        atomic.Int64
	errMu         sync.Mutex
	firstErr      string
}

// The doors.
const (
	doorQueue = iota
	doorAPI
)

// giveUpAfter is how long one batch is retried before the run stops.
const giveUpAfter = 30 * time.Second

// poolSize bounds each door's pool; the oldest events leave a full one.
const poolSize = 1 << 14

// pool holds events sent once, oldest first, each with its sender.
type pool struct {
	mu    sync.Mutex
	items []pooled
}

type pooled struct {
	sender int
	raw    []byte
}

func (p *pool) put(sender int, events [][]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range events {
		p.items = append(p.items, pooled{sender, e})
	}
	if over := len(p.items) - poolSize; over > 0 {
		p.items = append(p.items[:0], p.items[over:]...)
	}
}

// take removes and returns up to n events not sent by sender, oldest
// first.
func (p *pool) take(sender, n int) [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out [][]byte
	kept := p.items[:0]
	for _, it := range p.items {
		if len(out) < n && it.sender != sender {
			out = append(out, it.raw)
		} else {
			kept = append(kept, it)
		}
	}
	clear(p.items[len(kept):])
	p.items = kept
	return out
}

func newSenders(cfg Config, ref *reference, limiter <-chan time.Time) *senders {
	return &senders{cfg: cfg, ref: ref, limiter: limiter}
}

// next waits for the limiter, if any; it reports false once ctx ended.
func (s *senders) next(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	if s.limiter == nil {
		return true
	}
	select {
	case <-s.limiter:
		return true
	case <-ctx.Done():
		return false
	}
}

// batch returns n events for sender w of door: round(n·Overlap) taken
// from the pools (the other door's first), as many as they hold, and new
// ones named prefix-i (counted in the reference) for the rest, which go
// to the door's pool.
func (s *senders) batch(g *generator, w, door int, prefix string, n int) [][]byte {
	want := int(float64(n)*s.cfg.Overlap + 0.5)
	out := s.pools[1-door].take(w, want)
	out = append(out, s.pools[door].take(w, want-len(out))...)
	s.resent.Add(int64(len(out)))
	firstNew := len(out)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for i := 0; len(out) < n; i++ {
		out = append(out, g.counted(fmt.Sprintf("%s-%d", prefix, i), now, s.ref))
	}
	s.events.Add(int64(n - firstNew))
	if s.cfg.Overlap > 0 {
		s.pools[door].put(w, out[firstNew:])
	}
	return out
}

// array joins events into one JSON array.
func array(events [][]byte) []byte {
	n := 2
	for _, e := range events {
		n += len(e) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, e := range events {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	return append(b, ']')
}

// failed counts a failed send or post and keeps the first's text.
func (s *senders) failed(err error) {
	if s.errors.Add(1) == 1 {
		s.errMu.Lock()
		s.firstErr = err.Error()
		s.errMu.Unlock()
	}
}

func (s *senders) firstError() string {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.firstErr
}

// retry runs send until it succeeds, counting each failure, for at most
// giveUpAfter; it reports whether send succeeded.
func (s *senders) retry(ctx context.Context, send func() error) bool {
	deadline := time.Now().Add(giveUpAfter)
	for backoff := 50 * time.Millisecond; ; backoff = min(2*backoff, time.Second) {
		err := send()
		if err == nil {
			return true
		}
		s.failed(err)
		if ctx.Err() != nil || time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(backoff):
		}
	}
}

// queue is sender w of the queue door until runCtx ends: SendMessageBatch
// of ten messages of Config.EventsPerMessage events each. Its calls run
// under ctx, so a batch made before the end is sent.
func (s *senders) queue(runCtx, ctx context.Context, q *sqs.Client, qurl string, w int) {
	g := newGenerator(uint64(w), s.cfg.Channels)
	for n := 0; s.next(runCtx); n++ {
		entries := make([]types.SendMessageBatchRequestEntry, 10)
		for i := range entries {
			body := array(s.batch(g, w, doorQueue, fmt.Sprintf("%d-%d-%d", w, n, i), s.cfg.EventsPerMessage))
			entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), MessageBody: aws.String(string(body))}
		}
		ok := s.retry(ctx, func() error {
			out, err := q.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(qurl), Entries: entries})
			if err != nil {
				return err
			}
			if len(out.Failed) > 0 {
				failed := map[string]bool{}
				for _, f := range out.Failed {
					failed[aws.ToString(f.Id)] = true
				}
				left := entries[:0]
				for _, e := range entries {
					if failed[aws.ToString(e.Id)] {
						left = append(left, e)
					}
				}
				entries = left
				return fmt.Errorf("%d entries failed: %s", len(out.Failed), aws.ToString(out.Failed[0].Message))
			}
			return nil
		})
		if !ok {
			return
		}
		s.messages.Add(10)
	}
}

// posted is the answer of POST .../events.
type posted struct {
	Accepted   int64    `json:"accepted"`
	Duplicates int64    `json:"duplicates"`
	Malformed  int64    `json:"malformed"`
	Late       int64    `json:"late"`
	Errors     []string `json:"errors"`
}

// api is sender w of the API door until runCtx ends: POST .../events of
// as many events as one SendMessageBatch of the queue door carries. A
// malformed or late event is an error of the bench, not retried.
func (s *senders) api(runCtx, ctx context.Context, hc *http.Client, url string, w int) {
	g := newGenerator(uint64(w), s.cfg.Channels)
	for n := 0; s.next(runCtx); n++ {
		body := json.RawMessage(array(s.batch(g, w, doorAPI, fmt.Sprintf("a%d-%d", w, n), 10*s.cfg.EventsPerMessage)))
		ok := s.retry(ctx, func() error {
			var ans posted
			if err := call(ctx, hc, http.MethodPost, url, body, &ans); err != nil {
				return err
			}
			s.apiDuplicates.Add(ans.Duplicates)
			if ans.Malformed+ans.Late > 0 {
				s.failed(fmt.Errorf("POST %s: %d malformed, %d late: %v", url, ans.Malformed, ans.Late, ans.Errors))
			}
			return nil
		})
		if !ok {
			return
		}
	}
}
