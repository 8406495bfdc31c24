package sns

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// outages logs the start and the end of a run of failed calls on an
// internal queue (creating it, receiving from it), not every failure:
// while Cassandra is down or still connecting, the workers of every
// internal queue fail about once a second each (24 warnings a second with
// the defaults), and the log should say "down since" once.
type outages struct {
	m sync.Map // outageKey -> *outage
}

// outageKey is one call on one internal queue.
type outageKey struct{ op, queue string }

// The calls outages tracks.
const (
	opCreate  = "create"
	opReceive = "receive"
)

type outage struct {
	failures atomic.Int64 // in a row, by all workers of the queue
	since    atomic.Int64 // unix nanoseconds of the first of them
}

func (o *outages) of(k outageKey) *outage {
	v, ok := o.m.Load(k)
	if !ok {
		v, _ = o.m.LoadOrStore(k, new(outage))
	}
	return v.(*outage)
}

// failed counts a failed op (opCreate, opReceive) on queue name; the
// first of a run is logged as a warning.
func (o *outages) failed(log *slog.Logger, op, name string, err error) {
	x := o.of(outageKey{op, name})
	if x.failures.Add(1) == 1 {
		x.since.Store(time.Now().UnixNano())
		log.Warn("sns: internal queue failing; retrying every second, logged again when it succeeds",
			"op", op, "queue", name, "err", err)
	}
}

// succeeded ends a run of failures of op on queue name, if there was one,
// with an info line saying how long and how many.
func (o *outages) succeeded(log *slog.Logger, op, name string) {
	v, ok := o.m.Load(outageKey{op, name})
	if !ok {
		return
	}
	x := v.(*outage)
	if n := x.failures.Swap(0); n > 0 {
		log.Info("sns: internal queue succeeds again", "op", op, "queue", name, "failed", n,
			"for", time.Since(time.Unix(0, x.since.Load())).Round(time.Millisecond))
	}
}
