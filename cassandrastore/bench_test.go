package cassandrastore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkPutParallel puts messages with a 1 KiB body from 64 goroutines
// and reports puts per second. Each message has one path of four words
// among 64×100 paths under one top word (so the tree's upper rows are
// shared by every put). Every put first reads its id (the duplicate check).
func BenchmarkPutParallel(b *testing.B) {
	st := sharedStore(b)
	const goroutines = 64
	top := word()
	body := make([]byte, 1024)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	var n atomic.Int64
	var failed atomic.Pointer[error]
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for k := 0; ; k++ {
				if n.Add(1) > int64(b.N) {
					return
				}
				now := time.Now().UTC().Truncate(time.Millisecond)
				m := newMsg(now, now, time.Hour, fmt.Sprintf("%s.g%02d.p%03d.leaf", top, g, k%100))
				m.Body = body
				if _, _, err := st.PutMessage(context.Background(), m); err != nil {
					failed.Store(&err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "puts/s")
}
