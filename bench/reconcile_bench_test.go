package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqsmem"
)

// BenchmarkReconcileEmbedded measures the SQS reconciler's cost per stored
// message it checks, on the embedded engine (Pebble Store, in-process
// Index): one complete pass over a queue of 10,000 messages per op.
func BenchmarkReconcileEmbedded(b *testing.B) {
	db, err := pebblestore.Open(b.TempDir(), pebblestore.Options{ReapInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	// The Service's clock jumps a minute once the queue is filled, so that
	// every message is past the reconciler's grace and really checked.
	var skew atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	svc := sqs.NewService(db.Queues(), sqsmem.NewIndex(sqsmem.IndexOptions{}), sqsmem.NewNotifier(),
		sqs.Config{ReconcileInterval: -1, ReconcileBudget: 1 << 30, Clock: clock})
	b.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	caller := sqs.Caller{Account: "000000000000", Scheme: "http", Host: "localhost"}
	url, err := svc.CreateQueue(ctx, caller, sqs.CreateQueueInput{QueueName: "reconcile"})
	if err != nil {
		b.Fatal(err)
	}
	const n = 10_000
	for i := 0; i < n; i += 10 {
		entries := make([]sqs.SendMessageBatchEntry, 10)
		for j := range entries {
			entries[j] = sqs.SendMessageBatchEntry{ID: fmt.Sprint(j), MessageBody: fmt.Sprint(i + j)}
		}
		if _, err := svc.SendMessageBatch(ctx, caller, sqs.SendMessageBatchInput{QueueURL: url, Entries: entries}); err != nil {
			b.Fatal(err)
		}
	}
	skew.Store(int64(time.Minute))
	read := 0
	for b.Loop() {
		read += svc.ReconcileOnce(ctx)
		// Mark the queue active again for the next pass.
		if _, err := svc.SendMessage(ctx, caller, sqs.SendMessageInput{QueueURL: url, MessageBody: "touch"}); err != nil {
			b.Fatal(err)
		}
	}
	if read == 0 {
		b.Fatal("the reconciler read nothing")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(read), "ns/message")
}
