package sqs

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// The index epoch (IndexEpochs): every Index call that checks a queue's
// built marker carries the epoch this node last read (IndexQueue.Epoch).
// The node reads it at most every Config.IndexEpochRefresh, in the path of
// the first call past that interval (the others go on with the value held
// meanwhile), and at once when the Index answers ErrStaleEpoch: another
// node of the data center has seen a bump first.

// errEpochBehind: the Index still finds a newer epoch than the one just
// read (a read of a replica that missed the bump).
var errEpochBehind = errors.New("sqs: the queue's index state is of a newer index epoch than this node reads")

// epochCache holds the data center's index epoch as last read.
type epochCache struct {
	src   IndexEpochs // nil: always 0
	every time.Duration
	now   func() time.Time

	value  atomic.Uint64
	readAt atomic.Int64 // Unix ns of the last read (or failed read); 0: never
	mu     sync.Mutex   // one read at a time
}

func newEpochCache(src IndexEpochs, every time.Duration, now func() time.Time) *epochCache {
	return &epochCache{src: src, every: every, now: now}
}

// get returns the epoch, reading it first if the value held is older than
// the refresh interval. Only the first caller ever waits for a read: later
// ones go on with the value held while another reads. A failed read keeps
// the value held (0 if none).
func (c *epochCache) get(ctx context.Context) uint64 {
	if c.src == nil {
		return 0
	}
	at := c.readAt.Load()
	if at != 0 && c.now().UnixNano()-at < int64(c.every) {
		return c.value.Load()
	}
	if at == 0 {
		c.mu.Lock()
	} else if !c.mu.TryLock() {
		return c.value.Load()
	}
	defer c.mu.Unlock()
	if c.readAt.Load() == at {
		_, _ = c.readLocked(ctx)
	}
	return c.value.Load()
}

// refresh reads the epoch now.
func (c *epochCache) refresh(ctx context.Context) (uint64, error) {
	if c.src == nil {
		return 0, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readLocked(ctx)
}

func (c *epochCache) readLocked(ctx context.Context) (uint64, error) {
	e, err := c.src.IndexEpoch(ctx)
	now := c.now().UnixNano()
	if err != nil {
		// Try again in a second, not after a whole interval.
		c.readAt.Store(now - int64(c.every) + int64(time.Second))
		return c.value.Load(), err
	}
	c.readAt.Store(now)
	c.raise(e)
	return c.value.Load(), nil
}

// raise makes the value held at least e: the epoch never goes down, even
// when a read reaches a replica that missed a bump.
func (c *epochCache) raise(e uint64) {
	for {
		old := c.value.Load()
		if e <= old || c.value.CompareAndSwap(old, e) {
			return
		}
	}
}

// IndexEpoch is the index epoch this node last read and names its queues'
// Index state with: 0 until the first read, and always 0 on an engine
// without epochs (the embedded one).
func (s *Service) IndexEpoch() uint64 { return s.epochs.value.Load() }

// staleEpoch handles an ErrStaleEpoch of the Index: the first time (per
// call, retried says) it reads the epoch again so that the caller retries
// once; a second time, or a failed read, is an error.
func (s *Service) staleEpoch(ctx context.Context, q *Queue, retried *bool) error {
	if *retried {
		return ErrServiceUnavailable(errEpochBehind)
	}
	*retried = true
	_, err := s.epochsOf(s.servingDC(ctx, q)).refresh(ctx)
	return err
}

// Reindex bumps the index epoch of this node's data center and returns
// the new one: within Config.IndexEpochRefresh every node of the data
// center treats every queue's Index state as stale and rebuilds it from
// the Store on next use (this node at once). Only callers of
// Config.OperatorAccount may; the embedded engine has no epoch to bump.
func (s *Service) Reindex(ctx context.Context, c Caller) (uint64, error) {
	if err := s.authorizeOperator(c, "Reindex"); err != nil {
		return 0, err
	}
	if s.cfg.IndexEpochs == nil {
		return 0, NewError(CodeUnsupportedOperation, "Reindex: %s.", errNoIndexEpochs.Error())
	}
	e, err := s.cfg.IndexEpochs.BumpIndexEpoch(ctx)
	if err != nil {
		return 0, AsError(err)
	}
	s.epochs.raise(e)
	s.cfg.Logger.Info("sqs: index epoch bumped: every queue's index state of this data center is rebuilt from the store on next use", "epoch", e, "by", c.SenderID)
	return e, nil
}
