package pebblestore

import (
	"context"
	"crypto/rand"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/sqs"
)

// benchQueues are the queues the benchmarks spread their load over, as
// many clients of a few busy queues would.
const benchQueues = 16

func benchQueueStore(b *testing.B) (*QueueStore, []*sqs.Queue) {
	b.Helper()
	s := openDB(b, nil, Options{}).Queues()
	qs := make([]*sqs.Queue, benchQueues)
	for i := range qs {
		qs[i] = createQueue(b, s, fmt.Sprintf("bench-%d", i), 1)
	}
	return s, qs
}

// benchSQSMessage returns a message sent now with a 1 KiB body, kept four
// days, as the Service would make it.
func benchSQSMessage(body string) *sqs.Message {
	id := uuid.Must(uuid.NewUUID())
	now := time.Now()
	sent := now.Truncate(time.Millisecond)
	return &sqs.Message{
		ID: id, Body: body, SenderID: "AIDABENCH", SentAt: sent,
		ExpiresAt: sent.Add(4 * 24 * time.Hour),
		State:     sqs.State{ID: id, VisibleAt: now},
	}
}

func benchBody() string {
	raw := make([]byte, 768)
	_, _ = rand.Read(raw)
	return strings.Repeat("x", 1024-len(raw)) + fmt.Sprintf("%x", raw)[:len(raw)]
}

// BenchmarkQueuePutMessages measures synced PutMessages from about 64
// goroutines (the 64 connections of the SQS target), 1 KiB bodies, in
// batches of 1 (SendMessage) and 10 (SendMessageBatch).
func BenchmarkQueuePutMessages(b *testing.B) {
	for _, batch := range []int{1, 10} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s, qs := benchQueueStore(b)
			body := benchBody()
			var next atomic.Int64
			b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				q := qs[next.Add(1)%benchQueues]
				ms := make([]*sqs.Message, batch)
				for pb.Next() {
					for i := range ms {
						ms[i] = benchSQSMessage(body)
					}
					if err := s.PutMessages(context.Background(), q, ms); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkQueueReceiveCycle measures the Store's share of receiving and
// deleting one message, from about 64 goroutines: SaveStates (the
// receive's new state), GetMessageRecords (the bodies to return, read as
// a receive reads them) and DeleteMessages. One op is the whole cycle, i.e. two SQS API calls.
func BenchmarkQueueReceiveCycle(b *testing.B) {
	s, qs := benchQueueStore(b)
	body := benchBody()
	// Store b.N messages first, round robin over the queues.
	ids := make([][]uuid.UUID, benchQueues)
	const fill = 500
	for n := 0; n < b.N; {
		q := n / fill % benchQueues
		ms := make([]*sqs.Message, min(fill, b.N-n))
		for i := range ms {
			ms[i] = benchSQSMessage(body)
			ids[q] = append(ids[q], ms[i].ID)
		}
		putMsgs(b, s, qs[q], ms...)
		n += len(ms)
	}
	var cursors [benchQueues]atomic.Int64
	var worker atomic.Int64
	b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		qi := int(worker.Add(1)) % benchQueues
		for pb.Next() {
			// Take the next message of some queue that has one left.
			var id uuid.UUID
			for tries := 0; ; tries++ {
				if i := cursors[qi].Add(1) - 1; int(i) < len(ids[qi]) {
					id = ids[qi][i]
					break
				}
				qi = (qi + 1) % benchQueues
				if tries > benchQueues {
					b.Error("ran out of messages")
					return
				}
			}
			q := qs[qi]
			now := time.Now()
			st := sqs.State{ID: id, ReceiveCount: 1, FirstReceiveAt: now, VisibleAt: now.Add(30 * time.Second)}
			if err := s.SaveStates(ctx, q, []sqs.State{st}); err != nil {
				b.Error(err)
				return
			}
			got, err := s.GetMessageRecords(ctx, q, []uuid.UUID{id})
			if err != nil || len(got) != 1 {
				b.Errorf("GetMessageRecords = %d messages, %v", len(got), err)
				return
			}
			if err := s.DeleteMessages(ctx, q, []uuid.UUID{id}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
}

// BenchmarkQueueGetOne reads one message of a queue of 10,000, as a
// receive does, with its state (GetMessages) and without
// (GetMessageRecords), from the memtable and after a flush to disk.
func BenchmarkQueueGetOne(b *testing.B) {
	for _, flushed := range []bool{false, true} {
		s, qs := benchQueueStore(b)
		q := qs[0]
		body := benchBody()
		ids := make([]uuid.UUID, 0, 10_000)
		for range 20 {
			ms := make([]*sqs.Message, 500)
			for i := range ms {
				ms[i] = benchSQSMessage(body)
				ids = append(ids, ms[i].ID)
			}
			putMsgs(b, s, q, ms...)
		}
		where := "memtable"
		if flushed {
			where = "flushed"
			if err := s.db.pdb.Flush(); err != nil {
				b.Fatal(err)
			}
		}
		reads := map[string]func(context.Context, *sqs.Queue, []uuid.UUID) ([]*sqs.Message, error){
			"GetMessages": s.GetMessages, "GetMessageRecords": s.GetMessageRecords,
		}
		for _, name := range []string{"GetMessages", "GetMessageRecords"} {
			b.Run(where+"/"+name, func(b *testing.B) {
				read, ctx, i := reads[name], context.Background(), 0
				b.ReportAllocs()
				for b.Loop() {
					i = (i + 7919) % len(ids) // a prime stride: all over the queue
					if got, err := read(ctx, q, ids[i:i+1]); err != nil || len(got) != 1 {
						b.Fatalf("%s = %d messages, %v", name, len(got), err)
					}
				}
			})
		}
	}
}
