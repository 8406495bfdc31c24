package main

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/pebblestore"
	"github.com/heraldmq/herald/ws"
)

// fanoutNodes starts nodes Herald "nodes" in process (the HTTP API and
// the WebSocket gateway) over one store. Joined, they share one feed of
// stored messages, as RabbitMQ joins a cluster's nodes; otherwise each has
// its own, and a message reaches only the subscribers of the node it was
// put through.
func fanoutNodes(t *testing.T, nodes int, joined bool) []string {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	db, err := pebblestore.Open(t.TempDir(), pebblestore.Options{ReapInterval: -1, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var shared *cache.LocalEvents
	urls := make([]string, nodes)
	for i := range urls {
		ev := shared
		if ev == nil {
			ev = cache.NewLocalEvents(cache.LocalEventsOptions{})
			t.Cleanup(func() { ev.Close() })
			if joined {
				shared = ev
			}
		}
		svc := cache.NewService(db, cache.DefaultConfig())
		svc.SetEvents(ev)
		mux := http.NewServeMux()
		mux.Handle("/v1/ws", ws.NewHandler(ws.Config{Cache: svc, Events: ev, Logger: log}))
		mux.Handle("/", httpapi.New(svc, metrics.New(), log))
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		urls[i] = srv.URL
	}
	return urls
}

// Over two nodes, every put is delivered to its pattern's 16 connections,
// and a call is one delivery.
func TestWSFanoutDeliversEverything(t *testing.T) {
	urls := fanoutNodes(t, 2, true)
	for _, rate := range []float64{0, 1600} {
		o, err := wsFanout(t.Context(), load{servers: urls, concurrency: 4, rate: rate, duration: 300 * time.Millisecond, prefix: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if o.Errors != 0 || o.Calls == 0 || o.Calls%wsFanoutRatio != 0 || o.P50 <= 0 || o.P50 > o.P99 || o.Elapsed < 300*time.Millisecond {
			t.Errorf("rate %g: outcome %+v", rate, o)
		}
		if rate > 0 && o.Calls > 2*int(rate) {
			t.Errorf("paced at %g deliveries/s for 0.3 s: %d deliveries", rate, o.Calls)
		}
	}
}

// A fan-out that loses messages (here: each node delivers only what was
// put through it) cannot look fast: each delivery missing is an error.
func TestWSFanoutCountsMissingDeliveries(t *testing.T) {
	wsSettle = 200 * time.Millisecond
	t.Cleanup(func() { wsSettle = 15 * time.Second })
	urls := fanoutNodes(t, 2, false)
	o, err := wsFanout(t.Context(), load{servers: urls, concurrency: 2, duration: 200 * time.Millisecond, prefix: "t"})
	if err != nil {
		t.Fatal(err)
	}
	// Worker w puts through node w mod 2: each message reaches half of
	// its 16 subscribers.
	if o.Errors == 0 || o.Errors != o.Calls || !strings.Contains(o.FirstError, "deliveries missing") {
		t.Errorf("outcome %+v: want as many errors (missing) as deliveries", o)
	}
}
