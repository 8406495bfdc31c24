package sqs

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/policy"
)

// DefaultIndexEpochRefresh is how often a node reads its data center's
// index epoch (Config.IndexEpochRefresh): a bump reaches every node of
// the data center within it.
const DefaultIndexEpochRefresh = 5 * time.Second

// Config configures a Service. Zero values take the documented defaults.
type Config struct {
	Limits Limits // zero: DefaultLimits()
	Region string // "us-east-1"
	// Shards is the number of message shards of a new queue whose
	// CreateQueue names none with the ShardsTag; 0: the Store's
	// DefaultShards. Clamped to 1..MaxShards. A queue keeps the count it
	// was created with.
	Shards int

	// Clock returns the current time; tests inject a fake one. time.Now.
	Clock func() time.Time

	// Every SQS call looks its queue up; records are cached for
	// QueueCacheTTL (1 s; negative disables) in an LRU of QueueCacheSize
	// (10000) entries. A change made on another node is seen after at most
	// the TTL.
	QueueCacheSize int
	QueueCacheTTL  time.Duration

	// LongPollRecheck bounds how long a long poll sleeps without looking at
	// the queue again, in case a notification was lost (5 s).
	LongPollRecheck time.Duration

	// RebuildLease is the lease taken while rebuilding a queue's Index
	// state (60 s); RebuildRetry is how long a receive that found another
	// rebuilder waits before looking again (50 ms); RebuildTimeout bounds
	// the whole wait before ServiceUnavailable (30 s).
	RebuildLease   time.Duration
	RebuildRetry   time.Duration
	RebuildTimeout time.Duration

	// UnindexedInterval is how often Run takes the queues whose Index
	// writes failed (1 s).
	UnindexedInterval time.Duration

	// DegradedScanLimit bounds the messages one receive reads from the
	// Store while the Index is unavailable (1000).
	DegradedScanLimit int

	// InflightCheckInterval is how often a node reads a queue's count of
	// messages in flight for the in-flight limit (1 s).
	InflightCheckInterval time.Duration

	// ReconcileInterval is how often the reconciler compares active
	// queues' Index with their Store (reconcile.go; 10 s; negative turns
	// it off), reading at most ReconcileBudget stored messages a tick
	// (2,000).
	ReconcileInterval time.Duration
	ReconcileBudget   int

	// Logger receives the reconciler's repairs; nil: slog.Default().
	Logger *slog.Logger

	// ReceiptHandleSecret, when set, keys the MAC of receipt handles so
	// that a client cannot build a handle from a MessageId. All nodes of a
	// cluster must share it.
	ReceiptHandleSecret []byte

	// IndexEpochs keeps the data center's index epoch (service_epoch.go);
	// nil where the Index is not apart from the Store (the embedded
	// engine): epoch 0, and Reindex refused. The Service reads it again
	// every IndexEpochRefresh (DefaultIndexEpochRefresh), and at once when
	// the Index says the epoch it holds is stale.
	IndexEpochs       IndexEpochs
	IndexEpochRefresh time.Duration

	// OperatorAccount is the account whose callers may act on the whole
	// deployment (Reindex, FenceDC); "" lets no caller.
	OperatorAccount string

	// DC places queues in data centers (dc.go); zero: one data center.
	DC DCConfig
}

func (c Config) withDefaults() Config {
	if c.Limits == (Limits{}) {
		c.Limits = DefaultLimits()
	}
	if c.Region == "" {
		c.Region = "us-east-1"
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.QueueCacheSize <= 0 {
		c.QueueCacheSize = 10000
	}
	if c.QueueCacheTTL == 0 {
		c.QueueCacheTTL = time.Second
	}
	if c.LongPollRecheck <= 0 {
		c.LongPollRecheck = 5 * time.Second
	}
	if c.RebuildLease <= 0 {
		c.RebuildLease = time.Minute
	}
	if c.RebuildRetry <= 0 {
		c.RebuildRetry = 50 * time.Millisecond
	}
	if c.RebuildTimeout <= 0 {
		c.RebuildTimeout = 30 * time.Second
	}
	if c.UnindexedInterval <= 0 {
		c.UnindexedInterval = time.Second
	}
	if c.DegradedScanLimit <= 0 {
		c.DegradedScanLimit = 1000
	}
	if c.InflightCheckInterval <= 0 {
		c.InflightCheckInterval = time.Second
	}
	if c.ReconcileInterval == 0 {
		c.ReconcileInterval = 10 * time.Second
	}
	if c.ReconcileBudget <= 0 {
		c.ReconcileBudget = 2000
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.IndexEpochRefresh <= 0 {
		c.IndexEpochRefresh = DefaultIndexEpochRefresh
	}
	c.DC = c.DC.withDefaults()
	return c
}

// Service implements API on a Store (the durable queue records and
// messages), an Index (visibility, order and receive counts, rebuilt from
// the Store whenever it is lost) and a Notifier (long-poll wake-ups).
//
// Writes go to the Store first, so that a failing Index can only cause
// duplicates: when the Index is unreachable the Service serves receives
// from the Store directly ("degraded mode") and has Run rebuild the
// affected queues once it is back.
type Service struct {
	store    regionalStore
	index    Index
	notifier Notifier
	cfg      Config
	lim      Limits

	queues    *queueCache
	tasks     *moveTasks
	inflight  inflightReadings
	attempts  receiveAttempts
	policies  policy.Cache
	stats     Stats
	reconcile reconciler
	unindexed unindexedQueues
	activity  queueActivities
	epochs    *epochCache
	fences    *fenceCache // nil in one data center

	dcEpochsMu sync.Mutex
	dcEpochs   map[string]*epochCache // other data centers' (epochsOf)

	// bg is cancelled by Close; background work (move tasks, long polls)
	// ends with it.
	bg     context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup
	closed sync.Once
}

var _ API = (*Service)(nil)

// NewService returns a Service; call Run for its background work and Close
// when done.
func NewService(store Store, index Index, notifier Notifier, cfg Config) *Service {
	cfg = cfg.withDefaults()
	bg, stop := context.WithCancel(context.Background())
	s := &Service{
		store:    regionalStore{store},
		index:    index,
		notifier: notifier,
		cfg:      cfg,
		lim:      cfg.Limits,
		queues:   newQueueCache(cfg.QueueCacheSize, cfg.QueueCacheTTL),
		tasks:    newMoveTasks(),
		epochs:   newEpochCache(cfg.IndexEpochs, cfg.IndexEpochRefresh, cfg.Clock),
		dcEpochs: map[string]*epochCache{},
		bg:       bg,
		stop:     stop,
	}
	if cfg.DC.Local != "" && cfg.DC.Fences != nil {
		s.fences = &fenceCache{src: cfg.DC.Fences, every: cfg.DC.Refresh, now: cfg.Clock}
	}
	return s
}

// Run does the Service's background work until ctx ends or Close is
// called: it takes the queues whose Index writes failed and drops their
// Index state, so that the next receive rebuilds it from the Store.
func (s *Service) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.runReconciler(ctx) }()
	defer wg.Wait()
	t := time.NewTicker(s.cfg.UnindexedInterval)
	defer t.Stop()
	for {
		s.drainUnindexed(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-s.bg.Done():
			return nil
		case <-t.C:
		}
	}
}

// Close stops background work (move tasks, waiting long polls) and waits
// for it to end.
func (s *Service) Close() error {
	s.closed.Do(s.stop)
	s.wg.Wait()
	return nil
}

// now is the Service's clock.
func (s *Service) now() time.Time { return s.cfg.Clock() }

// queueARN is the ARN of q in the Service's region.
func (s *Service) queueARN(q *Queue) string {
	return QueueARN(s.regionName(q.Region), q.Account, q.Name)
}

// indexQueue names q to the Index: the data center whose Index serves it
// (dc.go), under that data center's index epoch as this node last read
// it.
func (s *Service) indexQueue(ctx context.Context, q *Queue) IndexQueue {
	dc := s.servingDC(ctx, q)
	return IndexQueue{ID: q.ID, FIFO: q.Attributes.FifoQueue, DC: dc, Epoch: s.epochsOf(dc).get(ctx)}
}

// isUnavailable reports whether err says a backing service cannot be
// reached (as opposed to a bug or a client mistake).
func isUnavailable(err error) bool {
	var he *herald.Error
	return errors.As(err, &he) && he.Code == herald.EUnavailable
}

// seconds turns a count of seconds into a Duration.
func seconds(n int) time.Duration { return time.Duration(n) * time.Second }

// sleep waits d or until ctx (or the Service) ends; false if it ended.
func (s *Service) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.bg.Done():
		return false
	}
}
