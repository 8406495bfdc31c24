package main

import (
	"context"
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/heraldmq/herald/api"
	"github.com/heraldmq/herald/load/loadgen"
	"github.com/heraldmq/herald/load/wsload"
)

// The shape of ws-fanout: wsConnections WebSocket connections in all
// (whatever the step's node count), connection i subscribed live to
// pattern i mod wsPatterns and connected to node (i div wsPatterns) mod N,
// so that each pattern's wsConnections/wsPatterns subscribers are spread
// evenly over the nodes and a message published through any node is
// delivered on every node.
const (
	wsConnections = 128
	wsPatterns    = 8
	wsFanoutRatio = wsConnections / wsPatterns // deliveries owed per message
	// wsMaxMessage bounds a message number a connection keeps track of
	// (a bitset per connection): anything larger is not one of the run's.
	wsMaxMessage = 1 << 24
)

// wsSettle bounds the wait for the last deliveries once the last put has
// been answered (a variable for the tests).
var wsSettle = 15 * time.Second

var wsRuns atomic.Int64 // names each run's paths apart: a late delivery of one run never counts in the next

// wsFanout: wsConnections WebSocket connections subscribed live to
// wsPatterns patterns over all of the step's nodes; each worker puts
// messages (a 256-byte message: the message's number and send time in
// the body, padding in its metadata) through its node (POST /v1/messages)
// to a path of pattern (worker + seq) mod wsPatterns, so each message is
// owed wsFanoutRatio deliveries, most of them on other nodes than the one
// it was put through (RabbitMQ carries it there). A call is one delivery:
// a message frame read on a connection subscribed to its pattern, the
// first time. Its latency is from the put's start (when it was due, paced)
// to the frame's arrival. After the last put the run waits until every
// connection has every message it is owed (at most wsSettle) and counts
// as errors each delivery missing or duplicated, each frame that is not
// one the connection is owed, each connection the server ended, and each
// failed put. The throughput's time runs from the first put to the last
// put or the last delivery, whichever is later, so a fan-out that falls
// behind shows.
func wsFanout(ctx context.Context, l load) (outcome, error) {
	root := fmt.Sprintf("%s.ws%d", l.prefix, wsRuns.Add(1))
	conns, err := wsOpen(ctx, l.servers, root)
	if err != nil {
		return outcome{}, err
	}
	var (
		closing atomic.Bool // the run ends its connections: not counted against the server
		readers sync.WaitGroup
	)
	closeAll := func() {
		closing.Store(true)
		for _, c := range conns {
			c.sub.Close()
		}
		readers.Wait()
	}
	defer closeAll() // again after the count: a no-op
	for _, c := range conns {
		readers.Go(func() { c.read(&closing) })
	}

	clients, closeIdle := apiClients(l.servers, l.perServer())
	defer closeIdle()
	// The metadata's text brings the stored message to about 256 bytes,
	// as the other workloads' bodies; Body's text is about 30.
	pad := strings.Repeat("x", 200)
	ttl := int64(600)
	states := make([][]msgState, l.concurrency)
	var firstPutErr atomic.Value
	start := time.Now()
	r := loadgen.Run(ctx, "ws-fanout", loadgen.Config{Concurrency: l.concurrency, Duration: l.duration, Rate: l.rate / wsFanoutRatio},
		func(opCtx context.Context, worker, seq int) (int, error) {
			states[worker] = append(states[worker], msgAttempted)
			k, n := wsPatternOf(worker, seq), wsNumber(worker, seq, l.concurrency)
			sent := loadgen.Scheduled(opCtx)
			if sent.IsZero() {
				sent = time.Now()
			}
			meta := []byte(`{"text":"` + pad + `","paths":["` + wsPath(root, k, worker) + `"]}`)
			// With the run's context, not the call's: a put cut short at the
			// end of the run might still be stored and delivered, and every
			// message must be known put or failed.
			if _, _, err := clients[worker%len(clients)].Put(ctx, api.PutRequest{Metadata: meta, Body: wsload.Body(n, sent), TTL: &ttl}); err != nil {
				states[worker][seq] = msgFailed
				firstPutErr.CompareAndSwap(nil, err.Error())
				return 0, err
			}
			states[worker][seq] = msgSent
			return 1, nil
		})
	plan := newFanoutPlan(states)

	// Wait until every connection still open has every message it is
	// owed; what is still missing after wsSettle is counted below.
	_ = checkFor(ctx, wsSettle, 20*time.Millisecond, func() error {
		missing := 0
		for _, c := range conns {
			c.mu.Lock()
			if c.ended == nil {
				missing += plan.missing(c.pattern, c.got.seen)
			}
			c.mu.Unlock()
		}
		if missing > 0 {
			return fmt.Errorf("%d deliveries missing", missing)
		}
		return nil
	})
	if ctx.Err() != nil {
		return outcome{}, ctx.Err()
	}
	closeAll()

	var (
		sum       fanoutTally
		lat       []time.Duration
		last      time.Time
		ended     int
		endReason string
	)
	for _, c := range conns {
		sum = sum.add(plan.tally(c.pattern, &c.got))
		lat = append(lat, c.got.latencies...)
		if c.got.last.After(last) {
			last = c.got.last
		}
		if c.ended != nil {
			ended++
			if endReason == "" {
				endReason = closeReason(c.ended)
			}
		}
	}
	res := loadgen.Summarize(loadgen.Result{}, lat)
	o := outcome{Calls: sum.delivered + sum.uncertain, P50: res.P50, P95: res.P95, P99: res.P99, Elapsed: max(r.Elapsed, last.Sub(start))}
	putErrors := plan.failed()
	o.Errors = putErrors + sum.problems() + ended
	switch {
	case sum.problems() > 0 || ended > 0:
		o.FirstError = fmt.Sprintf("ws-fanout: %s; %d of %d connections ended by the server", sum, ended, len(conns))
		if endReason != "" {
			o.FirstError += " (first: " + endReason + ")"
		}
	case putErrors > 0:
		o.FirstError, _ = firstPutErr.Load().(string)
	}
	return o, nil
}

// wsPatternOf is the pattern a worker's seq-th message is put under, and
// wsNumber its number, unique in the run (its body says it).
func wsPatternOf(worker, seq int) int          { return (worker + seq) % wsPatterns }
func wsNumber(worker, seq, workers int) int    { return seq*workers + worker }
func wsPattern(root string, k int) string      { return fmt.Sprintf("%s.t%d.#", root, k) }
func wsPath(root string, k, worker int) string { return fmt.Sprintf("%s.t%d.w%d", root, k, worker) }

// wsConn is one connection of a run and what it received.
type wsConn struct {
	sub     *wsload.Subscription
	pattern int

	mu    sync.Mutex
	got   wsReceived
	ended error // why the server ended the connection before the run did
}

// wsOpen opens the run's connections, 16 at a time; any failure fails the
// run (and closes those opened).
func wsOpen(ctx context.Context, servers []string, root string) ([]*wsConn, error) {
	conns := make([]*wsConn, wsConnections)
	errs := make([]error, wsConnections)
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range 16 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= wsConnections || ctx.Err() != nil {
					return
				}
				k, server := i%wsPatterns, servers[(i/wsPatterns)%len(servers)]
				sub, err := wsload.Subscribe(ctx, server, wsPattern(root, k), 30*time.Second)
				if err != nil {
					errs[i] = fmt.Errorf("ws-fanout: connection %d to %s: %w", i, server, err)
					continue
				}
				conns[i] = &wsConn{sub: sub, pattern: k}
			}
		})
	}
	wg.Wait()
	err := ctx.Err()
	for _, e := range errs {
		if e != nil && err == nil {
			err = e
		}
	}
	if err != nil {
		for _, c := range conns {
			if c != nil {
				c.sub.Close()
			}
		}
		return nil, err
	}
	return conns, nil
}

// read records the connection's deliveries until it ends.
func (c *wsConn) read(closing *atomic.Bool) {
	err := c.sub.Read(func(n int, sent, at time.Time) {
		c.mu.Lock()
		c.got.add(n, sent, at)
		c.mu.Unlock()
	})
	if !closing.Load() {
		c.mu.Lock()
		c.ended = err
		c.mu.Unlock()
	}
}

// closeReason names why a connection ended: its close code when it has one.
func closeReason(err error) string {
	if code := websocket.CloseStatus(err); code != -1 {
		return fmt.Sprintf("close %d", code)
	}
	return err.Error()
}

// wsReceived is what one connection received.
type wsReceived struct {
	seen       bitset // message numbers, each the first time
	duplicates int
	foreign    int // frames that carry no message number of the run
	latencies  []time.Duration
	last       time.Time // the latest arrival
}

// add records message n (negative: a foreign frame), sent at sent and
// read at at.
func (r *wsReceived) add(n int, sent, at time.Time) {
	if n < 0 || n >= wsMaxMessage {
		r.foreign++
		return
	}
	if !r.seen.set(n) {
		r.duplicates++
		return
	}
	r.latencies = append(r.latencies, at.Sub(sent))
	if at.After(r.last) {
		r.last = at
	}
}

// bitset is a set of small non-negative numbers.
type bitset []uint64

// set adds n and reports whether it was new.
func (b *bitset) set(n int) bool {
	w := n / 64
	for len(*b) <= w {
		*b = append(*b, 0)
	}
	bit := uint64(1) << (n % 64)
	if (*b)[w]&bit != 0 {
		return false
	}
	(*b)[w] |= bit
	return true
}

func (b bitset) has(n int) bool { return n/64 < len(b) && b[n/64]&(1<<(n%64)) != 0 }

// each calls f with every member, ascending.
func (b bitset) each(f func(n int)) {
	for w, word := range b {
		for word != 0 {
			f(w*64 + bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
}

// msgState is what became of one put.
type msgState uint8

const (
	msgAttempted msgState = iota // not answered (never left at the end of a run)
	msgSent                      // stored: owed to every subscriber of its pattern
	msgFailed                    // failed: it may or may not have been stored
)

// fanoutPlan knows, from each worker's puts, which messages each
// pattern's connections are owed.
type fanoutPlan struct {
	workers int
	states  [][]msgState // by worker, then seq
	owed    [][]int      // by pattern: the numbers of its messages stored
}

func newFanoutPlan(states [][]msgState) *fanoutPlan {
	p := &fanoutPlan{workers: len(states), states: states, owed: make([][]int, wsPatterns)}
	for w, ss := range states {
		for seq, st := range ss {
			if st == msgSent {
				k := wsPatternOf(w, seq)
				p.owed[k] = append(p.owed[k], wsNumber(w, seq, len(states)))
			}
		}
	}
	return p
}

// message is the pattern and state of message n; false when no put
// carried that number.
func (p *fanoutPlan) message(n int) (pattern int, st msgState, ok bool) {
	if p.workers == 0 || n < 0 {
		return 0, 0, false
	}
	w, seq := n%p.workers, n/p.workers
	if seq >= len(p.states[w]) {
		return 0, 0, false
	}
	return wsPatternOf(w, seq), p.states[w][seq], true
}

// missing counts the messages owed to a connection of pattern k that are
// not in seen.
func (p *fanoutPlan) missing(k int, seen bitset) int {
	m := 0
	for _, n := range p.owed[k] {
		if !seen.has(n) {
			m++
		}
	}
	return m
}

// failed counts the puts that failed.
func (p *fanoutPlan) failed() int {
	f := 0
	for _, ss := range p.states {
		for _, st := range ss {
			if st == msgFailed {
				f++
			}
		}
	}
	return f
}

// fanoutTally sums what connections received against what they were owed.
type fanoutTally struct {
	expected   int // deliveries owed (messages stored × subscribers of their pattern)
	delivered  int // of those, received
	uncertain  int // received of a put that failed (it may have been stored): neither owed nor wrong
	missing    int // owed and not received
	duplicates int // received again
	unexpected int // frames of another pattern's message, of no message of the run, or foreign
}

// tally checks what a connection of pattern k received.
func (p *fanoutPlan) tally(k int, r *wsReceived) fanoutTally {
	t := fanoutTally{expected: len(p.owed[k]), missing: p.missing(k, r.seen), duplicates: r.duplicates, unexpected: r.foreign}
	r.seen.each(func(n int) {
		pk, st, ok := p.message(n)
		switch {
		case !ok || pk != k || st == msgAttempted:
			t.unexpected++
		case st == msgSent:
			t.delivered++
		default:
			t.uncertain++
		}
	})
	return t
}

func (t fanoutTally) add(u fanoutTally) fanoutTally {
	return fanoutTally{t.expected + u.expected, t.delivered + u.delivered, t.uncertain + u.uncertain,
		t.missing + u.missing, t.duplicates + u.duplicates, t.unexpected + u.unexpected}
}

// problems counts the deliveries that make a run wrong.
func (t fanoutTally) problems() int { return t.missing + t.duplicates + t.unexpected }

func (t fanoutTally) String() string {
	return fmt.Sprintf("%d of %d deliveries missing, %d duplicates, %d unexpected", t.missing, t.expected, t.duplicates, t.unexpected)
}
