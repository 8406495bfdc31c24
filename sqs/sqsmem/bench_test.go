package sqsmem

import (
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// BenchmarkReceiveRemove measures one Receive of up to 10 messages and the
// Remove of those received, on one queue kept at about 100 000 messages.
func BenchmarkReceiveRemove(b *testing.B) {
	for _, fifo := range []bool{false, true} {
		name := "standard"
		if fifo {
			name = "fifo"
		}
		b.Run(name, func(b *testing.B) {
			x := NewIndex(IndexOptions{})
			ctx := b.Context()
			q := sqs.IndexQueue{ID: uuid.New(), FIFO: fifo}
			x.MarkBuilt(ctx, q)
			refill := func(n int) {
				es := make([]sqs.Entry, n)
				for i := range es {
					es[i] = sqs.Entry{ID: uuid.Must(uuid.NewUUID()), Group: string(rune('a' + i%100)), VisibleAt: t0}
				}
				x.Add(ctx, q, es)
			}
			refill(100_000)
			now := t0.Add(time.Second)
			b.ReportAllocs()
			b.ResetTimer()
			received := 0
			for b.Loop() {
				res, err := x.Receive(ctx, q, sqs.ReceiveRequest{Now: now, Max: 10, Until: now.Add(30 * time.Second)})
				if err != nil {
					b.Fatal(err)
				}
				ids := make([]uuid.UUID, len(res.Claims))
				for i, c := range res.Claims {
					ids[i] = c.ID
				}
				x.Remove(ctx, q, ids)
				received += len(ids)
				if len(ids) == 0 {
					b.StopTimer()
					refill(100_000)
					b.StartTimer()
				}
			}
			b.ReportMetric(float64(received)/float64(b.N), "msgs/op")
		})
	}
}

// BenchmarkReceiveRemoveParallel is the same on many queues from all cores.
func BenchmarkReceiveRemoveParallel(b *testing.B) {
	x := NewIndex(IndexOptions{})
	ctx := b.Context()
	queues := make([]sqs.IndexQueue, 64)
	for i := range queues {
		queues[i] = sqs.IndexQueue{ID: uuid.New()}
		x.MarkBuilt(ctx, queues[i])
	}
	now := t0.Add(time.Second)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			q := queues[i%len(queues)]
			i++
			id := uuid.Must(uuid.NewUUID())
			x.Add(ctx, q, []sqs.Entry{{ID: id, VisibleAt: t0}})
			res, err := x.Receive(ctx, q, sqs.ReceiveRequest{Now: now, Max: 10, Until: now.Add(30 * time.Second)})
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range res.Claims {
				x.Remove(ctx, q, []uuid.UUID{c.ID})
			}
		}
	})
}

// BenchmarkIdleQueueMemory reports the heap bytes per queue of empty,
// built queue states the Index holds, and what is left per queue once
// they were evicted.
func BenchmarkIdleQueueMemory(b *testing.B) {
	const queues = 100_000
	for b.Loop() {
		clock := t0
		x := NewIndex(IndexOptions{MaxQueues: 4 * queues, IdleAfter: time.Minute, Clock: func() time.Time { return clock }})
		ctx := b.Context()
		before := heapInUse()
		for range queues {
			x.MarkBuilt(ctx, sqs.IndexQueue{ID: uuid.New()})
		}
		held := heapInUse()
		// Much later, as many new queues evict the idle ones.
		clock = clock.Add(time.Hour)
		for range queues {
			q := sqs.IndexQueue{ID: uuid.New()}
			x.MarkBuilt(ctx, q)
			x.Drop(ctx, q)
		}
		if n := x.Len(); n > queues+queues/10 {
			b.Fatalf("%d queue states held after eviction, want about %d", n, queues)
		}
		b.ReportMetric(float64(held-before)/queues, "bytes/idle-queue")
		runtime.KeepAlive(x)
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
