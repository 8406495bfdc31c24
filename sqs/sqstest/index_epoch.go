package sqstest

import (
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// Index epochs (sqs.IndexQueue.Epoch): the operations that check the
// built marker serve a state built under the caller's epoch, forget one
// built under an older epoch (ErrNotBuilt, as after a Drop) and refuse one
// built under a newer epoch (ErrStaleEpoch, state kept).

// epochOps are the operations that check the built marker, each asked of q
// at now (ms) and answering its error.
var epochOps = []struct {
	name string
	call func(e *indexEnv, q sqs.IndexQueue, now int) error
}{
	{"Receive", func(e *indexEnv, q sqs.IndexQueue, now int) error {
		_, err := e.x.Receive(e.ctx, q, sqs.ReceiveRequest{Now: e.at(now), Max: 10, Until: e.at(now + 30_000)})
		return err
	}},
	{"Counts", func(e *indexEnv, q sqs.IndexQueue, now int) error {
		_, err := e.x.Counts(e.ctx, q, e.at(now))
		return err
	}},
	{"Missing", func(e *indexEnv, q sqs.IndexQueue, now int) error {
		_, err := e.x.Missing(e.ctx, q, []uuid.UUID{uuid.New()})
		return err
	}},
}

// epochQueue returns a new queue built under epoch, holding messages a and
// b (prefixed), b received once.
func (e *indexEnv) epochQueue(fifo bool, epoch uint64, prefix string) sqs.IndexQueue {
	e.t.Helper()
	q := sqs.IndexQueue{ID: uuid.New(), FIFO: fifo, Epoch: epoch}
	if err := e.x.MarkBuilt(e.ctx, q); err != nil {
		e.t.Fatalf("MarkBuilt under epoch %d: %v", epoch, err)
	}
	e.add(q, "g1", 0, prefix+"a")
	e.add(q, "g2", 10, prefix+"b")
	e.expect(q, 5, 1, 60_000, prefix+"a")
	return q
}

// atEpoch returns q under epoch.
func atEpoch(q sqs.IndexQueue, epoch uint64) sqs.IndexQueue { q.Epoch = epoch; return q }

// A state built under an older epoch is forgotten by whichever operation
// sees it first: it answers ErrNotBuilt, and a rebuild starts from nothing.
func testEpochOlderDrops(e *indexEnv) {
	for _, op := range epochOps {
		for _, fifo := range []bool{false, true} {
			prefix := op.name + map[bool]string{false: "s", true: "f"}[fifo]
			q := e.epochQueue(fifo, 5, prefix)
			wantErr(e.t, op.name+" under a newer epoch", op.call(e, atEpoch(q, 6), 1000), sqs.ErrNotBuilt)
			// Gone: under its own epoch too (no marker any more).
			wantErr(e.t, "Counts under the old epoch after the drop", func() error {
				_, err := e.x.Counts(e.ctx, q, e.at(1000))
				return err
			}(), sqs.ErrNotBuilt)
			// Rebuilt under the new epoch with nothing added: empty.
			q6 := atEpoch(q, 6)
			if err := e.x.MarkBuilt(e.ctx, q6); err != nil {
				e.t.Fatal(err)
			}
			e.counts(q6, 1000, sqs.Counts{})
			e.expect(q6, 1000, 10, 31_000)
			missing, err := e.x.Missing(e.ctx, q6, e.idsOf(prefix+"a", prefix+"b"))
			if err != nil || len(missing) != 2 {
				e.t.Errorf("%s: Missing after the drop = %v, %v; want both", prefix, missing, err)
			}
		}
	}
}

// A state built under a newer epoch than the caller's is left as it is:
// the caller's epoch is stale.
func testEpochNewerIsStale(e *indexEnv) {
	for _, op := range epochOps {
		for _, fifo := range []bool{false, true} {
			prefix := op.name + map[bool]string{false: "s", true: "f"}[fifo]
			q := e.epochQueue(fifo, 7, prefix)
			wantErr(e.t, op.name+" under an older epoch", op.call(e, atEpoch(q, 6), 1000), sqs.ErrStaleEpoch)
			wantErr(e.t, "MarkBuilt under an older epoch", e.x.MarkBuilt(e.ctx, atEpoch(q, 6)), sqs.ErrStaleEpoch)
			// Kept, and still built under its epoch.
			e.counts(q, 1000, sqs.Counts{Visible: 1, InFlight: 1})
			e.expect(q, 1000, 10, 31_000, prefix+"b")
		}
	}
}

// A rebuild commits the state under the epoch of its lease; a rebuild's
// saved progress under an older epoch is forgotten with its entries.
func testEpochRebuild(e *indexEnv) {
	q := sqs.IndexQueue{ID: uuid.New(), Epoch: 3}
	l := e.lock(q, time.Minute)
	if err := e.leaseAdd(l, "p1", "a"); err != nil {
		e.t.Fatal(err)
	}
	l.Release() // interrupted
	// The epoch is bumped: the partial rebuild is forgotten.
	q4 := atEpoch(q, 4)
	wantErr(e.t, "Counts of a partial rebuild of an older epoch", func() error {
		_, err := e.x.Counts(e.ctx, q4, e.at(0))
		return err
	}(), sqs.ErrNotBuilt)
	l4 := e.lock(q4, time.Minute)
	defer l4.Release()
	e.progress(l4, "")
	if err := e.leaseAdd(l4, "p2", "b"); err != nil {
		e.t.Fatal(err)
	}
	if err := l4.Commit(e.ctx); err != nil {
		e.t.Fatalf("Commit: %v", err)
	}
	e.counts(q4, 0, sqs.Counts{Visible: 1})
	wantErr(e.t, "Counts under the epoch before the commit's", func() error {
		_, err := e.x.Counts(e.ctx, q, e.at(0))
		return err
	}(), sqs.ErrStaleEpoch)
	// A lease of an older epoch cannot commit over a newer state.
	l4.Release()
	old, ok, err := e.x.LockRebuild(e.ctx, q, time.Minute)
	if err != nil || !ok {
		e.t.Fatalf("LockRebuild: ok %v, err %v", ok, err)
	}
	defer old.Release()
	if err := old.Commit(e.ctx); !errors.Is(err, sqs.ErrStaleEpoch) {
		e.t.Errorf("Commit of a lease of an older epoch: %v, want ErrStaleEpoch", err)
	}
	e.counts(q4, 0, sqs.Counts{Visible: 1})
}
