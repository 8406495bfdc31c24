package amqp

// acker coalesces the acknowledgements of one consuming channel. Workers
// settle deliveries out of order; the acker acknowledges, with one
// "multiple" ack, every delivery up to the highest tag below which all are
// settled. Under load one frame then acknowledges dozens of messages
// instead of one frame (and one write) each, which is most of the
// broker's and the consumer's per-message network cost; when idle, each
// ack still goes out at once.
//
// A delivery nacked or rejected must be sent by its worker before it is
// reported settled, so that no multiple ack ever covers it while it is
// still outstanding.
type acker struct {
	ack     func(tag uint64) error // acknowledge every outstanding tag up to tag
	settled chan settledTag
	done    chan struct{}
}

type settledTag struct {
	tag   uint64
	acked bool // false: already nacked or rejected by the worker
}

func newAcker(ack func(tag uint64) error, buffer int) *acker {
	a := &acker{ack: ack, settled: make(chan settledTag, buffer), done: make(chan struct{})}
	go a.loop()
	return a
}

// acked reports tag processed and to be acknowledged.
func (a *acker) acked(tag uint64) { a.settled <- settledTag{tag: tag, acked: true} }

// finished reports tag settled by the worker itself (nack, reject).
func (a *acker) finished(tag uint64) { a.settled <- settledTag{tag: tag} }

// close flushes what can be acknowledged and stops; call it after every
// worker has returned.
func (a *acker) close() {
	close(a.settled)
	<-a.done
}

func (a *acker) loop() {
	defer close(a.done)
	next := uint64(1) // the lowest tag not yet known settled
	done := map[uint64]bool{}
	pending := false // acked tags below next not yet acknowledged
	flush := func() {
		if pending && next > 1 {
			a.ack(next - 1)
			pending = false
		}
	}
	for s := range a.settled {
		done[s.tag] = s.acked
		for {
			acked, ok := done[next]
			if !ok {
				break
			}
			delete(done, next)
			pending = pending || acked
			next++
		}
		if len(a.settled) == 0 { // nothing else waiting: acknowledge now
			flush()
		}
	}
	flush()
}
