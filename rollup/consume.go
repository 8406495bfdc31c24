package rollup

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// Queue ingest: a rollup whose definition names sources.queue consumes
// that SQS queue. Every node runs the consumers (Service.Run); each
// receives up to ten messages at a time, reads their events, and once
// FlushInterval passed or FlushEvents events gathered commits them as one
// Batch (each distinct row written once), and only then deletes the
// messages. It goes on receiving while a commit runs (one at a time per
// consumer), so the next batch gathers meanwhile and is committed as soon
// as the one before ends. A node killed between the commit and the delete leaves the
// messages to come back after their visibility timeout: their events are
// then duplicates of committed ones, and are not counted again. Several
// nodes consuming one queue commit disjoint messages; an event sent twice
// and received by two nodes at once is committed by one of them (Commit
// refuses a batch holding an event committed meanwhile).
//
// A body that is not events (not a JSON object or array of objects) is
// made visible again at once when the queue has a RedrivePolicy, so that
// SQS moves it to the dead-letter queue after maxReceiveCount receives;
// otherwise it is deleted. Either way it is counted as malformed and never stops the
// rollup. Malformed and late events inside a readable body are counted and
// skipped.

// Defaults of queue ingest.
const (
	DefaultFlushInterval   = 500 * time.Millisecond
	DefaultFlushEvents     = 5000
	DefaultSourcesInterval = 5 * time.Second
	consumeVisibility      = 30 // seconds a received message stays hidden
)

// sourceKey identifies one consumer: a rollup (by ID, so a redefinition of
// another shape gets a new consumer) and its source ("queue:URL",
// "cache:PATTERN" or "amqp:KEY").
type sourceKey struct {
	id     uuid.UUID
	source string
}

// source is a running consumer: how to stop it, and the newest version of
// its rollup's definition, which it counts with (its parts, triggers and
// retentions may change under the same ID; Run stores each version it
// reads, so a consumer follows within SourcesInterval).
type source struct {
	stop context.CancelFunc
	def  *atomic.Pointer[Definition]
}

// Run publishes the triggers' firings (with Config.Topics) and consumes
// the queues named by rollup definitions until ctx ends,
// starting a consumer for each definition with sources.queue and stopping
// those whose definition is gone or changed, checked every
// SourcesInterval and at once when a definition changes on this node. It needs Config.Queues.
func (s *Service) Run(ctx context.Context) error {
	if s.cfg.Topics != nil {
		done := make(chan struct{})
		go func() { defer close(done); s.runFirings(ctx) }()
		defer func() { <-done }()
	}
	if s.cfg.Cache != nil {
		done := make(chan struct{})
		go func() { defer close(done); s.runTiles(ctx) }()
		defer func() { <-done }()
	}
	if s.cfg.Queues == nil && s.cfg.Events == nil && s.feed == nil {
		<-ctx.Done()
		return nil
	}
	running := map[sourceKey]source{}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer func() {
		for _, src := range running {
			src.stop()
		}
	}()
	t := time.NewTicker(s.cfg.SourcesInterval)
	defer t.Stop()
	for {
		defs, err := s.store.Sources(ctx)
		if err != nil {
			s.log().Warn("rollup: cannot list the rollups with a queue source; retrying", "err", err)
		} else {
			want := map[sourceKey]*Definition{}
			for _, d := range defs {
				if d.Sources.Queue != "" && s.cfg.Queues != nil {
					want[sourceKey{d.ID, "queue:" + d.Sources.Queue}] = d
				}
				if d.Sources.CachePattern != "" && s.cfg.Events != nil {
					want[sourceKey{d.ID, "cache:" + d.Sources.CachePattern}] = d
				}
				if d.Sources.AMQPRoutingKey != "" && s.feed != nil {
					want[sourceKey{d.ID, "amqp:" + d.Sources.AMQPRoutingKey}] = d
				}
			}
			for k, src := range running {
				if d := want[k]; d == nil {
					src.stop()
					delete(running, k)
				} else {
					src.def.Store(d) // the AMQP feed reads the definition per message
				}
			}
			for k, d := range want {
				if _, ok := running[k]; !ok {
					cctx, stop := context.WithCancel(ctx)
					cur := new(atomic.Pointer[Definition])
					cur.Store(d)
					running[k] = source{stop, cur}
					wg.Add(1)
					switch {
					case strings.HasPrefix(k.source, "cache:"):
						go func() { defer wg.Done(); s.watchCache(cctx, cur) }()
					case strings.HasPrefix(k.source, "amqp:"):
						go func() { defer wg.Done(); _ = s.feed(cctx, d) }()
					default:
						go func() { defer wg.Done(); s.consume(cctx, cur) }()
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-s.kick:
		}
	}
}

func (s *Service) log() *slog.Logger {
	if s.cfg.Logger == nil {
		return slog.Default()
	}
	return s.cfg.Logger
}

// callerOf is the SQS caller a rollup consumes its queue as: its own
// account, so that the queue's owner and policy decide, as for any client.
func callerOf(d *Definition) sqs.Caller {
	return sqs.Caller{Account: d.Account, SenderID: d.Account, Scheme: "http", Host: "localhost"}
}

// pending is what one flush of a consumer holds: the events read and the
// messages to delete once they are committed.
type pending struct {
	events  []Event
	handles []string
	since   time.Time
}

// consume runs one rollup's queue consumer until ctx ends, counting with
// the newest version of its definition in cur.
func (s *Service) consume(ctx context.Context, cur *atomic.Pointer[Definition]) {
	d := cur.Load() // its account and queue do not change under its ID and source
	caller := callerOf(d)
	q := d.Sources.Queue
	log := s.log().With("rollup", d.Name, "account", d.Account, "queue", q)
	hasDLQ := func() bool {
		attrs, err := s.cfg.Queues.GetQueueAttributes(ctx, caller, sqs.GetQueueAttributesInput{QueueURL: q, AttributeNames: []string{"RedrivePolicy"}})
		return err == nil && attrs["RedrivePolicy"] != ""
	}
	var p pending
	failures := 0
	// inflight receives the outcome of the commit running, if any.
	var inflight chan bool
	settle := func(ok bool) {
		inflight = nil
		if !ok {
			// Not committed: its messages come back after their
			// visibility timeout.
			s.sleep(ctx, time.Second)
		}
	}
	defer func() {
		if inflight != nil {
			<-inflight
		}
	}()
	drained := false // the last receive found no message
	for ctx.Err() == nil {
		due := len(p.handles) > 0 && (drained || len(p.events) >= s.cfg.FlushEvents || time.Since(p.since) >= s.cfg.FlushInterval)
		if inflight != nil {
			if due {
				settle(<-inflight) // the next batch is ready: wait for the commit
			} else {
				select {
				case ok := <-inflight:
					settle(ok)
				default:
				}
			}
		}
		if due && inflight == nil {
			batch := p
			p, drained = pending{}, false
			inflight = make(chan bool, 1)
			go func(done chan<- bool) { done <- s.flush(ctx, cur.Load(), caller, &batch, log) }(inflight)
		}
		maxN, vis := 10, consumeVisibility
		wait := 1
		switch {
		case len(p.handles) > 0:
			wait = 0 // a batch waits: take what is there, commit once none is
		case inflight == nil:
			wait = 10 // nothing waits to be committed: long-poll
		}
		out, err := s.cfg.Queues.ReceiveMessage(ctx, caller, sqs.ReceiveMessageInput{QueueURL: q, MaxNumberOfMessages: &maxN, VisibilityTimeout: &vis, WaitTimeSeconds: &wait})
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if failures++; failures == 1 {
				log.Warn("rollup: cannot receive from the source queue; retrying every second", "err", err)
			}
			s.sleep(ctx, time.Second)
			continue
		}
		if failures > 0 {
			log.Info("rollup: receiving from the source queue again", "failed", failures)
			failures = 0
		}
		d := cur.Load()
		for _, m := range out.Messages {
			events, bad, err := d.ParseEvents([]byte(m.Body))
			if err != nil {
				s.Stats.Malformed.Add(1)
				if hasDLQ() {
					// Visible again at once: received again until SQS moves
					// it to the dead-letter queue (maxReceiveCount).
					zero := 0
					_ = s.cfg.Queues.ChangeMessageVisibility(ctx, caller, sqs.ChangeMessageVisibilityInput{QueueURL: q, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: &zero})
					continue
				}
				log.Warn("rollup: deleting a message that holds no events", "message_id", m.MessageID, "err", err)
				p.handles = append(p.handles, m.ReceiptHandle)
				continue
			}
			s.Stats.Malformed.Add(int64(len(bad)))
			if len(p.events) == 0 {
				p.since = time.Now()
			}
			p.events = append(p.events, events...)
			p.handles = append(p.handles, m.ReceiptHandle)
		}
		drained = len(out.Messages) == 0
	}
}

// flush commits p's events and then deletes p's messages; false when the
// commit failed (nothing deleted).
func (s *Service) flush(ctx context.Context, d *Definition, caller sqs.Caller, p *pending, log *slog.Logger) bool {
	now := s.cfg.Clock()
	kept := p.events[:0]
	for _, e := range p.events {
		if d.CheckTime(e, now) != nil {
			s.Stats.Late.Add(1)
			continue
		}
		kept = append(kept, e)
	}
	if _, _, err := s.commit(ctx, d, kept, now); err != nil {
		log.Warn("rollup: commit failed; the messages will be received again", "events", len(kept), "err", err)
		return false
	}
	for start := 0; start < len(p.handles); start += 10 {
		entries := make([]sqs.BatchHandleEntry, 0, 10)
		for i, h := range p.handles[start:min(start+10, len(p.handles))] {
			entries = append(entries, sqs.BatchHandleEntry{ID: strconv.Itoa(i), ReceiptHandle: h})
		}
		out, err := s.cfg.Queues.DeleteMessageBatch(ctx, caller, sqs.DeleteMessageBatchInput{QueueURL: d.Sources.Queue, Entries: entries})
		if err == nil && len(out.Failed) > 0 {
			err = fmt.Errorf("%d of %d deletes failed: %s", len(out.Failed), len(entries), out.Failed[0].Message)
		}
		if err != nil {
			// Committed but not deleted: they come back, as duplicates.
			log.Warn("rollup: cannot delete committed messages; they will be received again and not counted twice", "err", err)
		}
	}
	return true
}

// sleep waits d or until ctx ends.
func (s *Service) sleep(ctx context.Context, d time.Duration) { herald.Sleep(ctx, d) }

// checkSource checks, when a definition names a queue, that its account
// can consume it (it exists, and its owner or policy lets the account
// receive).
func (s *Service) checkSource(ctx context.Context, d *Definition) error {
	if d.Sources.Queue == "" || s.cfg.Queues == nil {
		return nil
	}
	_, err := s.cfg.Queues.GetQueueAttributes(ctx, callerOf(d), sqs.GetQueueAttributesInput{QueueURL: d.Sources.Queue, AttributeNames: []string{"QueueArn"}})
	if err != nil {
		return invalid("sources.queue", "%s cannot be consumed by account %s: %s", herald.Clip(d.Sources.Queue), d.Account, herald.Clip(err.Error()))
	}
	return nil
}
