package cassandrastore

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/rollup"
)

// One committer per commit shard of a rollup (rollup/shard.go: each shard
// is, for everything below, a rollup of its own, keyed by its ID; a rollup
// of one shard has one committer). Commits to a rollup are serialised by the
// transaction on its sequence (rollup_commit.go), which stays exact
// whatever number of nodes commit; but nodes committing at once lose the
// transaction to each other, catch up and try again, and that contention,
// not the work of a commit, capped a rollup fed from many nodes (E(4) =
// 0.50, BENCHMARKS.md). So at any moment one node, the holder of the
// rollup's lease (rollup_lease, a lightweight transaction per lease
// period), commits for every node:
//
//   - A node with a batch to commit takes the lease if nobody holds it.
//     The holder runs a fold loop: it takes the batches of its own
//     writers and those other nodes left in the rollup's inbox, merges
//     them into one batch (rollup.Batch.Merge) and commits that with the
//     protocol of rollup_commit.go, then tells each batch's writer the
//     outcome: committed, or "these events were committed before" (the
//     writer drops them and sends the rest again, as for any duplicate).
//     A batch holding events of the merged one is told so once that
//     commits (fold).
//   - Any other node writes its batch into rollup_inbox (a plain write)
//     and polls the record's outcome, which the holder writes there; with
//     none after submitPatience (a holder that never read the record: its
//     writer's clock more than inboxLag behind the holder's), it commits
//     the batch itself.
//   - A holder renews its lease while it has work and lets it go after
//     foldIdle without any; a writer that sees no lease while it waits
//     takes it, and its fold loop reads the inbox back two lease periods,
//     so the records a holder that died left without an outcome are
//     folded by the next.
//
// The lease is for throughput only; exactness never depends on it: every
// commit still goes through the sequence's transaction, record first,
// fenced by its sequence number. A holder paused past its lease while
// another took it commits, at worst, after the other, or loses the
// transaction and catches up. A record folded twice (its holder died
// after the commit, before writing the outcome) is all duplicates the
// second time: its writer is told its events were committed, and they
// count once. A record a holder never reads (written with a clock far
// behind) is committed by its writer itself, after submitPatience.

// Lease and inbox timings.
const (
	defaultLeaseTTL = 10 * time.Second
	inboxSlot       = 10 * time.Second // an inbox partition holds the records of one slot
	inboxTTL        = time.Hour
	inboxLag        = 2 * time.Second // how far back each scan of the inbox reaches
	foldPollMin     = 10 * time.Millisecond
	foldPollMax     = 100 * time.Millisecond
	outcomePollMax  = 25 * time.Millisecond // a writer's wait between reads of its record's outcome
	foldIdle        = 30 * time.Second
	foldClockSpread = time.Second // of the writers' clocks in one commit
)

// submitPatience is how long a writer waits for its record's outcome
// before it commits the batch itself: two lease periods, past the period
// and a half by when a writer has taken over from a holder that died.
func submitPatience(leaseTTL time.Duration) time.Duration { return 2 * leaseTTL }

// takenPatience is how long a writer waits, once the committer marked its
// record taken, before it commits the batch itself: a committer busy with
// heavy commits may take longer than submitPatience to reach a record it
// read, and a writer committing it meanwhile would contend with it. A
// committer that died after taking it is replaced within a lease period,
// and its successor reads back records taken but without an outcome.
func takenPatience(leaseTTL time.Duration) time.Duration { return 12 * leaseTTL }

var (
	errLostLease = errors.New("rollup: this node no longer holds the lease")
	errFoldStop  = errors.New("rollup: the store closed")
)

// folder is this node's side of the lease of one rollup's commit shard
// (rollup/shard.go: each shard has its own lease, inbox and committer,
// so the shards of one rollup commit on different nodes at once).
type folder struct {
	rs     *rollupStore
	id     uuid.UUID // the shard's ID (rollup.Definition.ShardID)
	rollup uuid.UUID
	shard  int

	mu      sync.Mutex
	def     *rollup.Definition // the newest version this node was given
	leading bool               // a fold loop runs (the lease is this node's)
	queue   []*foldReq
	other   time.Time // another node's lease holds until then, as last read
	wake    chan struct{}
}

// foldReq is one batch waiting for a fold: a local writer's (done) or
// another node's record in the inbox (rec).
type foldReq struct {
	b    *rollup.Batch
	now  time.Time
	done chan error
	rec  *inboxRec
}

func (rs *rollupStore) folder(d *rollup.Definition, shard int) *folder {
	id := d.ShardID(shard)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	f := rs.folders[id]
	if f == nil {
		f = &folder{rs: rs, id: id, rollup: d.ID, shard: shard, def: d, wake: make(chan struct{}, 1)}
		rs.folders[id] = f
	}
	return f
}

// claimDelay is how long a node waits before it tries to take a free
// lease of a rollup's shard for each lease of that rollup it holds or is
// taking: a node holding none tries first, so that the shards' leases
// spread over the nodes that commit to the rollup instead of gathering
// on the first to try.
const claimDelay = 25 * time.Millisecond

// claims counts the leases of rollup id this node holds or is taking,
// and with add counts one more taking (undone by unclaim).
func (rs *rollupStore) claims(id uuid.UUID, add bool) int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	n := rs.claiming[id] + rs.leadingOf(id)
	if add {
		rs.claiming[id]++
	}
	return n
}

func (rs *rollupStore) unclaim(id uuid.UUID) {
	rs.mu.Lock()
	if rs.claiming[id]--; rs.claiming[id] <= 0 {
		delete(rs.claiming, id)
	}
	rs.mu.Unlock()
}

// sawSubmitter notes that node submitted a batch of rollup id at.
func (rs *rollupStore) sawSubmitter(id uuid.UUID, node [6]byte, at time.Time) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	m := rs.submitters[id]
	if m == nil {
		m = map[[6]byte]time.Time{}
		rs.submitters[id] = m
	}
	m[node] = at
}

// submitterMemory is how long a node that handed this one a batch counts
// as one committing to the rollup (rebalance).
const submitterMemory = 30 * time.Second

// overHeld reports whether this node holds more leases of rollup id's
// shards than its share: the shards over the nodes known to commit to
// it (this one, and those that handed it a batch lately), rounded up.
// A node holding more gives one lease up at a time (loop), so that the
// shards' committers spread over the nodes whichever took them first.
func (rs *rollupStore) overHeld(id uuid.UUID, shards int) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	nodes := 1
	for n, at := range rs.submitters[id] {
		if time.Since(at) > submitterMemory {
			delete(rs.submitters[id], n)
			continue
		}
		if n != [6]byte(rs.node[:6]) {
			nodes++
		}
	}
	share := (shards + nodes - 1) / nodes
	return rs.leadingOf(id) > share
}

// leadingOf counts the leases of rollup id's shards this node holds; the
// caller holds rs.mu.
func (rs *rollupStore) leadingOf(id uuid.UUID) int {
	n := 0
	for _, f := range rs.folders {
		if f.rollup == id && f.isLeading() {
			n++
		}
	}
	return n
}

func (f *folder) isLeading() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.leading
}

// newer reports whether d is a later version than o: a rollup only gains
// parts (rollup.Definition.Evolve).
func newer(d, o *rollup.Definition) bool {
	size := func(x *rollup.Definition) int {
		return len(x.Metrics) + len(x.Dimensions) + len(x.DrillDowns) + len(x.Computed) + len(x.Distinct)
	}
	return size(d) > size(o)
}

// definition is the newest version of the rollup f was given.
func (f *folder) definition() *rollup.Definition {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.def
}

// note keeps d if it is newer than the version f has.
func (f *folder) note(d *rollup.Definition) {
	f.mu.Lock()
	if newer(d, f.def) {
		f.def = d
	}
	f.mu.Unlock()
}

// enqueue hands req to the fold loop, unless none runs (false).
func (f *folder) enqueue(req *foldReq) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.leading {
		return false
	}
	f.queue = append(f.queue, req)
	select {
	case f.wake <- struct{}{}:
	default:
	}
	return true
}

// lead reports whether this node holds the lease, taking it when nobody
// does (and starting the fold loop): after claimDelay for each other
// lease of the rollup this node holds or is taking.
func (f *folder) lead(ctx context.Context, c *conn) (bool, error) {
	f.mu.Lock()
	if f.leading {
		f.mu.Unlock()
		return true, nil
	}
	if time.Now().Before(f.other) {
		f.mu.Unlock()
		return false, nil
	}
	f.mu.Unlock()
	if n := f.rs.claims(f.rollup, true); n > 0 {
		herald.Sleep(ctx, time.Duration(n)*claimDelay)
	}
	defer f.rs.unclaim(f.rollup)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.leading {
		return true, nil
	}
	if time.Now().Before(f.other) {
		return false, nil
	}
	took, until, err := f.rs.takeLease(ctx, c, f.id)
	if err != nil {
		return false, err
	}
	if !took {
		f.other = until
		return false, nil
	}
	f.leading = true
	go f.loop()
	return true, nil
}

// commitFolded is Commit through the rollup's committer: this node's fold
// loop if it holds the lease, else the inbox.
func (rs *rollupStore) commitFolded(ctx context.Context, c *conn, d *rollup.Definition, b *rollup.Batch, now time.Time) error {
	f := rs.folder(d, b.Shard())
	f.note(d)
	for {
		leading, err := f.lead(ctx, c)
		if err != nil {
			return herald.Unavailable("commit rollup", err)
		}
		if leading {
			req := &foldReq{b: b, now: now, done: make(chan error, 1)}
			if !f.enqueue(req) {
				continue // the loop just ended
			}
			select {
			case err := <-req.done:
				if errors.Is(err, errLostLease) {
					continue
				}
				return err
			case <-ctx.Done():
				return herald.Unavailable("commit rollup", ctx.Err())
			}
		}
		return rs.submit(ctx, c, f, d, b, now)
	}
}

// loop is the fold loop of the lease holder: until the lease is lost,
// given up after foldIdle, or the store closes.
func (f *folder) loop() {
	rs := f.rs
	ctx := rs.st.life
	ttl := rs.leaseTTL
	// Another node may have committed the shard since this one last did
	// (it held the lease meanwhile): the first commit reads the sequence
	// first rather than lose its transaction to find out.
	w := rs.writer(f.definition(), f.shard)
	w.mu.Lock()
	w.known = false
	w.mu.Unlock()
	// The lease is renewed on its own schedule, every third of its
	// length, whatever a fold takes: a commit of heavy events on a
	// node of little CPU takes seconds, and a lease renewed only between
	// folds lapsed during one (the lease then moved at every fold, and
	// writers gave up waiting and committed themselves).
	lost := make(chan struct{})
	renewing := make(chan struct{})
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-renewing:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			c, err := rs.st.enter(ctx, "rollup lease")
			ok := false
			if err == nil {
				ok, err = rs.renewLease(ctx, c, f.id)
			}
			if err != nil || !ok {
				close(lost)
				select {
				case f.wake <- struct{}{}:
				default:
				}
				return
			}
		}
	}()
	defer func() { close(renewing); <-renewed }()
	balanceAt := time.Now().Add(ttl / 3)
	lastWork := time.Now()
	// The inbox is read on its own schedule, every foldPollMin while it
	// has records, backing off to foldPollMax: a batch of this node's
	// own is folded at once, never after a read of the inbox.
	nextScan, scanEvery := time.Now(), foldPollMin
	scan := inboxScan{from: time.Now().Add(-2 * ttl), seen: map[gocql.UUID]time.Time{}}
	stop := func(err error) {
		f.mu.Lock()
		f.leading = false
		q := f.queue
		f.queue = nil
		f.mu.Unlock()
		for _, r := range q {
			r.done <- err
		}
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-f.wake:
		case <-timer.C:
		case <-ctx.Done():
			stop(herald.Unavailable("commit rollup", errFoldStop))
			return
		}
		c, err := rs.st.enter(ctx, "rollup fold")
		if err != nil {
			stop(err) // not connected: the lease ends with its TTL
			return
		}
		select {
		case <-lost:
			stop(errLostLease)
			return
		default:
		}
		if time.Now().After(balanceAt) {
			balanceAt = time.Now().Add(ttl / 3)
			if d := f.definition(); d.Shards() > 1 && rs.overHeld(f.rollup, d.Shards()) && rs.releaseLease(ctx, c, f.id) == nil {
				// Over this node's share: another node takes the shard
				// (its writer finds the lease free), while this one
				// hands it its batches for a while.
				rs.Handoffs.Add(1)
				f.mu.Lock()
				f.other = time.Now().Add(2 * ttl)
				f.mu.Unlock()
				stop(errLostLease)
				return
			}
		}
		f.mu.Lock()
		local := f.queue
		f.queue = nil
		d := f.def
		f.mu.Unlock()
		var remote []*foldReq
		if !rs.pauseFold.Load() && !time.Now().Before(nextScan) {
			remote, d, err = rs.scanInbox(ctx, c, f, d, &scan)
			if err != nil {
				rs.st.opts.Logger.Warn("rollup: reading the inbox failed", "rollup", f.id, "error", err)
			}
			if len(remote) > 0 {
				scanEvery = foldPollMin
			} else {
				scanEvery = min(2*scanEvery, foldPollMax)
			}
			nextScan = time.Now().Add(scanEvery)
		}
		if len(local)+len(remote) == 0 {
			if time.Since(lastWork) > foldIdle && rs.releaseLease(ctx, c, f.id) == nil {
				stop(errLostLease) // any batch enqueued meanwhile goes again
				return
			}
			timer.Reset(time.Until(nextScan))
			continue
		}
		lastWork = time.Now()
		rs.fold(ctx, c, d, f.shard, append(local, remote...))
		timer.Reset(time.Until(nextScan)) // and a batch enqueued meanwhile has woken the loop
	}
}

// fold commits reqs as few commits as it can: one merged batch of those
// that share no event, largest first (a consumer's batch, gathered over
// half a second, is not pushed back behind the small batches it
// overlaps). A batch holding events of the merged one is told, once that
// commits, that those events are duplicates (its writer sends the rest
// again); batches of another clock, or left when a commit failed, make
// another round.
func (rs *rollupStore) fold(ctx context.Context, c *conn, d *rollup.Definition, shard int, reqs []*foldReq) {
	slices.SortStableFunc(reqs, func(a, b *foldReq) int { return cmp.Compare(b.b.Events, a.b.Events) })
	for len(reqs) > 0 {
		merged := rollup.NewShardBatch(d, shard)
		var in, later []*foldReq
		type overlap struct {
			r   *foldReq
			ids []string
		}
		var overlaps []overlap
		base, now := reqs[0].now, reqs[0].now
		for _, r := range reqs {
			// A commit has one clock (the dedup window's end, the
			// firings' time): batches whose writers' clocks differ by
			// more than foldClockSpread wait for another round.
			if r.now.Sub(base).Abs() > foldClockSpread {
				later = append(later, r)
				continue
			}
			if ids := merged.Merge(r.b); ids != nil {
				overlaps = append(overlaps, overlap{r, ids})
				continue
			}
			in = append(in, r)
			if r.now.After(now) {
				now = r.now
			}
		}
		if len(in) == 1 {
			// One batch alone is committed as it is, without the copy
			// (its version of the definition is d's or older: f.def is
			// the newest any writer gave, and decodeBatch fits records
			// to d).
			merged = in[0].b
		}
		if slow := rs.slowFold.Load(); slow != nil {
			(*slow)()
		}
		err := rs.commitDirect(ctx, c, d, merged, now)
		if dup, ok := rollup.IsDuplicate(err); ok {
			committed := map[string]bool{}
			for _, id := range dup.Committed {
				committed[id] = true
			}
			for _, r := range in {
				var mine []string
				for _, id := range r.b.IDs() {
					if committed[id] {
						mine = append(mine, id)
					}
				}
				if len(mine) > 0 {
					rs.finish(ctx, c, r, &rollup.ErrDuplicate{Committed: mine})
				} else {
					later = append(later, r)
				}
			}
			for _, o := range overlaps {
				later = append(later, o.r)
			}
			reqs = later
			continue
		}
		if err == nil {
			rs.Folds.Add(1)
			rs.Folded.Add(int64(len(in)))
			for _, o := range overlaps {
				// Committed just now, with the merged batch.
				rs.finish(ctx, c, o.r, &rollup.ErrDuplicate{Committed: o.ids})
			}
		} else {
			for _, o := range overlaps {
				later = append(later, o.r)
			}
		}
		for _, r := range in {
			rs.finish(ctx, c, r, err)
		}
		reqs = later
	}
}

// finish tells r's writer the outcome of its batch.
func (rs *rollupStore) finish(ctx context.Context, c *conn, r *foldReq, err error) {
	if r.rec == nil {
		r.done <- err
		return
	}
	if werr := rs.writeOutcome(ctx, c, r.rec, outcomeOf(err)); werr != nil {
		// The writer times out and sends the batch again: its events
		// are duplicates then if they were committed.
		rs.st.opts.Logger.Warn("rollup: writing an inbox outcome failed", "rollup", r.rec.rollup, "error", werr)
	}
}

// Outcomes of an inbox record, as its writer reads them.
const (
	outcomeCommitted = "committed"
	outcomeTaken     = "taken"       // not final: the committer read the record (takenPatience)
	outcomeDup       = "duplicates"  // then Sep and the IDs, joined by rollup.Sep
	outcomeGone      = "gone"        // the rollup was deleted
	outcomeFailed    = "unavailable" // then Sep and the reason
)

func outcomeOf(err error) string {
	if err == nil {
		return outcomeCommitted
	}
	if dup, ok := rollup.IsDuplicate(err); ok {
		return outcomeDup + rollup.Sep + strings.Join(dup.Committed, rollup.Sep)
	}
	if herald.ErrorCode(err) == herald.ENotFound {
		return outcomeGone
	}
	return outcomeFailed + rollup.Sep + herald.Clip(err.Error())
}

// errorOf is the error of an outcome for d (nil: committed).
func errorOf(d *rollup.Definition, outcome string) error {
	kind, rest, _ := strings.Cut(outcome, rollup.Sep)
	switch kind {
	case outcomeCommitted:
		return nil
	case outcomeDup:
		return &rollup.ErrDuplicate{Committed: strings.Split(rest, rollup.Sep)}
	case outcomeGone:
		return notFoundRollup(d.Account, d.Name)
	default:
		return herald.Unavailable("commit rollup", errors.New("the rollup's committer: "+rest))
	}
}
