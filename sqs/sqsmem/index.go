package sqsmem

import (
	"context"
	"hash/maphash"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// Defaults of IndexOptions.
const (
	DefaultMaxQueues = 1 << 18
	DefaultIdleAfter = time.Minute
)

// IndexOptions configure NewIndex. Zero values take the defaults.
type IndexOptions struct {
	// MaxQueues bounds the queue states held. Beyond it the least recently
	// used are evicted (except those being rebuilt); an evicted queue
	// answers ErrNotBuilt and is rebuilt from the Store.
	MaxQueues int
	// IdleAfter is how long an empty queue state stays unused before it
	// may be evicted to make room for new ones: rebuilding an empty queue
	// costs one empty scan, holding millions of them costs memory.
	IdleAfter time.Duration
	// Clock is the wall clock of idleness, rebuild leases and
	// deduplication windows; time.Now by default.
	Clock func() time.Time
}

// Index is the in-process sqs.Index. Queue states are spread over shards
// of a map, each shard with its own lock and LRU list, and each queue has
// a lock of its own: the hot path takes a shard lock for a map look-up and
// then only the queue's lock.
type Index struct {
	shards   []indexShard
	seed     maphash.Seed
	perShard int // queue states held per shard
	idle     int64
	clock    func() time.Time
	dedup    dedupTable
	leaseSeq uint64 // guarded by leaseMu
	leaseMu  sync.Mutex
}

type indexShard struct {
	mu     sync.Mutex
	queues map[uuid.UUID]*queueState
	// LRU list: head is the most recently used.
	head, tail *queueState
	_          [40]byte // keep shards on separate cache lines
}

var _ sqs.Index = (*Index)(nil)

// NewIndex returns an empty Index.
func NewIndex(opts IndexOptions) *Index {
	if opts.MaxQueues <= 0 {
		opts.MaxQueues = DefaultMaxQueues
	}
	if opts.IdleAfter <= 0 {
		opts.IdleAfter = DefaultIdleAfter
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	// Small bounds get one shard, so that the bound is an exact LRU;
	// large ones spread the look-ups over up to 64 locks.
	n := min(max(opts.MaxQueues/1024, 1), 64)
	x := &Index{
		shards:   make([]indexShard, n),
		seed:     maphash.MakeSeed(),
		perShard: (opts.MaxQueues + n - 1) / n,
		idle:     int64(opts.IdleAfter),
		clock:    opts.Clock,
	}
	x.dedup.init()
	for i := range x.shards {
		x.shards[i].queues = make(map[uuid.UUID]*queueState)
	}
	return x
}

func (x *Index) shard(id uuid.UUID) *indexShard {
	return &x.shards[maphash.Bytes(x.seed, id[:])%uint64(len(x.shards))]
}

// Len returns how many queue states the Index holds.
func (x *Index) Len() int {
	n := 0
	for i := range x.shards {
		s := &x.shards[i]
		s.mu.Lock()
		n += len(s.queues)
		s.mu.Unlock()
	}
	return n
}

// lock returns the state of q locked, creating it if create is set; nil if
// it does not exist and create is not set.
func (x *Index) lock(q sqs.IndexQueue, create bool) *queueState {
	s := x.shard(q.ID)
	for {
		now := x.clock().UnixNano()
		s.mu.Lock()
		qs := s.queues[q.ID]
		switch {
		case qs != nil:
			qs.lastUsed = now
			s.toFront(qs)
		case create:
			qs = newQueueState(q)
			qs.lastUsed = now
			s.queues[q.ID] = qs
			s.toFront(qs)
			x.evict(s, qs, now)
		}
		s.mu.Unlock()
		if qs == nil {
			return nil
		}
		qs.mu.Lock()
		if !qs.evicted {
			return qs
		}
		// Evicted between the look-up and the lock: look again.
		qs.mu.Unlock()
	}
}

// toFront makes qs the most recently used; s.mu is held.
func (s *indexShard) toFront(qs *queueState) {
	if s.head == qs {
		return
	}
	s.unlink(qs)
	qs.lruNext = s.head
	if s.head != nil {
		s.head.lruPrev = qs
	}
	s.head = qs
	if s.tail == nil {
		s.tail = qs
	}
}

func (s *indexShard) unlink(qs *queueState) {
	if qs.lruPrev != nil {
		qs.lruPrev.lruNext = qs.lruNext
	} else if s.head == qs {
		s.head = qs.lruNext
	}
	if qs.lruNext != nil {
		qs.lruNext.lruPrev = qs.lruPrev
	} else if s.tail == qs {
		s.tail = qs.lruPrev
	}
	qs.lruPrev, qs.lruNext = nil, nil
}

// evictScan bounds how many least recently used states one eviction looks
// at, so that a shard full of busy or leased queues costs little.
const evictScan = 8

// evict makes room after fresh was added to s: it drops least recently
// used states beyond the bound, and a few empty ones idle for long. A state
// in use (locked) or being rebuilt (leased) is never evicted. s.mu is held.
func (x *Index) evict(s *indexShard, fresh *queueState, now int64) {
	over := len(s.queues) - x.perShard
	looked := 0
	for qs := s.tail; qs != nil && looked < evictScan; looked++ {
		prev := qs.lruPrev
		if qs != fresh && (over > 0 || now-qs.lastUsed >= x.idle) && x.tryEvict(s, qs, now, over > 0) {
			over--
		} else if over <= 0 && now-qs.lastUsed < x.idle {
			return // the rest were used more recently still
		}
		qs = prev
	}
}

// tryEvict evicts qs if it is not in use or leased, and, unless full is
// set, empty.
func (x *Index) tryEvict(s *indexShard, qs *queueState, now int64, full bool) bool {
	if !qs.mu.TryLock() {
		return false
	}
	defer qs.mu.Unlock()
	if qs.leased(now) || (!full && !qs.empty()) {
		return false
	}
	qs.evicted = true
	delete(s.queues, qs.id)
	s.unlink(qs)
	return true
}

// Add tracks new messages, leaving tracked ones as they are.
func (x *Index) Add(ctx context.Context, q sqs.IndexQueue, entries []sqs.Entry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	qs := x.lock(q, true)
	defer qs.mu.Unlock()
	qs.add(entries)
	return nil
}

// Receive hands out up to r.Max messages visible at r.Now.
func (x *Index) Receive(ctx context.Context, q sqs.IndexQueue, r sqs.ReceiveRequest) (sqs.ReceiveResult, error) {
	if err := ctx.Err(); err != nil {
		return sqs.ReceiveResult{}, err
	}
	qs := x.lock(q, false)
	if qs == nil {
		return sqs.ReceiveResult{}, sqs.ErrNotBuilt
	}
	defer qs.mu.Unlock()
	if err := qs.check(q.Epoch); err != nil {
		return sqs.ReceiveResult{}, err
	}
	return qs.receive(r), nil
}

// Remove forgets messages; unknown ones are ignored.
func (x *Index) Remove(ctx context.Context, q sqs.IndexQueue, ids []uuid.UUID) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	qs := x.lock(q, false)
	if qs == nil {
		return nil
	}
	defer qs.mu.Unlock()
	qs.remove(ids)
	return nil
}

// SetVisibleAt changes when an in-flight message becomes visible again,
// refusing a receiveCount other than the current one (unless 0).
func (x *Index) SetVisibleAt(ctx context.Context, q sqs.IndexQueue, id uuid.UUID, receiveCount int, now, visibleAt time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	qs := x.lock(q, false)
	if qs == nil {
		return sqs.ErrNotInFlight
	}
	defer qs.mu.Unlock()
	return qs.setVisibleAt(id, receiveCount, nanos(now), nanos(visibleAt))
}

// Hide makes a received message invisible until visibleAt, in flight or
// not (sqs.Index.Hide).
func (x *Index) Hide(ctx context.Context, q sqs.IndexQueue, id uuid.UUID, now, visibleAt time.Time) (sqs.Claim, error) {
	if err := ctx.Err(); err != nil {
		return sqs.Claim{}, err
	}
	qs := x.lock(q, false)
	if qs == nil {
		return sqs.Claim{}, sqs.ErrNotInFlight
	}
	defer qs.mu.Unlock()
	return qs.hide(id, nanos(visibleAt))
}

// Counts returns the queue's counts at now.
func (x *Index) Counts(ctx context.Context, q sqs.IndexQueue, now time.Time) (sqs.Counts, error) {
	if err := ctx.Err(); err != nil {
		return sqs.Counts{}, err
	}
	qs := x.lock(q, false)
	if qs == nil {
		return sqs.Counts{}, sqs.ErrNotBuilt
	}
	defer qs.mu.Unlock()
	if err := qs.check(q.Epoch); err != nil {
		return sqs.Counts{}, err
	}
	return qs.counts(nanos(now)), nil
}

// Missing returns the ids the queue's state does not track.
func (x *Index) Missing(ctx context.Context, q sqs.IndexQueue, ids []uuid.UUID) ([]uuid.UUID, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	qs := x.lock(q, false)
	if qs == nil {
		return nil, sqs.ErrNotBuilt
	}
	defer qs.mu.Unlock()
	if err := qs.check(q.Epoch); err != nil {
		return nil, err
	}
	var missing []uuid.UUID
	for _, id := range ids {
		if _, ok := qs.entries[id]; !ok {
			missing = append(missing, id)
		}
	}
	return missing, nil
}

// Drop forgets the queue's messages until the next MarkBuilt. Rebuild
// leases and deduplication records are kept: a rebuild in progress still
// owns its queue, and a purge does not reopen the deduplication window.
func (x *Index) Drop(ctx context.Context, q sqs.IndexQueue) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	qs := x.lock(q, false)
	if qs == nil {
		return nil
	}
	defer qs.mu.Unlock()
	qs.drop()
	// A rebuild under way can no longer Commit: what it added before this
	// Drop is gone.
	qs.leaseToken, qs.leaseUntil = 0, 0
	return nil
}

// MarkBuilt declares the queue's state complete, under q.Epoch.
func (x *Index) MarkBuilt(ctx context.Context, q sqs.IndexQueue) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	qs := x.lock(q, true)
	defer qs.mu.Unlock()
	if qs.epochSet && qs.epoch > q.Epoch {
		return sqs.ErrStaleEpoch
	}
	qs.built = true
	qs.setEpoch(q.Epoch)
	return nil
}

// LockRebuild takes the rebuild lease of q. While it is held the queue's
// state is never evicted, so a rebuild's adds are not lost before its
// MarkBuilt.
func (x *Index) LockRebuild(ctx context.Context, q sqs.IndexQueue, lease time.Duration) (sqs.RebuildLease, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	qs := x.lock(q, true)
	defer qs.mu.Unlock()
	now := x.clock().UnixNano()
	if qs.leased(now) {
		return nil, false, nil
	}
	x.leaseMu.Lock()
	x.leaseSeq++
	token := x.leaseSeq
	x.leaseMu.Unlock()
	qs.leaseToken, qs.leaseUntil = token, now+int64(lease)
	return &rebuildLease{x: x, q: q, qs: qs, token: token, lease: lease}, true, nil
}

// rebuildLease is one holder's lease on a queue's state.
type rebuildLease struct {
	x     *Index
	q     sqs.IndexQueue
	qs    *queueState
	token uint64
	lease time.Duration
}

// Renew extends the lease by its duration if it is still this one's.
func (l *rebuildLease) Renew(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	qs := l.x.lock(l.q, true)
	defer qs.mu.Unlock()
	now := l.x.clock().UnixNano()
	if qs != l.qs || qs.leaseToken != l.token || !qs.leased(now) {
		return sqs.ErrLeaseLost
	}
	qs.leaseUntil = now + int64(l.lease)
	return nil
}

// Commit marks the queue built if the lease is still this one's, on the
// queue's current state (not one evicted and made anew meanwhile).
func (l *rebuildLease) Commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	qs := l.x.lock(l.q, true)
	defer qs.mu.Unlock()
	if qs != l.qs || qs.leaseToken != l.token || !qs.leased(l.x.clock().UnixNano()) {
		return sqs.ErrLeaseLost
	}
	if qs.epochSet && qs.epoch > l.q.Epoch {
		return sqs.ErrStaleEpoch
	}
	qs.built, qs.progress = true, ""
	qs.setEpoch(l.q.Epoch)
	return nil
}

// Progress returns the position saved on the queue's current state.
func (l *rebuildLease) Progress(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	qs := l.x.lock(l.q, true)
	defer qs.mu.Unlock()
	if qs != l.qs {
		return "", nil // evicted and made anew: nothing saved on it
	}
	return qs.progress, nil
}

// Add adds entries and saves position, if the lease is still this one's.
func (l *rebuildLease) Add(ctx context.Context, entries []sqs.Entry, position string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	qs := l.x.lock(l.q, true)
	defer qs.mu.Unlock()
	if qs != l.qs || qs.leaseToken != l.token || !qs.leased(l.x.clock().UnixNano()) {
		return sqs.ErrLeaseLost
	}
	qs.add(entries)
	if position != "" {
		qs.progress = position
	}
	qs.setEpoch(l.q.Epoch)
	return nil
}

// Release frees the lease: only the holder's own (after it expired,
// someone else may hold the queue). An evicted state holds nothing.
func (l *rebuildLease) Release() {
	l.qs.mu.Lock()
	defer l.qs.mu.Unlock()
	if l.qs.leaseToken == l.token {
		l.qs.leaseToken, l.qs.leaseUntil = 0, 0
	}
}

// Deduplicate records key for window; see dedupTable.
func (x *Index) Deduplicate(ctx context.Context, q sqs.IndexQueue, key string, id uuid.UUID, window time.Duration) (uuid.UUID, bool, error) {
	if err := ctx.Err(); err != nil {
		return uuid.Nil, false, err
	}
	existing, dup := x.dedup.record(q.ID, key, id, x.clock().UnixNano(), int64(window))
	return existing, dup, nil
}
