package chaos

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// fifoGroupsPerProducer is how many message groups each producer of the
// FIFO scenario owns (and sends to in turn, in order).
const fifoGroupsPerProducer = 4

// sqsScenario loads one SQS queue, standard or FIFO: producers send
// batches, consumers receive (long poll of 1 s), check and delete them.
// On the FIFO queue each producer owns its message groups and numbers
// their messages, and the consumers count first deliveries that come out
// of a group's order.
type sqsScenario struct {
	fifo bool
	q    sqsQueue
	ord  fifoOrder
}

func (s *sqsScenario) uses() uses                              { return uses{sqs: true} }
func (s *sqsScenario) subscribers() int                        { return 1 }
func (s *sqsScenario) heraldArgs(*world) []string              { return nil }
func (s *sqsScenario) afterStop(context.Context, *scenarioRun) {}

func (s *sqsScenario) setup(ctx context.Context, r *scenarioRun) error {
	s.ord.init()
	return s.q.create(ctx, r, r.prefix(), s.fifo)
}

func (s *sqsScenario) produce(ctx context.Context, r *scenarioRun, worker, n int) error {
	return s.q.send(ctx, r, worker, n)
}

func (s *sqsScenario) consume(ctx context.Context, r *scenarioRun, worker int, stop <-chan struct{}) {
	s.q.consume(ctx, r, 0, stop, func(id uuid.UUID, payload string) {
		if s.fifo {
			s.ord.see(payload, r.tally.current.Load().name, r.tally.isAcked(id))
		}
	})
}

func (s *sqsScenario) finish(r *scenarioRun) {
	if s.fifo {
		total, unacked, byWindow, samples := s.ord.result()
		r.rep.setExtra("fifo_reordered_first_deliveries", total)
		r.rep.setExtra("fifo_reordered_unacknowledged_sends", unacked)
		for _, w := range slices.Sorted(maps.Keys(byWindow)) {
			r.rep.setExtra("fifo_reordered_in_"+w, byWindow[w])
		}
		for _, sample := range samples {
			r.rep.Notes = append(r.rep.Notes, "FIFO order: "+sample)
		}
	}
}

func (s *sqsScenario) teardown(ctx context.Context, r *scenarioRun) { s.q.remove(ctx) }

// sqsQueue is one queue of a scenario with its producer and consumer
// sides; the SNS and WebSocket scenarios use it too.
type sqsQueue struct {
	c    *sqsClient
	url  string
	fifo bool

	mu   sync.Mutex
	seqs map[int]*[fifoGroupsPerProducer]int64 // FIFO: next number per group, by producer
	next map[int]int                           // FIFO: the producer's next group
}

// create creates the queue name (".fifo" added for a FIFO queue) with the
// drill's visibility timeout.
func (q *sqsQueue) create(ctx context.Context, r *scenarioRun, name string, fifo bool) error {
	if q.c == nil {
		q.c = newSQSClient(r.url, r.cfg.Producers+r.cfg.Consumers+4)
	}
	q.fifo = fifo
	attrs := map[string]string{"VisibilityTimeout": strconv.Itoa(int(r.cfg.Visibility / time.Second))}
	if fifo {
		name += ".fifo"
		attrs["FifoQueue"] = "true"
	}
	url, err := q.c.createQueue(ctx, name, attrs)
	q.url = url
	q.seqs = map[int]*[fifoGroupsPerProducer]int64{}
	q.next = map[int]int{}
	return err
}

// remove deletes the queue (best effort: the drill may be ending on a
// broken server).
func (q *sqsQueue) remove(ctx context.Context) {
	if q.c == nil {
		return
	}
	if q.url != "" {
		q.c.deleteQueue(ctx, q.url)
	}
	q.c.close()
}

// send sends n messages in one SendMessageBatch. On a FIFO queue they go
// to the producer's next group, numbered in the group's order, each with
// its id as the deduplication id.
func (q *sqsQueue) send(ctx context.Context, r *scenarioRun, worker, n int) error {
	entries := make([]sendEntry, n)
	ids := make([]uuid.UUID, n)
	var group int
	var seqs *[fifoGroupsPerProducer]int64
	if q.fifo {
		q.mu.Lock()
		if q.seqs[worker] == nil {
			q.seqs[worker] = new([fifoGroupsPerProducer]int64)
		}
		seqs, group = q.seqs[worker], q.next[worker]
		q.next[worker] = (group + 1) % fifoGroupsPerProducer
		q.mu.Unlock()
	}
	for i := range entries {
		prefix := ""
		if q.fifo {
			prefix = fmt.Sprintf("g%d.s%d.", worker*fifoGroupsPerProducer+group, seqs[group])
			seqs[group]++
		}
		ids[i], entries[i].body = r.newMessage(prefix)
		if q.fifo {
			entries[i].group = "g" + strconv.Itoa(worker*fifoGroupsPerProducer+group)
			entries[i].dedup = ids[i].String()
		}
	}
	started := time.Now()
	acked, bad, err := q.c.sendBatch(ctx, q.url, entries)
	if err != nil {
		return err
	}
	for i, ok := range acked {
		if ok {
			r.tally.ack(ids[i], started)
		}
	}
	if bad > 0 {
		r.tally.corruptBody(fmt.Sprintf("%d sends acknowledged with the MD5 of another body", bad))
	}
	if n := countFalse(acked); n > 0 {
		return fmt.Errorf("SendMessageBatch: %d of %d entries not acknowledged", n, len(acked))
	}
	return nil
}

// consume receives from the queue until stop, recording each delivery to
// subscriber sub (seen is called with the id and payload of each first
// delivery), and deletes what it received.
func (q *sqsQueue) consume(ctx context.Context, r *scenarioRun, sub int, stop <-chan struct{}, seen func(id uuid.UUID, payload string)) {
	handles := make([]string, 0, 10)
	for !stopped(stop) && ctx.Err() == nil {
		started := time.Now()
		msgs, err := q.c.receive(ctx, q.url, 10, 1)
		if err != nil {
			r.fail("receive", err)
			if !sleep(ctx, stop, 100*time.Millisecond) {
				return
			}
			continue
		}
		handles = handles[:0]
		for _, m := range msgs {
			id, payload, first, ok := r.received(m.Body, sub, started)
			if ok && first && seen != nil {
				seen(id, payload)
			}
			handles = append(handles, m.ReceiptHandle)
		}
		if len(handles) == 0 {
			continue
		}
		if _, err := q.c.deleteBatch(ctx, q.url, handles); err != nil {
			// Not deleted: the messages come back after their
			// visibility timeout, as duplicates.
			r.fail("delete", err)
		}
	}
}

func countFalse(bs []bool) int {
	n := 0
	for _, b := range bs {
		if !b {
			n++
		}
	}
	return n
}

// fifoOrder checks that first deliveries of each FIFO group come in the
// order the group's messages were sent. A message whose send was not
// acknowledged (the client saw an error or no answer, e.g. Herald killed
// between storing it and indexing it) may come late, as its outcome was
// unknown; such reorders are counted apart and are not in count.
type fifoOrder struct {
	mu       sync.Mutex
	last     map[string]int64 // group → highest number delivered so far
	count    int64
	unacked  int64
	byWindow map[string]int64 // reorders by the tally window they happened in
	samples  []string
}

func (o *fifoOrder) init() { o.last, o.byWindow = map[string]int64{}, map[string]int64{} }

// see takes the payload of a first delivery, "g<group>.s<number>." ...,
// the window it happened in and whether its send was acknowledged.
func (o *fifoOrder) see(payload, window string, acked bool) {
	group, rest, ok := strings.Cut(payload, ".")
	if !ok || !strings.HasPrefix(rest, "s") {
		return
	}
	num, _, _ := strings.Cut(rest[1:], ".")
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if last, ok := o.last[group]; ok && n < last {
		if !acked {
			o.unacked++
			return
		}
		o.count++
		o.byWindow[window]++
		if len(o.samples) < 3 {
			o.samples = append(o.samples, fmt.Sprintf("group %s: message %d first delivered after message %d (in the %s window, %s)",
				group, n, last, window, time.Now().UTC().Format("15:04:05.000")))
		}
		return
	}
	o.last[group] = n
}

// result returns the reorders of acknowledged sends in all, those of
// unacknowledged sends, the former by window, and a few samples.
func (o *fifoOrder) result() (total, unacked int64, byWindow map[string]int64, samples []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.count, o.unacked, maps.Clone(o.byWindow), slices.Clone(o.samples)
}
