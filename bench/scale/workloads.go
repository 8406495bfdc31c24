package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/client"
	"github.com/heraldmq/herald/load/loadgen"
	"github.com/heraldmq/herald/load/sqsload"
)

// load is one run of a workload against the cluster's nodes: flat out
// (rate 0) or paced at rate calls per second in all.
type load struct {
	servers     []string
	concurrency int
	rate        float64 // calls/s in all; 0: flat out
	duration    time.Duration
	prefix      string // names of the step's queues or paths
}

// outcome is what one run measured. Calls are API calls (a mix cycle of
// send, receive and delete is three).
type outcome struct {
	Calls      int
	Errors     int
	FirstError string
	Elapsed    time.Duration
	P50, P95   time.Duration
	P99        time.Duration
}

func (o outcome) perSecond() float64 {
	if o.Elapsed <= 0 {
		return 0
	}
	return float64(o.Calls) / o.Elapsed.Seconds()
}

// workload is one kind of traffic bench/scale measures.
type workload struct {
	name  string
	about string // what it is, for the report
	run   func(ctx context.Context, l load) (outcome, error)
}

// workloads are every workload by name, in report order.
var workloads = []workload{
	{name: "sqs-mix", about: "SQS send, receive, delete over 64 queues", run: sqsMix(64, 0)},
	{name: "sqs-hot", about: "SQS send, receive, delete on one queue (engine's shards)", run: sqsMix(1, 0)},
	{name: "sqs-hot-16", about: "SQS send, receive, delete on one queue of 16 shards (herald:shards)", run: sqsMix(1, 16)},
	{name: "sns-fanout", about: "SNS publish of 256 bytes to a topic of 4 queues (raw), the queues drained", run: snsFanout},
	{name: "cache", about: "cache put of 256 bytes, then latest of the worker's 50 paths", run: cacheLoad},
	{name: "ws-fanout", about: "a call is one WebSocket delivery: puts of 256 bytes to 8 patterns of 16 live subscribers each, 128 connections spread over the nodes; every delivery checked; latency put start → frame read", run: wsFanout},
	{name: "rollup-queue", about: "a call is one event counted by a rollup (10 rows an event) fed by its SQS queue, 100 events a SendMessageBatch; totals checked; latency (paced) send → visible in a totals query, by probe events", run: rollupQueue},
}

func workloadByName(name string) (workload, bool) {
	for _, w := range workloads {
		if w.name == name {
			return w, true
		}
	}
	return workload{}, false
}

// sqsMix is the SQS mix of sqsload over queues queues, spread over the
// nodes worker by worker; shards > 0 tags each queue herald:shards.
func sqsMix(queues, shards int) func(context.Context, load) (outcome, error) {
	return func(ctx context.Context, l load) (outcome, error) {
		cfg := sqsload.Config{Servers: l.servers, Concurrency: l.concurrency, Duration: l.duration,
			Queues: queues, Batch: 1, MessageSize: 256, Mix: sqsload.Mix{Sends: 1, Receives: 1, Delete: true},
			Rate: l.rate / 3, Visibility: -1, Prefill: -1, Keep: true, QueuePrefix: l.prefix}
		if shards > 0 {
			cfg.Tags = map[string]string{"herald:shards": strconv.Itoa(shards)}
		}
		r, err := sqsload.RunMix(ctx, cfg)
		if err != nil {
			return outcome{}, err
		}
		return outcome{Calls: r.All.Calls, Errors: r.All.Errors, FirstError: r.All.FirstError, Elapsed: r.Elapsed,
			P50: r.All.P50, P95: r.All.P95, P99: r.All.P99}, nil
	}
}

// apiClients returns a client of Herald's HTTP API for each of servers,
// each keeping up to conns idle connections; closeIdle closes them.
func apiClients(servers []string, conns int) (clients []*client.Client, closeIdle func()) {
	clients = make([]*client.Client, len(servers))
	trs := make([]*http.Transport, len(servers))
	for i, s := range servers {
		trs[i] = &http.Transport{Proxy: nil, MaxIdleConnsPerHost: conns, MaxIdleConns: conns}
		clients[i] = client.New(s, &http.Client{Timeout: 30 * time.Second, Transport: trs[i]})
	}
	return clients, func() {
		for _, tr := range trs {
			tr.CloseIdleConnections()
		}
	}
}

// perServer is the workers of l on each of its servers, rounded up.
func (l load) perServer() int { return (l.concurrency + len(l.servers) - 1) / len(l.servers) }

// cacheLoad: each cycle puts one message to one of the worker's 50 paths
// and reads the latest of all 50, from the worker's node.
func cacheLoad(ctx context.Context, l load) (outcome, error) {
	const paths = 50
	clients, closeIdle := apiClients(l.servers, l.perServer())
	defer closeIdle()
	body := make([]byte, 256)
	for i := range body {
		body[i] = 'a' + byte(i%26)
	}
	ttl := int64(3600)
	lat := newLatencies(l.concurrency)
	r := loadgen.Run(ctx, "cache", loadgen.Config{Concurrency: l.concurrency, Duration: l.duration, Rate: l.rate / 2},
		func(ctx context.Context, worker, seq int) (int, error) {
			c := clients[worker%len(clients)]
			root := fmt.Sprintf("%s.w%d", l.prefix, worker)
			meta, _ := json.Marshal(map[string]any{"paths": []string{root + ".p" + strconv.Itoa(seq%paths)}})
			t0 := loadgen.Scheduled(ctx)
			if t0.IsZero() {
				t0 = time.Now()
			}
			if _, _, err := c.Put(ctx, api.PutRequest{Metadata: meta, Body: body, TTL: &ttl}); err != nil {
				return 0, err
			}
			lat.add(worker, time.Since(t0))
			t1 := time.Now()
			if _, err := c.Latest(ctx, root+".#", client.PageOptions{Limit: paths}); err != nil {
				return 1, err
			}
			lat.add(worker, time.Since(t1))
			return 2, nil
		})
	o := lat.summary()
	o.Errors, o.FirstError, o.Elapsed = r.Errors, r.FirstError, r.Elapsed
	return o, nil
}

// latencies collects each worker's call latencies without a lock.
type latencies struct{ per [][]time.Duration }

func newLatencies(workers int) *latencies {
	return &latencies{per: make([][]time.Duration, workers)}
}

func (l *latencies) add(worker int, d time.Duration) { l.per[worker] = append(l.per[worker], d) }

func (l *latencies) summary() outcome {
	var all []time.Duration
	for _, p := range l.per {
		all = append(all, p...)
	}
	r := loadgen.Summarize(loadgen.Result{}, all)
	return outcome{Calls: r.Calls, P50: r.P50, P95: r.P95, P99: r.P99}
}
