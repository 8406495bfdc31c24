package cassandrastore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// The SQS benchmarks run 64 goroutines over 16 queues of 4 shards with
// 1 KiB bodies, like the cache's BenchmarkPutParallel, and report
// operations per second and latency percentiles of one operation.

const sqsBenchGoroutines = 64

// runSQSBench calls op b.N times from sqsBenchGoroutines goroutines (g is
// the goroutine, k its call count) and reports rate (named unit) and
// latencies.
func runSQSBench(b *testing.B, unit string, perOp int, op func(g, k int) error) {
	b.Helper()
	var n atomic.Int64
	var failed atomic.Pointer[error]
	lat := make([][]time.Duration, sqsBenchGoroutines)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for g := range sqsBenchGoroutines {
		wg.Go(func() {
			for k := 0; n.Add(1) <= int64(b.N); k++ {
				t0 := time.Now()
				if err := op(g, k); err != nil {
					failed.Store(&err)
					return
				}
				lat[g] = append(lat[g], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	b.ReportMetric(float64(b.N*perOp)/elapsed.Seconds(), unit)
	b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
}

// benchQueues creates 16 queues of 4 shards.
func benchQueues(b *testing.B, qs sqs.Store) []*sqs.Queue {
	b.Helper()
	out := make([]*sqs.Queue, 16)
	for i := range out {
		out[i] = mustCreateQueue(b, qs, sqsDefaultShards)
	}
	return out
}

// benchMsg returns a new 1 KiB message of q, in its home shard.
func benchMsg(q *sqs.Queue, k int) *sqs.Message {
	return newSQSMsg(time.Now(), q.Shards, time.Hour, benchBody)
}

var benchBody = strings.Repeat("m", 1024)

// BenchmarkSQSPut: SendMessage's store write, one message per call.
func BenchmarkSQSPut(b *testing.B) {
	qs := sharedStore(b).Queues()
	queues := benchQueues(b, qs)
	runSQSBench(b, "msgs/s", 1, func(g, k int) error {
		q := queues[g%len(queues)]
		return qs.PutMessages(context.Background(), q, []*sqs.Message{benchMsg(q, k)})
	})
}

// BenchmarkSQSPutBatch10: SendMessageBatch's store write, 10 messages of
// one queue (over its 4 shards) per call.
func BenchmarkSQSPutBatch10(b *testing.B) {
	qs := sharedStore(b).Queues()
	queues := benchQueues(b, qs)
	runSQSBench(b, "msgs/s", 10, func(g, k int) error {
		q := queues[g%len(queues)]
		msgs := make([]*sqs.Message, 10)
		for i := range msgs {
			msgs[i] = benchMsg(q, k*10+i)
		}
		return qs.PutMessages(context.Background(), q, msgs)
	})
}

// BenchmarkSQSCycle: the store's part of send, receive and delete of one
// message: PutMessages, then GetMessages and SaveStates (a receive), then
// DeleteMessages. "warm": the same process does all (locations known);
// "cold": another process receives and deletes, so each of its calls
// first asks every shard of the message's bucket.
func BenchmarkSQSCycle(b *testing.B) {
	for _, mode := range []string{"warm", "cold"} {
		b.Run(mode, func(b *testing.B) {
			sender := sharedStore(b).Queues()
			receiver := sender
			if mode == "cold" {
				receiver = coldQueues(b)
			}
			queues := benchQueues(b, sender)
			ctx := context.Background()
			runSQSBench(b, "cycles/s", 1, func(g, k int) error {
				q := queues[g%len(queues)]
				m := benchMsg(q, k)
				if err := sender.PutMessages(ctx, q, []*sqs.Message{m}); err != nil {
					return err
				}
				id := []uuid.UUID{m.ID}
				got, err := receiver.GetMessages(ctx, q, id)
				if err != nil {
					return err
				}
				if len(got) != 1 {
					b.Errorf("received %d messages, want 1", len(got))
				}
				now := time.Now()
				if err := receiver.SaveStates(ctx, q, []sqs.State{{ID: m.ID, ReceiveCount: 1, FirstReceiveAt: now, VisibleAt: now.Add(30 * time.Second)}}); err != nil {
					return err
				}
				return receiver.DeleteMessages(ctx, q, id)
			})
		})
	}
}

// BenchmarkSQSGet10: ReceiveMessage's store read of 10 claimed messages of
// one queue (MaxNumberOfMessages=10), with the queue's messages in one
// shard (one partition per read) and in 4.
func BenchmarkSQSGet10(b *testing.B) {
	for _, shards := range []int{1, 4} {
		b.Run(fmt.Sprintf("shards=%d", shards), func(b *testing.B) {
			qs := sharedStore(b).Queues()
			ctx := context.Background()
			queues := make([]*sqs.Queue, 16)
			stored := make([][]uuid.UUID, len(queues))
			for i := range queues {
				queues[i] = mustCreateQueue(b, qs, shards)
				msgs := make([]*sqs.Message, 100)
				for j := range msgs {
					msgs[j] = benchMsg(queues[i], j)
				}
				mustPutMsgs(b, qs, queues[i], msgs...)
				stored[i] = ids(msgs)
			}
			runSQSBench(b, "msgs/s", 10, func(g, k int) error {
				i := g % len(queues)
				from := (k * 10) % len(stored[i])
				got, err := qs.GetMessages(ctx, queues[i], stored[i][from:from+10])
				if err == nil && len(got) != 10 {
					b.Errorf("read %d messages, want 10", len(got))
				}
				return err
			})
		})
	}
}
