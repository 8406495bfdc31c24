package redisindex

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqstest"
)

// The conformance suite again with Options.AutoPipeline: every call then
// goes through the client's automatic pipeline.
func TestIndexConformancePipelined(t *testing.T) {
	sqstest.RunIndex(t, func(t *testing.T) sqs.Index { return newIndex(t, Options{AutoPipeline: true}).Index })
}

// pipelineCounter is a client hook that records the commands of every
// pipeline the client sends.
type pipelineCounter struct {
	pipelines, deepest atomic.Int64
}

func (p *pipelineCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (p *pipelineCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (p *pipelineCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		p.pipelines.Add(1)
		for n := int64(len(cmds)); ; {
			d := p.deepest.Load()
			if n <= d || p.deepest.CompareAndSwap(d, n) {
				break
			}
		}
		return next(ctx, cmds)
	}
}

// TestAutoPipelineSharesRoundTrips: with Options.AutoPipeline, the calls of
// concurrent callers travel together (a pipeline of several commands), and
// each caller still gets its own answer: every message added by one of 64
// concurrent Adds is then received exactly once.
func TestAutoPipelineSharesRoundTrips(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	var hook pipelineCounter
	c.AddHook(&hook)
	ix := New(c, Options{Prefix: freshPrefix(t, c), AutoPipeline: true})
	q := standardQueue()
	if err := ix.MarkBuilt(ctx, q); err != nil {
		t.Fatal(err)
	}
	hook.pipelines.Store(0)
	hook.deepest.Store(0)
	const callers = 64
	now := time.Now()
	added := map[uuid.UUID]bool{}
	// Rounds of 64 concurrent Adds until one pipeline carried several
	// commands (the first round almost always does).
	deadline := time.Now().Add(10 * time.Second)
	for len(added) == 0 || hook.deepest.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("after %d pipelines, none carried more than one command", hook.pipelines.Load())
		}
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			errs  = make(chan error, callers)
			mu    sync.Mutex
		)
		for range callers {
			id := uuid.Must(uuid.NewUUID())
			wg.Go(func() {
				<-start
				if err := ix.Add(ctx, q, []sqs.Entry{{ID: id, VisibleAt: now}}); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				added[id] = true
				mu.Unlock()
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("Add: %v", err)
		}
	}
	got := map[uuid.UUID]bool{}
	for len(got) < len(added) {
		res, err := ix.Receive(ctx, q, sqs.ReceiveRequest{Now: now, Max: 10, Until: now.Add(time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Claims) == 0 {
			break
		}
		for _, m := range res.Claims {
			if got[m.ID] {
				t.Fatalf("message %s received twice", m.ID)
			}
			got[m.ID] = true
		}
	}
	if len(got) != len(added) {
		t.Fatalf("received %d of the %d messages added", len(got), len(added))
	}
	for id := range got {
		if !added[id] {
			t.Fatalf("received %s, never added", id)
		}
	}
	t.Logf("%d messages in %d pipelines, the deepest of %d commands", len(added), hook.pipelines.Load(), hook.deepest.Load())
}

// TestAutoPipelineRedisHung: a pipelined Index whose Redis accepts
// connections and never answers fails each call as unavailable within its
// timeout, as an unpipelined one does, so that the Service degrades.
func TestAutoPipelineRedisHung(t *testing.T) {
	t.Parallel() // closing the client waits out the hung pipeline's read timeouts
	ix := New(newDeadClient(t), Options{AutoPipeline: true, Timeout: 200 * time.Millisecond})
	for range 3 {
		start := time.Now()
		_, err := ix.Receive(context.Background(), standardQueue(), sqs.ReceiveRequest{Now: start, Max: 1})
		if herald.ErrorCode(err) != herald.EUnavailable {
			t.Fatalf("Receive from a hung Redis: %v, want unavailable", err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("Receive from a hung Redis took %s, its timeout is 200ms", took)
		}
	}
}
