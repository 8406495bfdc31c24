package pebblestore

import (
	"crypto/rand"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald/cache"
)

// BenchmarkPutParallel measures synced puts from about 64 goroutines: 1 KiB
// bodies, one path each among 10k.
func BenchmarkPutParallel(b *testing.B) {
	db := openDB(b, nil, Options{})
	body := make([]byte, 1024)
	_, _ = rand.Read(body)
	paths := make([]string, 10_000)
	for i := range paths {
		paths[i] = fmt.Sprintf("bench.feeds.f%d.p%d", i%100, i)
	}
	var next atomic.Int64
	b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			now := time.Now()
			m := benchMessage(uuid.Must(uuid.NewUUID()), now, paths[i%int64(len(paths))], body)
			if _, _, err := db.PutMessage(ctx, m); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
}

// BenchmarkPutSerial measures synced puts one at a time: about one WAL
// fsync each, the baseline that BenchmarkPutParallel's grouping beats.
func BenchmarkPutSerial(b *testing.B) {
	db := openDB(b, nil, Options{})
	body := make([]byte, 1024)
	_, _ = rand.Read(body)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		m := benchMessage(uuid.Must(uuid.NewUUID()), time.Now(), fmt.Sprintf("bench.serial.p%d", i%10_000), body)
		if _, _, err := db.PutMessage(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
}

func benchMessage(id uuid.UUID, now time.Time, path string, body []byte) *cache.Message {
	now = now.UTC().Truncate(time.Millisecond)
	return &cache.Message{
		ID:         id,
		ReplicaID:  id,
		Metadata:   []byte(`{"paths":["` + path + `"]}`),
		Paths:      []string{path},
		Body:       body,
		ReceivedAt: now,
		ExpiresAt:  now.Add(time.Hour),
	}
}

// loadParallel puts the messages from 64 goroutines, so that their synced
// commits are grouped.
func loadParallel(b *testing.B, db *DB, ms []*cache.Message) {
	b.Helper()
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 64 {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(len(ms)) {
					return
				}
				if _, _, err := db.PutMessage(ctx, ms[i]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkChildren10k lists the 10k children of one node in pages of 1000.
func BenchmarkChildren10k(b *testing.B) {
	db := openDB(b, nil, Options{})
	const n = 10_000
	now := time.Now()
	ms := make([]*cache.Message, 0, 2*n)
	for i := range n {
		// Every child has its own messages and a grandchild below it.
		ms = append(ms,
			benchMessage(v1(now.Add(time.Duration(i))), now, fmt.Sprintf("node.c%05d", i), []byte("x")),
			benchMessage(v1(now.Add(time.Duration(n+i))), now, fmt.Sprintf("node.c%05d.g", i), []byte("x")))
	}
	loadParallel(b, db, ms)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		got, after := 0, ""
		for {
			page, err := db.Children(ctx, "node", after, 1000)
			if err != nil {
				b.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			got += len(page)
			after = page[len(page)-1].Word
		}
		if got != n {
			b.Fatalf("listed %d children, want %d", got, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/child")
}

// BenchmarkHistoryFirstPage reads the newest 100 of 10k messages of a path.
func BenchmarkHistoryFirstPage(b *testing.B) {
	db := openDB(b, nil, Options{})
	const n = 10_000
	now := time.Now()
	ms := make([]*cache.Message, n)
	for i := range ms {
		ms[i] = benchMessage(v1(now.Add(time.Duration(i)*time.Millisecond)), now, "hist.path", []byte("x"))
	}
	loadParallel(b, db, ms)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		page, err := db.History(ctx, "hist.path", cache.Position{}, 100)
		if err != nil || len(page) != 100 {
			b.Fatalf("History = %d refs, %v", len(page), err)
		}
	}
}
