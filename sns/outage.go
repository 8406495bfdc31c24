package sns

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// outages logs the start and the end of a run of failed receives from an
// internal queue, not every failure: while Cassandra is down, the workers
// of every internal queue fail about once a second each (24 warnings a
// second with the defaults), and the log should say "down since" once.
type outages struct {
	m sync.Map // queue name -> *outage
}

type outage struct {
	failures atomic.Int64 // in a row, by all workers of the queue
	since    atomic.Int64 // unix nanoseconds of the first of them
}

func (o *outages) of(name string) *outage {
	v, ok := o.m.Load(name)
	if !ok {
		v, _ = o.m.LoadOrStore(name, new(outage))
	}
	return v.(*outage)
}

// failed counts a failed receive from queue name; the first of a run is
// logged as a warning.
func (o *outages) failed(log *slog.Logger, name string, err error) {
	x := o.of(name)
	if x.failures.Add(1) == 1 {
		x.since.Store(time.Now().UnixNano())
		log.Warn("sns: receives from internal queue failing; retrying every second, logged again when they succeed",
			"queue", name, "err", err)
	}
}

// succeeded ends a run of failures of queue name, if there was one, with
// an info line saying how long and how many.
func (o *outages) succeeded(log *slog.Logger, name string) {
	v, ok := o.m.Load(name)
	if !ok {
		return
	}
	x := v.(*outage)
	if n := x.failures.Swap(0); n > 0 {
		log.Info("sns: receives from internal queue succeed again", "queue", name, "failed", n,
			"for", time.Since(time.Unix(0, x.since.Load())).Round(time.Millisecond))
	}
}
