package cache

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
)

// Service is the message cache: it validates messages, stores them in a
// Store and answers queries. Every door into Herald (HTTP, WebSockets, AMQP,
// SNS deliveries) stores messages through it.
type Service struct {
	store Store
	cfg   Config
	now   func() time.Time
	newID func() (uuid.UUID, error)

	mu       sync.RWMutex
	onStored []func(*Message)
	events   Events // nil: stored messages are not published
}

// NewService returns a Service over store with the given limits.
func NewService(store Store, cfg Config) *Service {
	return &Service{store: store, cfg: cfg, now: time.Now, newID: uuid.NewUUID}
}

// Config returns the service's limits.
func (s *Service) Config() Config { return s.cfg }

// Epoch names the store's incarnation (Store.Epoch).
func (s *Service) Epoch() string { return s.store.Epoch() }

// ExpiredSince reports whether retention removed a message received at or
// after from (Store.ExpiredSince): a WebSocket recovery from there missed
// something. It may say so when unsure, never not when it did.
func (s *Service) ExpiredSince(ctx context.Context, from time.Time) (bool, error) {
	return s.store.ExpiredSince(ctx, from)
}

// OnStored registers fn to be called, synchronously, after every message the
// service newly stores (not for repeats). Event publishers and live fan-out
// hook in here.
func (s *Service) OnStored(fn func(*Message)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onStored = append(s.onStored, fn)
}

// SetEvents makes the service publish every message it newly stores (not
// repeats) to e, after the OnStored hooks; nil stops publishing. Publish
// only buffers, so a put waits for the fan-out only while e's buffer is
// full (back-pressure). The put's context is detached for Publish: a
// client that leaves after its message is durable does not lose the
// message's events. A Publish error (e closed at shutdown) does not fail
// the put, whose message is stored.
func (s *Service) SetEvents(e Events) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = e
}

// PutInput is a message as a client submits it. Empty ids are assigned.
type PutInput struct {
	MessageID string          // optional; a version 1 UUID
	ReplicaID string          // optional; a version 1 UUID
	Metadata  json.RawMessage // a JSON object with "paths"
	Body      []byte          // optional
	TTL       *int64          // seconds; nil for the default
}

// PutResult is the outcome of one put.
type PutResult struct {
	Message *Message // the stored message (the earlier one for a repeat)
	Created bool     // false when the message_uuid was already stored
	Err     error
}

// Put validates and stores one message. Putting a message_uuid that is
// already stored changes nothing and returns the stored message with
// created == false.
func (s *Service) Put(ctx context.Context, in PutInput) (*Message, bool, error) {
	m, err := s.build(in)
	if err != nil {
		return nil, false, err
	}
	return s.put(ctx, m)
}

// put authorizes and stores one built message.
func (s *Service) put(ctx context.Context, m *Message) (*Message, bool, error) {
	if err := s.authorizeWrite(ctx, m); err != nil {
		return nil, false, err
	}
	if err := s.admitWrite(ctx, m); err != nil {
		return nil, false, err
	}
	leave, err := s.enter(ctx)
	if err != nil {
		return nil, false, err
	}
	defer leave()
	stored, created, err := s.store.PutMessage(ctx, m)
	if err != nil {
		return nil, false, err
	}
	if created {
		s.cfg.Limits.Wrote(m.Paths)
		s.stored(ctx, stored)
	}
	return stored, created, nil
}

// stored runs the OnStored hooks for a newly stored message, then hands it
// to the Events.
func (s *Service) stored(ctx context.Context, m *Message) {
	s.mu.RLock()
	hooks, events := s.onStored, s.events
	s.mu.RUnlock()
	for _, fn := range hooks {
		fn(m)
	}
	if events != nil {
		_ = events.Publish(context.WithoutCancel(ctx), m)
	}
}

// PutBatch stores up to MaxBatch messages concurrently; each entry succeeds
// or fails on its own.
func (s *Service) PutBatch(ctx context.Context, ins []PutInput) ([]PutResult, error) {
	if len(ins) == 0 {
		return nil, herald.Errorf(herald.EInvalid, "a batch needs at least one message")
	}
	if len(ins) > s.cfg.MaxBatch {
		return nil, herald.Errorf(herald.ETooLarge, "a batch holds at most %d messages, not %d", s.cfg.MaxBatch, len(ins))
	}
	// Build every entry first, in request order, so that the ids Herald
	// assigns (and with them message times) follow the request: the last
	// entry for a path is its latest. Only the writes run concurrently.
	results := make([]PutResult, len(ins))
	built := make([]*Message, len(ins))
	var prev uuid.Time // the time of the last id assigned in this batch
	for i, in := range ins {
		m, err := s.build(in)
		if err != nil {
			results[i].Err = err
			continue
		}
		if in.MessageID == "" {
			if m.ID, err = s.idAfter(m.ID, prev); err != nil {
				results[i].Err = err
				continue
			}
			prev = m.ID.Time()
		}
		built[i] = m
	}
	var wg sync.WaitGroup
	for i, m := range built {
		if m == nil {
			continue
		}
		wg.Go(func() {
			m, created, err := s.put(ctx, m)
			results[i] = PutResult{Message: m, Created: created, Err: err}
		})
	}
	wg.Wait()
	return results, nil
}

// idAfter returns id, or when id's time is not after prev (two ids assigned
// within one clock tick), a newly assigned id whose time is. It gives up
// after a few tries (a clock set back) and returns the last id it made.
func (s *Service) idAfter(id uuid.UUID, prev uuid.Time) (uuid.UUID, error) {
	for try := 0; try < 1000 && prev != 0 && id.Time() <= prev; try++ {
		next, err := s.newID()
		if err != nil {
			return uuid.Nil, &herald.Error{Code: herald.EInternal, Message: "cannot generate a UUID", Err: err}
		}
		id = next
	}
	return id, nil
}

// build turns client input into a complete, valid Message.
func (s *Service) build(in PutInput) (*Message, error) {
	var (
		m   Message
		err error
	)
	if m.ID, err = s.idOrNew("message_uuid", in.MessageID); err != nil {
		return nil, err
	}
	if m.ReplicaID, err = s.idOrNew("replica_uuid", in.ReplicaID); err != nil {
		return nil, err
	}
	if m.Metadata, m.Paths, err = s.parseMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if len(in.Body) > s.cfg.MaxBodyBytes {
		return nil, herald.Errorf(herald.ETooLarge, "body is %d bytes, over the limit of %d; store large payloads elsewhere and reference them from metadata", len(in.Body), s.cfg.MaxBodyBytes)
	}
	m.Body = in.Body
	ttl, err := s.ttl(in.TTL)
	if err != nil {
		return nil, err
	}
	m.ReceivedAt = s.now().UTC().Truncate(time.Millisecond)
	m.ExpiresAt = m.ReceivedAt.Add(ttl)
	return &m, nil
}

func (s *Service) idOrNew(field, text string) (uuid.UUID, error) {
	if text != "" {
		return ParseMessageID(field, text)
	}
	id, err := s.newID()
	if err != nil {
		return uuid.Nil, &herald.Error{Code: herald.EInternal, Message: "cannot generate a UUID", Err: err}
	}
	return id, nil
}

// Get returns one unexpired message by its textual message_uuid.
func (s *Service) Get(ctx context.Context, id string) (*Message, error) {
	u, err := ParseMessageID("message_uuid", id)
	if err != nil {
		return nil, err
	}
	if err := s.admit(ctx, 0); err != nil {
		return nil, err
	}
	leave, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	ms, err := s.store.GetMessages(ctx, []uuid.UUID{u})
	if err != nil {
		return nil, err
	}
	notFound := herald.Errorf(herald.ENotFound, "message %s not found (or expired)", u)
	if ms[0] == nil {
		return nil, notFound
	}
	if ok, err := s.readable(ctx, ms[0]); err != nil {
		return nil, err
	} else if !ok {
		return nil, notFound
	}
	return ms[0], nil
}
