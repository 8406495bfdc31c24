package sns

import (
	"context"
	"github.com/google/uuid"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heraldmq/herald/policy"
	"github.com/heraldmq/herald/sqs"
)

// Config configures a Service. Zero values take the documented defaults.
type Config struct {
	Region string           // "us-east-1"
	Clock  func() time.Time // time.Now
	Logger *slog.Logger     // slog.Default()

	// Queues is the queue service the internal queues live on (the same
	// one clients use); required. sqs and DLQ deliveries go through it too.
	Queues sqs.API

	// InternalAccount owns the internal queues ("herald-sns"); the queue
	// names are PublishQueue ("sns-publish"), PublishFIFOQueue
	// ("sns-publish-fifo.fifo") and DeliveryQueue ("sns-delivery").
	InternalAccount  string
	PublishQueue     string
	PublishFIFOQueue string
	DeliveryQueue    string

	// Workers is the number of goroutines Run starts per internal queue
	// on this node (4); Parallelism bounds the concurrent deliveries of
	// one delivery job (16); ChunkSize is the most subscriptions one
	// delivery job carries (100).
	Workers     int
	Parallelism int
	ChunkSize   int

	// PublishVisibility and DeliveryVisibility are the visibility timeouts
	// of the internal jobs (60 s and 120 s), extended while a worker is
	// still busy with a job; PollWait is the long-poll wait (20 s).
	PublishVisibility  time.Duration
	DeliveryVisibility time.Duration
	PollWait           time.Duration

	// ConfirmAttempts and ConfirmDelay govern how SubscriptionConfirmation
	// messages are sent to http/https endpoints (3 attempts, 20 s apart).
	ConfirmAttempts int
	ConfirmDelay    time.Duration

	Filter           FilterFunc       // nil: FilterPolicies (package filter)
	DeliveryPolicies DeliveryPolicies // nil: ParseDeliveryPolicy
	HTTP             HTTPDeliverer    // nil: http/https subscriptions are refused
	Paths            PathPutter       // nil: path subscriptions are refused
	Rollups          RollupIngester   // nil: rollup subscriptions are refused
	Envelope         Enveloper        // nil: DefaultEnvelope (unsigned)
	Mail             Mailer           // nil: email and email-json subscriptions are refused
	SMS              SMSSender        // nil: sms subscriptions and Publish to a PhoneNumber are refused
	Push             PushGateway      // nil: pushes to endpoints of platforms other than HERALD are refused (deliver_push.go)
	// NotifyRetry is how failed email and SMS deliveries are retried
	// (nil: AWS's policy for them, 50 retries over about 6 hours).
	NotifyRetry RetryPolicy
}

func (c Config) withDefaults() Config {
	if c.Region == "" {
		c.Region = "us-east-1"
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if !sqs.IsInternalAccount(c.InternalAccount) {
		// Only an internal account is out of every client's reach.
		c.InternalAccount = "herald-sns"
	}
	if c.PublishQueue == "" {
		c.PublishQueue = "sns-publish"
	}
	if c.PublishFIFOQueue == "" {
		c.PublishFIFOQueue = "sns-publish-fifo.fifo"
	}
	if c.DeliveryQueue == "" {
		c.DeliveryQueue = "sns-delivery"
	}
	if c.Workers <= 0 {
		c.Workers = 4
	}
	if c.Parallelism <= 0 {
		c.Parallelism = 16
	}
	if c.ChunkSize <= 0 {
		c.ChunkSize = 100
	}
	if c.PublishVisibility <= 0 {
		c.PublishVisibility = time.Minute
	}
	if c.DeliveryVisibility <= 0 {
		c.DeliveryVisibility = 2 * time.Minute
	}
	if c.PollWait <= 0 {
		c.PollWait = 20 * time.Second
	}
	if c.ConfirmAttempts <= 0 {
		c.ConfirmAttempts = 3
	}
	if c.ConfirmDelay <= 0 {
		c.ConfirmDelay = 20 * time.Second
	}
	if c.Filter == nil {
		c.Filter = FilterPolicies
	}
	if c.DeliveryPolicies == nil {
		c.DeliveryPolicies = awsPolicies{}
	}
	if c.Envelope == nil {
		c.Envelope = DefaultEnvelope
	}
	if c.NotifyRetry == nil {
		c.NotifyRetry = customerManagedRetry
	}
	return c
}

// Stats counts what the workers did since the Service started.
type Stats struct {
	Published    atomic.Int64 // publish jobs expanded
	Delivered    atomic.Int64 // successful deliveries
	Filtered     atomic.Int64 // deliveries skipped by a filter policy
	Retried      atomic.Int64 // failed http deliveries scheduled again
	DeadLettered atomic.Int64 // deliveries sent to a dead-letter queue
	Dropped      atomic.Int64 // deliveries given up without a dead-letter queue
	Throttled    atomic.Int64 // deliveries queued again to wait for their turn under a throttle policy
	Forged       atomic.Int64 // internal jobs refused for a missing or wrong seal (jobseal.go)
	Continued    atomic.Int64 // publish jobs handed over to a continuation (fanout.go)
	Tested       atomic.Int64 // subscriptions a standard topic's fan-out read and tested (filterindex.go)
	// ConfirmationsFailed counts subscription confirmations given up
	// after their attempts (e.g. an email subscription on a server without
	// a mailer: the subscription stays pending).
	ConfirmationsFailed atomic.Int64
}

// Service implements API on a Store (topics and subscriptions) and the
// queue service (the internal publish and delivery queues). Publish only
// enqueues a job; Run's workers expand jobs into chunks of subscriptions
// and deliver them.
type Service struct {
	store    regionalStore
	cfg      Config
	q        sqs.API
	log      *slog.Logger
	stats    Stats
	subStats subscriptionStats

	matchers  matcherCache
	indexMu   sync.Mutex
	indexed   map[uuid.UUID]bool // topics marked as in the filter index (filterindex.go)
	indexing  map[uuid.UUID]bool // topics being indexed by this node
	throttles throttles
	outages   outages

	queuesMu sync.Mutex
	created  map[string]bool // internal queues known to exist
	policies policy.Cache

	keyMu    sync.Mutex // guards key and keySince (jobseal.go)
	key      []byte
	keySince time.Time

	bg     context.Context
	stop   context.CancelFunc
	closed sync.Once
}

var _ API = (*Service)(nil)

// NewService returns a Service; call Run on every node for the workers and
// Close when done.
func NewService(store Store, cfg Config) *Service {
	cfg = cfg.withDefaults()
	bg, stop := context.WithCancel(context.Background())
	return &Service{store: regionalStore{store}, cfg: cfg, q: cfg.Queues, log: cfg.Logger, created: map[string]bool{},
		indexed: map[uuid.UUID]bool{}, indexing: map[uuid.UUID]bool{}, bg: bg, stop: stop}
}

// Stats returns the Service's counters.
func (s *Service) Stats() *Stats { return &s.stats }

// Close stops the workers started by Run.
func (s *Service) Close() error {
	s.closed.Do(s.stop)
	return nil
}

func (s *Service) now() time.Time { return s.cfg.Clock() }

// topicARN is t's ARN, in its region.
func (s *Service) topicARN(t *Topic) string {
	return TopicARN(s.regionName(t.Region), t.Account, t.Name)
}

// subscriptionARN is sub's ARN, in its topic's region.
func (s *Service) subscriptionARN(sub *Subscription) string {
	return SubscriptionARN(s.regionName(sub.TopicRegion), sub.TopicAccount, sub.TopicName, sub.ID)
}

// internalCaller acts in the internal account.
func (s *Service) internalCaller() sqs.Caller {
	return sqs.InternalCaller(s.cfg.InternalAccount)
}

// sleep waits d or until ctx or the Service ends; false if it ended.
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

// cloneMap copies a string map (nil stays nil).
func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
