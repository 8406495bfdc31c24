package bench

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/client"
	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/pebblestore"
)

// startHerald serves Herald's HTTP API over a fresh embedded store on a
// loopback TCP listener for the rest of the benchmark.
func startHerald(b *testing.B) (*httptest.Server, *http.Client) {
	b.Helper()
	db, err := pebblestore.Open(b.TempDir(), pebblestore.Options{ReapInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	m := metrics.New()
	svc := cache.NewService(metrics.InstrumentCacheStore(db, m), cache.DefaultConfig())
	srv := httptest.NewServer(httpapi.New(svc, m, slog.New(slog.DiscardHandler)))
	b.Cleanup(func() { srv.Close(); db.Close() })
	transport := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}
	b.Cleanup(transport.CloseIdleConnections)
	return srv, &http.Client{Transport: transport}
}

// drain sends req and reads the whole answer without decoding it, so the
// benchmark measures the server, not client-side JSON decoding.
func drain(hc *http.Client, req *http.Request, wantStatus int) (int, error) {
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil && resp.StatusCode != wantStatus {
		err = fmt.Errorf("status %d, want %d", resp.StatusCode, wantStatus)
	}
	return int(n), err
}

// BenchmarkHTTPPutDurable64 measures durable single-message puts (1 KiB
// body, synced to disk before the 201) from 64 concurrent clients.
func BenchmarkHTTPPutDurable64(b *testing.B) {
	srv, hc := startHerald(b)
	body64 := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("x"), 1024))
	var worker atomic.Int64
	b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		w := worker.Add(1)
		for i := 0; pb.Next(); i++ {
			doc := `{"metadata":{"paths":["bench.put.w` + strconv.FormatInt(w, 10) + ".m" + strconv.Itoa(i%1000) + `"]},"body":"` + body64 + `"}`
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", bytes.NewReader([]byte(doc)))
			req.Header.Set("Content-Type", "application/json")
			if _, err := drain(hc, req, http.StatusCreated); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "puts/s")
}

// BenchmarkHTTPLatestSubtree10k measures one page of latest(pattern) over a
// subtree of 10,000 paths, each holding a message with a 1 KiB body, from
// one client, at two page sizes. It reports the latency percentiles of the
// pages (which cycle through the whole subtree).
func BenchmarkHTTPLatestSubtree10k(b *testing.B) {
	srv, hc := startHerald(b)
	c := client.New(srv.URL, hc)
	fill(b, c, 10000, func(i int) string { return fmt.Sprintf("feeds.c%d.k%05d", i%10, i) })
	for _, limit := range []int{100, 1000} {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			cursors := pageCursors(b, c, "feeds.#", limit)
			lat := make([]time.Duration, 0, b.N)
			items := 0
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				q := url.Values{"pattern": {"feeds.#"}, "limit": {strconv.Itoa(limit)}}
				if cur := cursors[i%len(cursors)]; cur != "" {
					q.Set("cursor", cur)
				}
				req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/latest?"+q.Encode(), nil)
				t0 := time.Now()
				n, err := drain(hc, req, http.StatusOK)
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
				items += n
			}
			reportPercentiles(b, lat)
		})
	}
}

// BenchmarkHTTPAllFirstPage measures the first page (100 messages, newest
// first) of all(path) on a path holding 10,000 messages of 1 KiB.
func BenchmarkHTTPAllFirstPage(b *testing.B) {
	srv, hc := startHerald(b)
	c := client.New(srv.URL, hc)
	fill(b, c, 10000, func(int) string { return "scores.game-7" })
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/all?path=scores.game-7", nil)
		t0 := time.Now()
		if _, err := drain(hc, req, http.StatusOK); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	reportPercentiles(b, lat)
}

// fill stores n messages with 1 KiB bodies, the i-th at path(i), in
// concurrent batches of 100.
func fill(b *testing.B, c *client.Client, n int, path func(int) string) {
	b.Helper()
	body := bytes.Repeat([]byte("y"), 1024)
	var wg sync.WaitGroup
	errs := make(chan error, n/100+1)
	for start := 0; start < n; start += 100 {
		batch := make([]api.PutRequest, 0, 100)
		for i := start; i < min(n, start+100); i++ {
			batch = append(batch, api.PutRequest{Metadata: []byte(`{"paths":["` + path(i) + `"]}`), Body: body})
		}
		wg.Go(func() {
			resp, err := c.PutBatch(context.Background(), batch)
			if err == nil {
				for _, r := range resp.Results {
					if r.Error != nil {
						err = fmt.Errorf("%s", r.Error.Message)
					}
				}
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// pageCursors returns the cursors of every page of latest(pattern).
func pageCursors(b *testing.B, c *client.Client, pattern string, limit int) []string {
	b.Helper()
	cursors := []string{""}
	for {
		resp, err := c.Latest(context.Background(), pattern, client.PageOptions{Limit: limit, Cursor: cursors[len(cursors)-1]})
		if err != nil {
			b.Fatal(err)
		}
		if resp.NextCursor == "" {
			return cursors
		}
		cursors = append(cursors, resp.NextCursor)
	}
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	b.Helper()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(q float64) float64 {
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}
