package wsload

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/ws"
)

// newServer runs the real WebSocket handler and HTTP API over a pebble
// store, with a fake /metrics whose memory grows by 1 MiB per reading.
func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{ReapInterval: -1, Logger: log})
	if err != nil {
		t.Fatalf("pebblestore.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	svc := cache.NewService(db, cache.DefaultConfig())
	ev := cache.NewLocalEvents(cache.LocalEventsOptions{})
	t.Cleanup(func() { ev.Close() })
	svc.SetEvents(ev)
	var readings atomic.Int64
	mux := http.NewServeMux()
	mux.Handle("/v1/ws", ws.NewHandler(ws.Config{Cache: svc, Events: ev, Logger: log}))
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		n := readings.Add(1)
		fmt.Fprintf(w, "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %d\ngo_memstats_heap_inuse_bytes %d\n", n<<20, n<<19)
	})
	mux.Handle("/", httpapi.New(svc, metrics.New(), log))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestRunDeliversEveryMessage(t *testing.T) {
	srv := newServer(t)
	for _, patterns := range []int{1, 5} {
		t.Run(fmt.Sprintf("patterns=%d", patterns), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var progress strings.Builder
			res, err := Run(ctx, Config{Server: srv.URL + "/", Connections: 50, Patterns: patterns, Messages: 10,
				Rate: 200, Timeout: 5 * time.Second, DialConcurrency: 8, Settle: -1, Progress: &progress})
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, progress.String())
			}
			want := int64(50 * 10 / patterns)
			if res.Connected != 50 || res.ConnectFailures != 0 || res.Published != 10 || res.Expected != want ||
				res.Delivered != want || res.Lost != 0 || res.Duplicates != 0 || res.ClosedEarly != 0 || res.Foreign != 0 {
				t.Fatalf("result %+v", res)
			}
			l := res.Latency
			if l.P50 <= 0 || l.P50 > l.P90 || l.P90 > l.P99 || l.P99 > l.Max || l.Max > 5000 {
				t.Fatalf("latency %+v", l)
			}
			// The fake /metrics grows 1 MiB resident and 0.5 MiB heap per reading.
			if res.ResidentBytesPerConnection != float64(1<<20)/50 || res.HeapBytesPerConnection != float64(1<<19)/50 {
				t.Fatalf("memory per connection %g, %g", res.ResidentBytesPerConnection, res.HeapBytesPerConnection)
			}
			if s := res.String(); !strings.Contains(s, "50 connected of 50") || !strings.Contains(s, fmt.Sprintf("%d of %d expected, 0 lost", want, want)) {
				t.Fatalf("report:\n%s", s)
			}
		})
	}
}

func TestRunCountsFailedConnections(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	res, err := Run(context.Background(), Config{Server: srv.URL, Connections: 3, Patterns: 1, Messages: 1, Rate: 1, Timeout: time.Second})
	if err == nil || res.Connected != 0 || res.ConnectFailures != 3 || res.ConnectError == "" || res.MemoryAfter != nil {
		t.Fatalf("res %+v, err %v", res, err)
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{Server: "http://h:1", Connections: 10, Patterns: 2, Messages: 1, Rate: 1, Timeout: time.Second}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mod := range map[string]func(*Config){
		"scheme":      func(c *Config) { c.Server = "h:1" },
		"connections": func(c *Config) { c.Connections = 0 },
		"patterns":    func(c *Config) { c.Patterns = 11 },
		"no patterns": func(c *Config) { c.Patterns = 0 },
		"messages":    func(c *Config) { c.Messages = 0 },
		"rate":        func(c *Config) { c.Rate = 0 },
		"timeout":     func(c *Config) { c.Timeout = 0 },
		"dial":        func(c *Config) { c.DialConcurrency = -1 },
		"protocol":    func(c *Config) { c.Protocol = "mqtt" },
		"publish url": func(c *Config) { c.PublishServer = "h:2" },
		"publish to centrifugo": func(c *Config) {
			c.Protocol, c.PublishServer = ProtocolCentrifugo, "http://h:2"
		},
	} {
		c := ok
		mod(&c)
		if c.Validate() == nil {
			t.Errorf("%s: accepted %+v", name, c)
		}
	}
	c, _ := ok.withDefaults()
	if c.PublishServer != c.Server {
		t.Errorf("publish server %q, want the server %q by default", c.PublishServer, c.Server)
	}
	if c.wsURL() != "ws://h:1/v1/ws" || c.pattern(3) != "bench."+c.Run+".3.#" || !strings.HasPrefix(c.path(3), "bench."+c.Run+".3.") {
		t.Fatalf("%s %s %s", c.wsURL(), c.pattern(3), c.path(3))
	}
	https := Config{Server: "https://h/", Connections: 1, Patterns: 1, Messages: 1, Rate: 1, Timeout: time.Second}
	if c, _ := https.withDefaults(); c.wsURL() != "wss://h/v1/ws" {
		t.Fatal(c.wsURL())
	}
	https.Protocol = ProtocolCentrifugo
	if c, _ := https.withDefaults(); c.wsURL() != "wss://h/connection/websocket" || c.channel(2) != "bench-"+c.Run+"-2" {
		t.Fatal(c.wsURL(), c.channel(2))
	}
}
