package sqsload

import (
	"context"
	"io"
	"slices"
	"sync/atomic"

	"github.com/heraldmq/herald/load/loadgen"
)

// createQueues creates cfg's n queues from cfg.Concurrency workers and
// returns the URLs of those created, in name order, with the run's
// measurements. progress may be nil.
func createQueues(ctx context.Context, c *Client, cfg Config, n int, progress io.Writer) ([]string, loadgen.Result) {
	urls := make([]string, n)
	var next atomic.Int64
	r := loadgen.Run(ctx, ActionCreateQueue, loadgen.Config{Concurrency: min(cfg.Concurrency, n), Requests: n, Progress: progress},
		func(ctx context.Context, _, _ int) (int, error) {
			i := int(next.Add(1) - 1)
			url, err := c.CreateTaggedQueue(ctx, cfg.queueName(i), nil, cfg.Tags)
			urls[i] = url
			return 1, err
		})
	return slices.DeleteFunc(urls, func(u string) bool { return u == "" }), r
}

// deleteQueues deletes the queues at urls from concurrency workers.
func deleteQueues(ctx context.Context, c *Client, urls []string, concurrency int, progress io.Writer) loadgen.Result {
	if len(urls) == 0 {
		return loadgen.Result{Name: ActionDeleteQueue}
	}
	var next atomic.Int64
	return loadgen.Run(ctx, ActionDeleteQueue, loadgen.Config{Concurrency: min(concurrency, len(urls)), Requests: len(urls), Progress: progress},
		func(ctx context.Context, _, _ int) (int, error) {
			return 1, c.DeleteQueue(ctx, urls[next.Add(1)-1])
		})
}

// prefill sends perQueue messages (rounded up to batches of 10) of body to
// every queue and returns the measurements; Items counts messages sent.
func prefill(ctx context.Context, c *Client, urls []string, perQueue int, body string, concurrency int, progress io.Writer) loadgen.Result {
	batches := (perQueue + MaxBatch - 1) / MaxBatch
	if batches == 0 || len(urls) == 0 {
		return loadgen.Result{Name: "prefill"}
	}
	bodies := slices.Repeat([]string{body}, MaxBatch)
	requests := make([]Request, len(urls))
	for i, u := range urls {
		requests[i] = c.SendRequest(u, bodies)
	}
	var next atomic.Int64
	return loadgen.Run(ctx, "prefill", loadgen.Config{Concurrency: concurrency, Requests: batches * len(urls), Progress: progress},
		func(ctx context.Context, _, _ int) (int, error) {
			return c.Send(ctx, requests[int(next.Add(1)-1)%len(requests)], MaxBatch)
		})
}
