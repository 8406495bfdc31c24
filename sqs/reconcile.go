package sqs

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
)

// The reconciler proves the no-stranding invariant in production: a
// low-rate background pass that compares each active queue's Store with
// its Index and repairs what diverged.
//
//   - A stored message the Index does not track (older than a grace, so
//     that sends in flight between their Store and Index writes are not
//     mistaken for strays) is added to the Index: kind "store_only". Before
//     the add it is read again, so that a message deleted meanwhile is not
//     brought back.
//   - An Index entry whose message is gone from the Store is removed when a
//     receive claims it (loadClaims): kind "index_only". Such an entry can
//     never hide a message; it only inflates the approximate counts until
//     then.
//
// Idle queues cost nothing: only queues that this node saw traffic or a
// fault on (a send, receive, delete, rebuild or failed Index write) since
// their last pass are visited, each pass resumable (a cursor per shard),
// and a tick reads at most ReconcileBudget stored messages in all.

// reconcileGrace is how old a stored message must be before its absence
// from the Index counts as divergence.
const reconcileGrace = 30 * time.Second

// maxReconcileQueues bounds the queues waiting for a pass on one node.
const maxReconcileQueues = 100_000

// reconciler holds the queues to visit and where each pass stands.
type reconciler struct {
	mu      sync.Mutex
	pending map[uuid.UUID]*reconcileCursor
	order   []uuid.UUID // round-robin over pending
}

// reconcileCursor is one queue's pass: the shard being read and the last
// message read in it.
type reconcileCursor struct {
	q     *Queue
	shard int
	after uuid.UUID
	fresh bool // the pass skipped messages younger than the grace
}

// touch marks q as active: it will get a reconciliation pass.
func (r *reconciler) touch(q *Queue) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.pending[q.ID]; ok {
		c.q = q // keep the freshest record
		return
	}
	if r.pending == nil {
		r.pending = map[uuid.UUID]*reconcileCursor{}
	}
	if len(r.pending) >= maxReconcileQueues {
		return
	}
	r.pending[q.ID] = &reconcileCursor{q: q}
	r.order = append(r.order, q.ID)
}

// next takes the next queue to work on (round-robin).
func (r *reconciler) next() *reconcileCursor {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.order) > 0 {
		id := r.order[0]
		r.order = r.order[1:]
		if c, ok := r.pending[id]; ok {
			r.order = append(r.order, id)
			return c
		}
	}
	return nil
}

// done ends a queue's pass; a later touch starts a new one.
func (r *reconciler) done(id uuid.UUID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.pending, id)
	for i, o := range r.order {
		if o == id {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
}

// pendingQueues is how many queues wait for (or are in) a pass.
func (r *reconciler) pendingQueues() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}

// runReconciler reconciles every ReconcileInterval until ctx ends.
func (s *Service) runReconciler(ctx context.Context) {
	if s.cfg.ReconcileInterval < 0 {
		return
	}
	t := time.NewTicker(s.cfg.ReconcileInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.bg.Done():
			return
		case <-t.C:
			s.ReconcileOnce(ctx)
		}
	}
}

// ReconcileOnce runs one tick of the reconciler: it reads at most
// ReconcileBudget stored messages of the active queues and repairs what
// their Index lacks. It returns how many messages it read.
func (s *Service) ReconcileOnce(ctx context.Context) int {
	budget := s.cfg.ReconcileBudget
	read := 0
	seen := map[uuid.UUID]bool{}
	for read < budget {
		c := s.reconcile.next()
		if c == nil || seen[c.q.ID] {
			break
		}
		seen[c.q.ID] = true
		n, finished, err := s.reconcileQueue(ctx, c, budget-read)
		read += n
		if errors.Is(err, ErrStaleEpoch) {
			// Built under a newer epoch by another node, which reconciles
			// it; this node reads the epoch again.
			_, _ = s.epochsOf(s.servingDC(ctx, c.q)).refresh(ctx)
			err = ErrNotBuilt
		}
		if err != nil && ctx.Err() == nil && !errors.Is(err, ErrNotBuilt) {
			s.cfg.Logger.Warn("sqs: reconciling a queue failed; it is tried again later", "queue", c.q.Name, "account", c.q.Account, "err", err)
			continue
		}
		switch {
		case errors.Is(err, ErrNotBuilt):
			// A queue that is not built is rebuilt whole on its next
			// receive: nothing to reconcile.
			s.reconcile.done(c.q.ID)
		case finished && c.fresh:
			// Messages too young to judge: another pass, later.
			c.shard, c.after, c.fresh = 0, uuid.Nil, false
		case finished:
			s.reconcile.done(c.q.ID)
		}
	}
	return read
}

// reconcileQueue advances c's pass by at most limit messages; finished
// when every shard has been read.
func (s *Service) reconcileQueue(ctx context.Context, c *reconcileCursor, limit int) (read int, finished bool, err error) {
	q, iq := c.q, s.indexQueue(ctx, c.q)
	cutoff := s.now().Add(-reconcileGrace)
	for read < limit && c.shard < max(1, q.Shards) {
		want := min(scanPage, limit-read)
		page, err := s.store.ScanMessages(ctx, q, c.shard, c.after, want)
		if err != nil {
			return read, false, err
		}
		read += len(page)
		if len(page) < want {
			c.shard, c.after = c.shard+1, uuid.Nil // this shard is done
		} else {
			c.after = page[len(page)-1].ID
		}
		var ids []uuid.UUID
		for _, m := range page {
			if m.SentAt.Before(cutoff) {
				ids = append(ids, m.ID)
			} else {
				c.fresh = true
			}
		}
		if len(ids) == 0 {
			continue
		}
		missing, err := s.index.Missing(ctx, iq, ids)
		if err != nil {
			return read, false, err
		}
		if err := s.repairStoreOnly(ctx, q, missing); err != nil {
			return read, false, err
		}
	}
	return read, c.shard >= max(1, q.Shards), nil
}

// repairStoreOnly adds to the Index the stored messages it lacks, read
// again first so that none deleted since the scan comes back.
func (s *Service) repairStoreOnly(ctx context.Context, q *Queue, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	stored, err := s.store.GetMessages(ctx, q, ids)
	if err != nil || len(stored) == 0 {
		return err
	}
	now := s.now()
	entries := make([]Entry, len(stored))
	for i, m := range stored {
		entries[i] = storedEntry(q, m, now)
	}
	if err := s.index.Add(ctx, s.indexQueue(ctx, q), entries); err != nil {
		return err
	}
	s.stats.ReconciledStoreOnly.Add(int64(len(entries)))
	s.cfg.Logger.Warn("sqs: reconciler repaired messages stored but missing from the index",
		slog.String("queue", q.Name), slog.String("account", q.Account), slog.Int("messages", len(entries)),
		slog.String("first", entries[0].ID.String()))
	return nil
}
