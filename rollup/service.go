package rollup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/limits"
	"github.com/heraldmq/herald/paths"
	"github.com/heraldmq/herald/sqs"
)

// Config configures a Service.
type Config struct {
	Store Store
	// Clock is the Service's clock (time.Now when nil).
	Clock func() time.Time
	// DefaultAccount owns the rollups of callers without an identity
	// (the zero-config embedded default); RequireIdentity refuses them.
	DefaultAccount  string
	RequireIdentity bool
	// Limits, when set, admits each ingest of events that came in through
	// a door (limits.DoorOf) at limits.DoorRollup: one request, and the
	// body's bytes, per the caller's account.
	Limits *limits.Limiter
	// MaxDefinitions bounds one account's rollups (default 1,000).
	MaxDefinitions int
	// CommitShards is the commit shards of a rollup whose definition
	// does not say (shard.go); 0 is 1.
	CommitShards int

	// Queues is the SQS service the consumers of sources.queue use (Run);
	// nil: no queue ingest.
	Queues sqs.API
	// Topics publishes the triggers' firings (Run); nil: they wait.
	Topics Publisher
	// Cache takes the live tiles of rollups with "tiles": true (Run);
	// nil: no tiles.
	Cache Putter
	// Events and CacheReader feed rollups that name sources.cache_pattern
	// (Run) and check the caller may read the pattern; nil: refused.
	Events      cache.Events
	CacheReader interface {
		AuthorizeRead(ctx context.Context, pattern string) error
		// JournalMatching pages through the messages stored in [from,
		// to) under paths matching pattern, for Backfill.
		JournalMatching(ctx context.Context, pattern string, from, to time.Time, cursor string, limit int) ([]*cache.Message, cache.Page, error)
	}
	// FlushInterval and FlushEvents bound how long, and how many events,
	// a consumer gathers before it commits (DefaultFlush*).
	FlushInterval time.Duration
	FlushEvents   int
	// SourcesInterval is how often Run looks for rollups with a queue
	// source (DefaultSourcesInterval).
	SourcesInterval time.Duration
	Logger          *slog.Logger
}

// Stats are the Service's counters, for /metrics.
type Stats struct {
	Accepted   atomic.Int64 // events counted
	Duplicates atomic.Int64 // events refused as already counted
	Malformed  atomic.Int64 // events that could not be read
	Late       atomic.Int64 // events refused for their time (ErrLate)
	Expired    atomic.Int64 // (event, scope, period) skipped: bucket past its retention
	Commits    atomic.Int64 // batches committed
	Raced      atomic.Int64 // events another writer committed during a commit (dropped, the rest committed again)

	Dropped       atomic.Int64 // cache messages not counted: the rollup's buffer was full
	Tiles         atomic.Int64 // live tiles written to the cache
	Fired         atomic.Int64 // trigger firings published
	FiringsFailed atomic.Int64 // attempts to publish a firing that failed (retried)
}

// Service is the rollups' domain service: definitions, ingest and
// queries, authorized per account for every action.
type Service struct {
	cfg   Config
	store Store
	tiles dirtyTiles
	feed  AMQPFeed
	kick  chan struct{} // a definition changed on this node: Run looks at the sources now
	Stats Stats
}

// sourcesChanged wakes Run to start or stop consumers at once.
func (s *Service) sourcesChanged() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// NewService returns a Service over cfg.Store.
func NewService(cfg Config) *Service {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.MaxDefinitions <= 0 {
		cfg.MaxDefinitions = 1000
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = DefaultFlushInterval
	}
	if cfg.FlushEvents <= 0 {
		cfg.FlushEvents = DefaultFlushEvents
	}
	if cfg.SourcesInterval <= 0 {
		cfg.SourcesInterval = DefaultSourcesInterval
	}
	return &Service{cfg: cfg, store: cfg.Store, kick: make(chan struct{}, 1)}
}

// AMQPFeed runs the AMQP feed of a rollup naming sources.amqp_routing_key
// until ctx ends (amqp.FeedRollup, wired by cmd/herald).
type AMQPFeed func(ctx context.Context, d *Definition) error

// SetAMQPFeed enables sources.amqp_routing_key; call it before Run.
func (s *Service) SetAMQPFeed(f AMQPFeed) { s.feed = f }

// SetPublisher sets Config.Topics after NewService (SNS and rollups each
// need the other); call it before Run.
func (s *Service) SetPublisher(p Publisher) { s.cfg.Topics = p }

// admit takes one request of events, and their bytes, from the rate limits
// of ctx's caller at limits.DoorRollup (Config.Limits), when it came in
// through a door, and enters it into the node's admission control
// (limits.Limiter.Begin): leave must be called when it is counted.
// Herald's own feeds (SNS, AMQP) pass.
func (s *Service) admit(ctx context.Context, bytes int) (leave func(), err error) {
	if s.cfg.Limits == nil || limits.DoorOf(ctx) == "" {
		return func() {}, nil
	}
	account, err := s.account(ctx)
	if err != nil {
		return nil, err
	}
	return s.cfg.Limits.Begin(account, limits.DoorRollup, "", bytes)
}

// account is the account ctx's caller acts in.
func (s *Service) account(ctx context.Context) (string, error) {
	id, ok := access.FromContext(ctx)
	switch {
	case ok && id.Account != "":
		return id.Account, nil
	case ok || !s.cfg.RequireIdentity:
		return s.cfg.DefaultAccount, nil
	}
	return "", herald.Errorf(herald.EUnauthenticated, "this server requires a credential: a SigV4 signature or a bearer token")
}

// Put defines rollup name from a JSON body, or replaces its definition by
// one of the same shape or one that only adds parts (Evolve: its counts
// carry over, the new parts count from now). created is true for a new
// rollup. A body naming another rollup, or changing an existing one
// otherwise, is refused.
func (s *Service) Put(ctx context.Context, name string, body []byte) (d *Definition, created bool, err error) {
	acct, err := s.account(ctx)
	if err != nil {
		return nil, false, err
	}
	if err := ValidName(name); err != nil {
		return nil, false, err
	}
	d, err = decodeDefinition(body)
	if err != nil {
		return nil, false, err
	}
	switch {
	case d.Name == "":
		d.Name = name
	case d.Name != name:
		return nil, false, invalid("name", "%q differs from the rollup's name in the path, %q", herald.Clip(d.Name), name)
	}
	if d.ID != uuid.Nil || !d.Created.IsZero() || (d.Account != "" && d.Account != acct) {
		return nil, false, invalid("id", "id, created and account are set by Herald")
	}
	if d.DimensionIDs != nil || d.DrillDownIDs != nil || d.Added != nil {
		return nil, false, invalid("added", "dimension_ids, drilldown_ids and added are set by Herald")
	}
	if err := d.Normalize(); err != nil {
		return nil, false, err
	}
	d.Account = acct
	if err := s.checkSource(ctx, d); err != nil {
		return nil, false, err
	}
	if err := s.checkCachePattern(ctx, d); err != nil {
		return nil, false, err
	}
	if err := s.checkRoutingKey(d); err != nil {
		return nil, false, err
	}
	old, err := s.store.GetDefinition(ctx, acct, name)
	switch {
	case err == nil && !d.Evolve(old, s.partStart()):
		return nil, false, herald.Errorf(herald.EConflict,
			"rollup %s exists with another shape: it may gain metrics, dimensions, drill-downs and computed members after its own, but its event members, scopes, period units, time zone, dedup window and the parts it has stay as they are; delete it first, or define a rollup of another name", name)
	case err == nil: // Evolve carried its ID, creation and row numbers over
	case herald.ErrorCode(err) == herald.ENotFound:
		most := s.cfg.MaxDefinitions
		quota, quotaSet := s.cfg.Limits.Quota(acct, limits.QuotaRollups)
		if quotaSet && quota < most {
			most = quota
		}
		list, err := s.store.ListDefinitions(ctx, acct, "", max(most, 1))
		if err != nil {
			return nil, false, err
		}
		switch {
		case quotaSet && len(list) >= most:
			return nil, false, limits.OverQuota(acct, limits.QuotaRollups, most)
		case len(list) >= most:
			return nil, false, herald.Errorf(herald.ETooLarge, "account %s has %d rollups, the most allowed", acct, len(list))
		}
		d.ID, d.Created, created = uuid.New(), s.cfg.Clock().UTC(), true
		if d.CommitShards == 0 && s.cfg.CommitShards > 1 {
			d.CommitShards = min(s.cfg.CommitShards, MaxCommitShards)
		}
	default:
		return nil, false, err
	}
	if err := s.store.PutDefinition(ctx, d); err != nil {
		return nil, false, err
	}
	s.sourcesChanged()
	return d, created, nil
}

// partStart is when a part a rollup gains now starts counting (by event
// time): twice SourcesInterval ahead, by when the consumers of every node
// run with the new version (each looks for changed definitions every
// SourcesInterval), so that no event timed from then is counted by one
// that does not know the part.
func (s *Service) partStart() time.Time {
	return s.cfg.Clock().Add(2 * s.cfg.SourcesInterval)
}

// decodeDefinition reads a definition body strictly.
func decodeDefinition(body []byte) (*Definition, error) {
	var d Definition
	if err := decodeStrict(body, &d, "definition"); err != nil {
		return nil, err
	}
	return &d, nil
}

// DecodeTrigger reads a trigger body strictly (for PUT .../triggers/{id}).
func DecodeTrigger(body []byte) (Trigger, error) {
	var t Trigger
	err := decodeStrict(body, &t, "trigger")
	return t, err
}

// memberHolding is the path (as "periods[0].retention") of the first
// member of the JSON document body whose value is the string value, or ""
// if none is. The decoder reports a value its Unmarshaler refused without
// saying where it was.
func memberHolding(body []byte, value string) string {
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return ""
	}
	var find func(v any, at string) string
	find = func(v any, at string) string {
		switch v := v.(type) {
		case string:
			if v == value && at != "" {
				return at
			}
		case []any:
			for i, e := range v {
				if p := find(e, fmt.Sprintf("%s[%d]", at, i)); p != "" {
					return p
				}
			}
		case map[string]any:
			keys := slices.Sorted(maps.Keys(v))
			for _, k := range keys {
				sub := k
				if at != "" {
					sub = at + "." + k
				}
				if p := find(v[k], sub); p != "" {
					return p
				}
			}
		}
		return ""
	}
	return find(doc, "")
}

// decodeStrict reads one JSON object into v: an unknown member, or one of
// the wrong type, is an error naming it.
func decodeStrict(body []byte, v any, what string) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return invalid(te.Field, "want %s, got a JSON %s", te.Type, te.Value)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return invalid(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`), "not a member of a rollup %s", what)
		}
		var de *durationError
		if errors.As(err, &de) {
			if at := memberHolding(body, de.value); at != "" {
				return invalid(at, "%s", de.Error())
			}
			return herald.Errorf(herald.EInvalid, "%s: %s", what, herald.Clip(de.Error()))
		}
		return herald.Errorf(herald.EInvalid, "%s: not a JSON object: %s", what, herald.Clip(err.Error()))
	}
	if dec.More() {
		return herald.Errorf(herald.EInvalid, "%s: more than one JSON value", what)
	}
	return nil
}

// Get returns the caller's rollup name.
func (s *Service) Get(ctx context.Context, name string) (*Definition, error) {
	acct, err := s.account(ctx)
	if err != nil {
		return nil, err
	}
	if err := ValidName(name); err != nil {
		return nil, err
	}
	return s.store.GetDefinition(ctx, acct, name)
}

// List returns the caller's rollups by name, after after, at most limit
// (1 to 1,000).
func (s *Service) List(ctx context.Context, after string, limit int) ([]*Definition, error) {
	acct, err := s.account(ctx)
	if err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 1000 {
		return nil, invalid("limit", "want 1 to 1000, got %d", limit)
	}
	return s.store.ListDefinitions(ctx, acct, after, limit)
}

// Delete forgets the caller's rollup name and its counts.
func (s *Service) Delete(ctx context.Context, name string) error {
	acct, err := s.account(ctx)
	if err != nil {
		return err
	}
	if err := ValidName(name); err != nil {
		return err
	}
	if err := s.store.DeleteDefinition(ctx, acct, name); err != nil {
		return err
	}
	s.sourcesChanged()
	return nil
}

// IngestResult says what became of the events of one body.
type IngestResult struct {
	Accepted   int      `json:"accepted"`
	Duplicates int      `json:"duplicates"`
	Malformed  int      `json:"malformed"`
	Late       int      `json:"late"`
	Errors     []string `json:"errors,omitempty"` // the first MaxIngestErrors, clipped
}

// MaxIngestErrors bounds the errors an IngestResult repeats.
const MaxIngestErrors = 10

// Ingest counts the events of body (one JSON object or an array) in the
// caller's rollup name, each event ID once within the dedup window:
// events already counted are reported as duplicates, malformed and late
// ones are counted and skipped. The events are committed when it returns
// without error.
func (s *Service) Ingest(ctx context.Context, name string, body []byte) (IngestResult, error) {
	leave, err := s.admit(ctx, len(body))
	if err != nil {
		return IngestResult{}, err
	}
	defer leave()
	d, err := s.Get(ctx, name)
	if err != nil {
		return IngestResult{}, err
	}
	events, bad, err := d.ParseEvents(body)
	if err != nil {
		return IngestResult{}, err
	}
	var res IngestResult
	note := func(err error) {
		if len(res.Errors) < MaxIngestErrors {
			res.Errors = append(res.Errors, herald.Clip(herald.ErrorMessage(err)))
		}
	}
	res.Malformed = len(bad)
	for _, e := range bad {
		note(e)
	}
	now := s.cfg.Clock()
	kept := events[:0]
	for _, e := range events {
		if err := d.CheckTime(e, now); err != nil {
			res.Late++
			note(err)
			continue
		}
		kept = append(kept, e)
	}
	accepted, dups, err := s.commit(ctx, d, kept, now)
	res.Accepted, res.Duplicates = accepted, dups
	s.Stats.Malformed.Add(int64(res.Malformed))
	s.Stats.Late.Add(int64(res.Late))
	return res, err
}

// commit counts events exactly once: it drops those already committed,
// combines the rest in a Batch and commits it. A commit that meets events
// committed meanwhile (another writer holding some of the same IDs got
// there first; the store then applies nothing) drops them and commits the
// rest again: a duplicate is never a conflict that fails the batch. Each
// such retry has at least one event fewer, so there are at most as many
// as events.
func (s *Service) commit(ctx context.Context, d *Definition, events []Event, now time.Time) (accepted, dups int, err error) {
	return s.commitWith(ctx, d, events, now, (*Batch).Add)
}

// commitWith is commit with each event added to the batch by add
// ((*Batch).Add, or AddBackfill). A rollup of several commit shards is
// committed shard by shard, all at once (shard.go): an event is accepted
// when a shard counted it, a duplicate when every shard had.
func (s *Service) commitWith(ctx context.Context, d *Definition, events []Event, now time.Time, add func(*Batch, Event, time.Time) bool) (accepted, dups int, err error) {
	if len(events) == 0 {
		return 0, 0, nil
	}
	keys := make([]EventKey, len(events))
	for i, e := range events {
		keys[i] = EventKey{ID: e.ID, Time: e.Time}
	}
	n := d.Shards()
	batches := make([]*Batch, n)
	errs := make([]error, n)
	// The first attempt of every shard: the events expanded once, their
	// rows split by shard (a shard's retries, rarer, expand them again).
	var first []*Batch
	if n > 1 {
		all := NewSplitBatch(d)
		for _, e := range events {
			add(all, e, now)
		}
		first = all.Split()
	}
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() {
			var b *Batch
			if first != nil {
				b = first[k]
			}
			batches[k], errs[k] = s.commitShard(ctx, d, k, keys, events, b, now, add)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, 0, err
	}
	// Shard 0 is given every event, as every shard is: the events it
	// counted are this call's (another call may have counted some of
	// them in other shards first; each event is accepted by one call).
	if batches[0] != nil {
		accepted = batches[0].Events
	}
	dups = len(events) - accepted
	expired := 0
	for _, b := range batches {
		if b != nil && b.Events > 0 {
			s.tiles.mark(d, b)
			s.Stats.Commits.Add(1)
			expired += b.Expired
		}
	}
	s.Stats.Accepted.Add(int64(accepted))
	s.Stats.Duplicates.Add(int64(dups))
	s.Stats.Expired.Add(int64(expired))
	return accepted, dups, nil
}

// commitShard commits commit shard k of events (keys are theirs) and
// returns the batch it committed: the events it counted (nil: none).
// first, if not nil, is the shard's batch of every event (Split).
func (s *Service) commitShard(ctx context.Context, d *Definition, k int, keys []EventKey, events []Event, first *Batch, now time.Time, add func(*Batch, Event, time.Time) bool) (*Batch, error) {
	done, err := s.store.Committed(ctx, d, k, keys, now)
	if err != nil {
		return nil, err
	}
	for {
		b := first
		if first == nil || len(done) > 0 {
			b = NewShardBatch(d, k)
			for _, e := range events {
				if !done[e.ID] {
					add(b, e, now)
				}
			}
		}
		first = nil
		if b.Events == 0 {
			return nil, nil
		}
		err := s.store.Commit(ctx, d, b, now)
		if dup, ok := IsDuplicate(err); ok {
			fresh := 0
			for _, id := range dup.Committed {
				if !done[id] {
					done[id] = true
					fresh++
				}
			}
			if fresh == 0 {
				// The store refused the batch for IDs it had not in it:
				// retrying would refuse it again.
				return nil, herald.Errorf(herald.EInternal, "rollup %s: commit refused for events already dropped: %v", d.Name, dup.Committed)
			}
			if k == 0 { // every shard meets the same events: counted once
				s.Stats.Raced.Add(int64(fresh))
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		return b, nil
	}
}

// IngestNotification counts the events of an SNS notification's message
// in rollup name of account: the door of subscriptions with protocol
// "rollup" (sns.RollupIngester). SNS authorized the subscription; the
// rollup is the subscriber's own.
func (s *Service) IngestNotification(ctx context.Context, account, name, message string) error {
	ctx = access.WithIdentity(ctx, access.Identity{Account: account, Subject: "sns"})
	_, err := s.Ingest(ctx, name, []byte(message))
	return err
}

// checkRoutingKey checks a definition's AMQP routing key: a pattern
// (AMQP topic syntax) whose first word is the rollup's account, so that a
// rollup only ever counts what was published under its own account.
func (s *Service) checkRoutingKey(d *Definition) error {
	key := d.Sources.AMQPRoutingKey
	if key == "" {
		return nil
	}
	if s.feed == nil {
		return invalid("sources.amqp_routing_key", "this server has no RabbitMQ (--amqp-url)")
	}
	if err := paths.ValidatePattern(key); err != nil {
		return invalid("sources.amqp_routing_key", "%s", herald.Clip(err.Error()))
	}
	if first, _, _ := strings.Cut(key, "."); first != d.Account {
		return invalid("sources.amqp_routing_key", "must start with your account, as %s.plays.#", d.Account)
	}
	return nil
}
