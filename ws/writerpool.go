package ws

import (
	"runtime"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// A connection with frames to write needs a goroutine to write them. An
// idle connection holds none (its stack would cost more than the rest of
// the connection), and starting one for each delivery of a 10,000-way
// fan-out took 16% of the server's CPU samples (its start, end and
// scheduling). So a connection whose socket can be written without
// waiting (plain TCP) is handed to a small pool of writers instead: a
// writer takes ready connections a chunk at a time (writerTake), frames
// what each has queued, batch after batch, and writes it without waiting
// for the socket. Only when the socket is full, a frame is larger than a
// batch, or the library is writing a control frame does the connection
// get a goroutine of its own (finishWrites, then writeFrames), which
// writes the rest, waiting as it must. A TLS connection always gets its
// own goroutine.

// writerPool is a Handler's writers: GOMAXPROCS goroutines, started with
// the first connection and ended by Shutdown.
type writerPool struct {
	mu      sync.Mutex
	wake    sync.Cond // on mu
	ready   []*conn   // connections waiting for a writer, in order, from head on
	head    int       // ready[:head] are taken (nil)
	waiting int       // writers waiting for ready connections
	started bool
	stopped bool
}

// start starts the writers.
func (p *writerPool) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started || p.stopped {
		return
	}
	p.started = true
	p.wake.L = &p.mu
	for range runtime.GOMAXPROCS(0) {
		go p.work()
	}
}

// submit queues c for a writer; it reports false once the pool has
// stopped (the caller then starts a goroutine of its own).
func (p *writerPool) submit(c *conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started || p.stopped {
		return false
	}
	p.ready = append(p.ready, c)
	if p.waiting > 0 {
		p.wake.Signal()
	}
	return true
}

// stop ends the writers once they have written what is ready.
func (p *writerPool) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	if p.started {
		p.wake.Broadcast()
	}
}

// writerTake is the most ready connections a writer takes at once. A
// writer that took a whole fan-out (thousands) and was then descheduled
// held back every one of them while the other writers idled; in chunks,
// the others go on with the rest.
const writerTake = 128

// compactAfter is how many taken slots the ready list may hold at its
// front before the rest is moved down (once they are half of it).
const compactAfter = 1024

// work writes for the ready connections, a chunk at a time, until the
// pool stops.
func (p *writerPool) work() {
	batch := make([]*conn, 0, writerTake)
	for {
		var ok bool
		if batch, ok = p.take(batch[:0]); !ok {
			return
		}
		for i, c := range batch {
			c.writeOnWorker()
			batch[i] = nil
		}
	}
}

// take waits for ready connections and appends up to writerTake of them,
// oldest first, to batch; it wakes another writer for what it leaves. ok
// is false once the pool has stopped and nothing is ready.
func (p *writerPool) take(batch []*conn) (_ []*conn, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.head == len(p.ready) {
		if p.stopped {
			return batch, false
		}
		p.waiting++
		p.wake.Wait()
		p.waiting--
	}
	end := min(len(p.ready), p.head+writerTake)
	batch = append(batch, p.ready[p.head:end]...)
	clear(p.ready[p.head:end])
	p.head = end
	switch {
	case p.head == len(p.ready):
		p.ready, p.head = p.ready[:0], 0
	case p.head >= compactAfter && 2*p.head >= len(p.ready):
		// Under a load that never lets the list drain, the taken front
		// would grow without end: move the rest down.
		n := copy(p.ready, p.ready[p.head:])
		clear(p.ready[n:])
		p.ready, p.head = p.ready[:n], 0
	}
	if p.head < len(p.ready) && p.waiting > 0 {
		p.wake.Signal() // another writer takes the next chunk
	}
	return batch, true
}

// writeOnWorker writes c's queued frames on a pool writer, without
// waiting for the socket, until the queue is empty. When the socket is
// full, or a frame is too large for a batch, it hands the rest over to a
// goroutine of c's own.
func (c *conn) writeOnWorker() {
	for {
		items := c.out.next()
		if items == nil {
			return
		}
		c.writingSince.Store(time.Now().UnixNano())
		pb := c.h.batches.get()
		for len(items) > 0 {
			buf, sent, rest := c.frameBatch((*pb)[:0], items)
			*pb = buf
			if len(buf) == 0 && len(rest) > 0 {
				c.handOver(pb, 0, 0, rest) // a frame larger than a batch
				return
			}
			n, err := 0, error(nil)
			if len(buf) > 0 {
				n, err = c.fw.tryWriteHold(buf)
			}
			if err != nil {
				c.h.batches.put(pb)
				c.writingSince.Store(0)
				c.closeWith(websocket.StatusGoingAway, "write failed")
				return
			}
			if n < len(buf) {
				// The socket is full (its lock stays held), or the library
				// is writing a control frame (n < 0).
				c.handOver(pb, n, sent, rest)
				return
			}
			c.h.stats.FramesSent.Add(sent)
			items = rest
		}
		c.h.batches.put(pb)
		c.writingSince.Store(0)
	}
}

// handOver has a goroutine of c's own finish what writeOnWorker began.
func (c *conn) handOver(pb *[]byte, n int, sent int64, rest []outItem) {
	if hook := c.h.hooks.handover; hook != nil {
		hook()
	}
	go c.finishWrites(pb, n, sent, rest)
}

// finishWrites completes what writeOnWorker began: the batch in *pb, all
// of it when n < 0, else from offset n with the frameWriter's lock held
// when n < len; then the frames in rest, then whatever is queued
// meanwhile.
func (c *conn) finishWrites(pb *[]byte, n int, sent int64, rest []outItem) {
	buf := *pb
	var err error
	switch {
	case n < 0:
		err = c.fw.writeFrames(buf)
	case n < len(buf):
		err = c.fw.finishHeld(buf[n:])
	}
	c.h.batches.put(pb)
	if err == nil {
		c.h.stats.FramesSent.Add(sent)
		err = c.writeBatch(rest)
	}
	if err != nil {
		c.writingSince.Store(0)
		c.closeWith(websocket.StatusGoingAway, "write failed")
		return
	}
	c.writeFrames()
}
