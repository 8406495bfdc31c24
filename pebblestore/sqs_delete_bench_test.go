package pebblestore

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/heraldmq/herald/sqs"
)

// deleteBenchWorkers is how many goroutines create and delete the queues
// of BenchmarkDeleteQueues, as the 64 connections of the SQS target would.
const deleteBenchWorkers = 64

// BenchmarkDeleteQueues measures DeleteQueue over b.N queues, every other
// one holding one message (two keys) and the rest empty: the shape of a
// mass deletion of small queues. The queues are created before the timer
// starts; the deletes run from about 64 goroutines, and afterwards no
// queue record or message key may remain.
func BenchmarkDeleteQueues(b *testing.B) {
	ctx := context.Background()
	s := openDB(b, nil, Options{}).Queues()
	body := benchBody()
	qs := make([]*sqs.Queue, b.N)
	forEachQueue(b.N, func(i int) {
		q, err := s.CreateQueue(ctx, testQueue(fmt.Sprintf("del-%d", i), 1))
		if err == nil && i%2 == 1 {
			err = s.PutMessages(ctx, q, []*sqs.Message{benchSQSMessage(body)})
		}
		if err != nil {
			b.Error(err)
		}
		qs[i] = q
	})
	if b.Failed() {
		return
	}
	var next atomic.Int64
	b.SetParallelism((deleteBenchWorkers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.DeleteQueue(ctx, qs[next.Add(1)-1]); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queues/s")
	b.StopTimer()
	for _, prefix := range []byte{prefixQueue, prefixSQSMsg} {
		if n := countKeys(b, s.db, prefix); n != 0 {
			b.Errorf("%d keys of keyspace %q left after deleting every queue", n, prefix)
		}
	}
}

// forEachQueue calls f(0) .. f(n-1) from deleteBenchWorkers goroutines and
// waits for them all.
func forEachQueue(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range deleteBenchWorkers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
