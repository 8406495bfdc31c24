package sns

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// The fan-out: Publish enqueues a publishJob on the publish queue; a
// fan-out worker pages through the topic's subscriptions and enqueues one
// deliveryJob per chunk of at most ChunkSize on the delivery queue, then
// deletes the publish job. A worker that dies before the delete leaves the
// job to become visible again, and another worker expands it once more:
// subscribers may get a message twice, never zero times.

// maxJobBytes bounds one internal message; the internal queues are created
// with this MaximumMessageSize.
const maxJobBytes = 1 << 20

// batchBudget bounds the bodies of one SendMessageBatch of jobs.
const batchBudget = 960 << 10

// deliveryJob is a chunk of subscriptions to deliver one message to, or a
// single subscription's retry, or (Confirm set) a subscription's
// confirmation.
type deliveryJob struct {
	Confirm          *confirmJob `json:"confirm,omitempty"`
	Pub              publishJob  `json:"pub"`
	TopicPolicy      string      `json:"tpol,omitempty"` // the topic's DeliveryPolicy
	SignatureVersion string      `json:"sigv,omitempty"`
	DisplayName      string      `json:"dn,omitempty"` // the topic's, for email subscriptions
	Subs             []jobSub    `json:"subs"`
	Attempt          int         `json:"attempt,omitempty"` // failed attempts so far
	Paced            bool        `json:"paced,omitempty"`   // its turn under the throttle policy has come (throttle.go)
	NotBefore        int64       `json:"nb,omitempty"`      // Unix ms: not to be tried before
}

// jobSub is what delivery needs of one subscription.
type jobSub struct {
	ID       uuid.UUID         `json:"id"`
	Protocol string            `json:"p"`
	Endpoint string            `json:"e"`
	Attrs    map[string]string `json:"a,omitempty"` // RawMessageDelivery, DeliveryPolicy, RedrivePolicy
}

// Run runs this node's workers (Workers per internal queue) until ctx ends
// or Close is called.
func (s *Service) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.bg, cancel)
	defer stop()
	var wg sync.WaitGroup
	for i := 0; i < s.cfg.Workers; i++ {
		wg.Add(3)
		go func() { defer wg.Done(); s.work(ctx, s.cfg.PublishQueue, s.cfg.PublishVisibility, s.fanOut) }()
		go func() { defer wg.Done(); s.work(ctx, s.cfg.PublishFIFOQueue, s.cfg.PublishVisibility, s.fanOutFIFO) }()
		go func() { defer wg.Done(); s.work(ctx, s.cfg.DeliveryQueue, s.cfg.DeliveryVisibility, s.deliverJob) }()
	}
	wg.Wait()
	return nil
}

// job is one received internal message.
type job struct {
	url string
	msg sqs.ReceivedMessage
}

// handler processes one job; it deletes it when done and reports whether
// it did.
type handler func(ctx context.Context, j job) bool

func secondsCeil(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}

// work long-polls queue name and hands each job to h, its visibility
// extended while h runs: on a standard queue every job of a receive in its
// own goroutine; on a FIFO queue one after the other, stopping at the first
// job not done so that the rest come again after it, in order.
func (s *Service) work(ctx context.Context, name string, vis time.Duration, h handler) {
	var url string
	for url == "" {
		u, e := s.ensureQueue(ctx, name)
		if e == nil {
			url = u
			s.outages.succeeded(s.log, opCreate, name)
			break
		}
		s.outages.failed(s.log, opCreate, name, e)
		if !s.sleep(ctx, time.Second) {
			return
		}
	}
	wait, visSec, maxN := secondsCeil(s.cfg.PollWait), secondsCeil(vis), 10
	for ctx.Err() == nil {
		out, err := s.q.ReceiveMessage(ctx, s.internalCaller(), sqs.ReceiveMessageInput{
			QueueURL: url, MaxNumberOfMessages: &maxN, WaitTimeSeconds: &wait, VisibilityTimeout: &visSec,
			MessageSystemAttributeNames: []string{sqs.SysAttrSequenceNumber, sqs.SysAttrSentTimestamp},
		})
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.outages.failed(s.log, opReceive, name, err)
			s.sleep(ctx, time.Second)
			continue
		}
		s.outages.succeeded(s.log, opReceive, name)
		handle := func(m sqs.ReceivedMessage) bool {
			body, err := s.open(ctx, m)
			switch {
			case errors.Is(err, errForgedJob):
				s.stats.Forged.Add(1)
				s.log.Warn("sns: refused an internal job with a missing or wrong seal", "queue", name, "message_id", m.MessageID)
				return s.deleteJob(ctx, job{url: url, msg: m})
			case err != nil:
				s.log.Warn("sns: cannot check an internal job's seal; it will run again", "queue", name, "err", err)
				return false
			}
			m.Body = string(body)
			stop := s.keepVisible(ctx, url, m.ReceiptHandle, vis)
			defer stop()
			return h(ctx, job{url: url, msg: m})
		}
		if sqs.IsFIFOName(name) {
			for _, m := range out.Messages {
				if !handle(m) {
					break
				}
			}
			continue
		}
		var wg sync.WaitGroup
		for _, m := range out.Messages {
			wg.Add(1)
			go func() { defer wg.Done(); handle(m) }()
		}
		wg.Wait()
	}
}

// keepVisible extends a job's visibility every half timeout until stopped,
// so that a slow job is not handed to a second worker while this one lives.
func (s *Service) keepVisible(ctx context.Context, url, handle string, vis time.Duration) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(vis / 2)
		defer t.Stop()
		sec := secondsCeil(vis)
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				_ = s.q.ChangeMessageVisibility(ctx, s.internalCaller(), sqs.ChangeMessageVisibilityInput{
					QueueURL: url, ReceiptHandle: handle, VisibilityTimeout: &sec})
			}
		}
	}()
	return func() { cancel(); <-done }
}

// ensureQueue creates internal queue name on first use and returns its URL.
func (s *Service) ensureQueue(ctx context.Context, name string) (string, *Error) {
	url := "/" + s.cfg.InternalAccount + "/" + name
	s.queuesMu.Lock()
	ok := s.created[name]
	s.queuesMu.Unlock()
	if ok {
		return url, nil
	}
	vis := s.cfg.DeliveryVisibility
	if name != s.cfg.DeliveryQueue {
		vis = s.cfg.PublishVisibility
	}
	attrs := map[string]string{
		"VisibilityTimeout":      strconv.Itoa(secondsCeil(vis)),
		"MaximumMessageSize":     strconv.Itoa(maxJobBytes),
		"MessageRetentionPeriod": "1209600",
	}
	if sqs.IsFIFOName(name) {
		attrs["FifoQueue"] = "true"
	}
	in := sqs.CreateQueueInput{QueueName: name, Attributes: attrs}
	if name == s.cfg.PublishQueue {
		in.Tags = newJobKeyTags(s.now()) // created with the queue, atomically (jobseal.go)
	}
	_, err := s.q.CreateQueue(ctx, s.internalCaller(), in)
	var qe *sqs.Error
	if err != nil && !(errors.As(err, &qe) && qe.Code == sqs.CodeQueueNameExists) {
		return "", queueError(err)
	}
	s.queuesMu.Lock()
	s.created[name] = true
	s.queuesMu.Unlock()
	return url, nil
}

// deleteJob deletes a finished job; a failed delete only means the job
// runs again.
func (s *Service) deleteJob(ctx context.Context, j job) bool {
	if err := s.q.DeleteMessage(ctx, s.internalCaller(), sqs.DeleteMessageInput{QueueURL: j.url, ReceiptHandle: j.msg.ReceiptHandle}); err != nil {
		s.log.Warn("sns: deleting an internal job failed; it will run again", "err", err)
		return false
	}
	return true
}

// readPublishJob decodes a publish job and names it by its queue message;
// false when it was unreadable (and deleted).
func (s *Service) readPublishJob(ctx context.Context, j job) (*publishJob, bool) {
	var p publishJob
	if err := json.Unmarshal([]byte(j.msg.Body), &p); err != nil {
		s.log.Error("sns: dropping an unreadable publish job", "err", err)
		s.deleteJob(ctx, j)
		return nil, false
	}
	if p.MessageID == "" { // a continuation keeps its original's
		p.MessageID = messageIDFor(j.msg.MessageID)
		p.SequenceNumber = j.msg.Attributes[sqs.SysAttrSequenceNumber]
	}
	return &p, true
}

// jobTopic reads the topic of a publish job. Without a topic, done says
// whether the job was deleted (the topic is gone) or kept (the Store
// failed).
func (s *Service) jobTopic(ctx context.Context, j job, p *publishJob) (t *Topic, done bool) {
	t, err := s.store.GetTopic(ctx, p.Account, p.Region, p.Topic)
	if isCode(err, herald.ENotFound) || err == nil && t.ID != p.TopicID {
		return nil, s.deleteJob(ctx, j)
	}
	if err != nil {
		s.log.Warn("sns: reading a topic failed; the publish job will run again", "err", err)
		return nil, false
	}
	return t, true
}

// fanOut expands a publish job of a standard topic into delivery jobs.
func (s *Service) fanOut(ctx context.Context, j job) bool {
	p, ok := s.readPublishJob(ctx, j)
	if !ok {
		return true
	}
	t, done := s.jobTopic(ctx, j, p)
	if t == nil {
		return done
	}
	durl, e := s.ensureQueue(ctx, s.cfg.DeliveryQueue)
	if e != nil {
		return false
	}
	var batch []sqs.SendMessageBatchEntry
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := s.sendJobs(ctx, durl, batch)
		batch, size = batch[:0], 0
		return err
	}
	// A fan-out's first run decides whether it walks the filter index: the
	// topic must be marked as indexed and the message carry few keys.
	var walk, msgKeys []string
	if p.After == uuid.Nil && p.Phase == 0 && !p.Index {
		msgKeys = messageIndexKeys(p.Attributes)
		p.Index = len(msgKeys) <= maxMessageIndexKeys && s.topicIndexed(ctx, t)
	} else if p.Index {
		msgKeys = messageIndexKeys(p.Attributes)
	}
	if p.Index {
		walk = indexWalk(msgKeys)
		if p.Phase >= len(walk) {
			s.log.Error("sns: dropping a publish job past the end of its filter index walk", "topic", p.Topic, "phase", p.Phase)
			return s.deleteJob(ctx, j)
		}
	}
	after := p.After
	for chunks := 0; ; chunks++ {
		if chunks == checkpointChunks {
			// Hand the rest over to a continuation job, so that a worker
			// that dies from here on repeats at most these chunks.
			if flush() != nil {
				return false
			}
			return s.continueFanOut(ctx, j, p, after)
		}
		var (
			page []*Subscription
			err  error
			key  string
		)
		if p.Index {
			key = walk[p.Phase]
			page, err = s.store.ListSubscriptionsByFilterKey(ctx, t.ID, key, after, s.cfg.ChunkSize)
		} else {
			page, err = s.store.ListSubscriptions(ctx, t.ID, after, s.cfg.ChunkSize)
		}
		if err != nil {
			s.log.Warn("sns: listing subscriptions failed; the publish job will run again", "err", err)
			return false
		}
		s.stats.Tested.Add(int64(len(page)))
		subs := page
		if p.Index {
			subs = slices.DeleteFunc(slices.Clone(page), func(sub *Subscription) bool { return !reachedUnder(sub.Attributes, key, msgKeys) })
		}
		chunk := s.selectSubs(p, subs)
		if len(chunk) > 0 {
			body, err := json.Marshal(deliveryJob{Pub: *p, TopicPolicy: t.Attributes[AttrDeliveryPolicy],
				SignatureVersion: t.Attributes[AttrSignatureVersion], DisplayName: t.Attributes[AttrDisplayName], Subs: chunk})
			var sealed string
			if err == nil {
				sealed, err = s.seal(ctx, body)
			}
			if err != nil || len(sealed) > maxJobBytes {
				s.log.Error("sns: a delivery job is too large; dropping its deliveries", "topic", p.Topic, "subscriptions", len(chunk))
				s.stats.Dropped.Add(int64(len(chunk)))
			} else {
				if len(batch) == 10 || size+len(sealed) > batchBudget {
					if flush() != nil {
						return false
					}
				}
				batch = append(batch, sqs.SendMessageBatchEntry{ID: strconv.Itoa(len(batch)), MessageBody: sealed})
				size += len(sealed)
			}
		}
		if len(page) < s.cfg.ChunkSize {
			if !p.Index || p.Phase+1 == len(walk) {
				break
			}
			p.Phase, after = p.Phase+1, uuid.Nil // the next key's subscriptions
			continue
		}
		after = page[len(page)-1].ID
	}
	if flush() != nil {
		return false
	}
	if !s.deleteJob(ctx, j) {
		return false
	}
	s.stats.Published.Add(1)
	return true
}

// checkpointChunks is how many chunks of subscriptions one publish job
// expands before it hands the rest of the topic over to a continuation:
// a worker that dies mid-fan-out makes at most this many chunks deliver
// twice, instead of every chunk expanded so far.
const checkpointChunks = 10

// continueFanOut sends p's continuation from after (sealed, to the same
// queue, keeping p's MessageId) and deletes j. A death between the two
// runs j again from its own start: duplicates, never a loss.
func (s *Service) continueFanOut(ctx context.Context, j job, p *publishJob, after uuid.UUID) bool {
	next := *p
	next.After = after
	body, err := json.Marshal(next)
	if err != nil {
		return false
	}
	sealed, err := s.seal(ctx, body)
	if err != nil {
		return false
	}
	if _, err := s.q.SendMessage(ctx, s.internalCaller(), sqs.SendMessageInput{QueueURL: j.url, MessageBody: sealed}); err != nil {
		s.log.Warn("sns: handing a fan-out over to its continuation failed; the publish job will run again", "err", err)
		return false
	}
	s.stats.Continued.Add(1)
	return s.deleteJob(ctx, j)
}

// sendJobs enqueues delivery jobs; an error means some may not have been
// enqueued (the caller keeps its own job so that it runs again).
func (s *Service) sendJobs(ctx context.Context, url string, entries []sqs.SendMessageBatchEntry) error {
	for attempt := 0; ; attempt++ {
		out, err := s.q.SendMessageBatch(ctx, s.internalCaller(), sqs.SendMessageBatchInput{QueueURL: url, Entries: entries})
		if err == nil && len(out.Failed) == 0 {
			return nil
		}
		if err == nil {
			failed := map[string]bool{}
			for _, f := range out.Failed {
				failed[f.ID] = true
			}
			var rest []sqs.SendMessageBatchEntry
			for _, en := range entries {
				if failed[en.ID] {
					rest = append(rest, en)
				}
			}
			entries = rest
			err = errors.New(out.Failed[0].Code + ": " + out.Failed[0].Message)
		}
		if attempt == 2 || ctx.Err() != nil {
			s.log.Warn("sns: enqueuing delivery jobs failed; the publish job will run again", "err", err)
			return err
		}
		if !s.sleep(ctx, 100*time.Millisecond) {
			return ctx.Err()
		}
	}
}

// selectSubs keeps the confirmed subscriptions whose filter policy lets
// the message through, as delivery needs them.
func (s *Service) selectSubs(p *publishJob, subs []*Subscription) []jobSub {
	out := make([]jobSub, 0, len(subs))
	for _, sub := range subs {
		if sub.Pending {
			continue
		}
		if !s.passes(p, sub.Attributes) {
			s.stats.Filtered.Add(1)
			continue
		}
		js := jobSub{ID: sub.ID, Protocol: sub.Protocol, Endpoint: sub.Endpoint}
		for _, k := range []string{AttrRawMessageDelivery, AttrDeliveryPolicy, AttrRedrivePolicy} {
			if v := sub.Attributes[k]; v != "" {
				if js.Attrs == nil {
					js.Attrs = map[string]string{}
				}
				js.Attrs[k] = v
			}
		}
		out = append(out, js)
	}
	return out
}

// matchers caches compiled filter policies by scope and text.
type matcherCache struct {
	mu sync.Mutex
	m  map[string]Matcher
}

var filterCacheLimit = 10000

func (s *Service) passes(p *publishJob, attrs map[string]string) bool {
	policy := attrs[AttrFilterPolicy]
	if policy == "" {
		return true
	}
	scope := filterScope(attrs)
	key := scope + "\x00" + policy
	s.matchers.mu.Lock()
	m, ok := s.matchers.m[key]
	s.matchers.mu.Unlock()
	if !ok {
		var err error
		if m, err = s.cfg.Filter(policy, scope); err != nil {
			s.log.Warn("sns: invalid stored filter policy; the message is not delivered", "err", err)
			return false
		}
		s.matchers.mu.Lock()
		if s.matchers.m == nil || len(s.matchers.m) >= filterCacheLimit {
			s.matchers.m = map[string]Matcher{}
		}
		s.matchers.m[key] = m
		s.matchers.mu.Unlock()
	}
	return m.Match(p.Attributes, p.Message)
}

// fanOutFIFO delivers a publish job of a FIFO topic to every subscription
// itself, in order: FIFO topics have few subscriptions (sqs and path only)
// and the internal FIFO queue hands out a message group's next job only
// once this one is deleted, which keeps each group in order.
func (s *Service) fanOutFIFO(ctx context.Context, j job) bool {
	p, ok := s.readPublishJob(ctx, j)
	if !ok {
		return true
	}
	t, done := s.jobTopic(ctx, j, p)
	if t == nil {
		return done
	}
	dj := &deliveryJob{Pub: *p, SignatureVersion: t.Attributes[AttrSignatureVersion]}
	after := uuid.Nil
	for {
		subs, err := s.store.ListSubscriptions(ctx, t.ID, after, s.cfg.ChunkSize)
		if err != nil {
			return false
		}
		for _, sub := range s.selectSubs(p, subs) {
			if err := s.deliver(ctx, dj, sub); err != nil {
				var pe permanentError
				if !errors.As(err, &pe) {
					s.log.Warn("sns: FIFO delivery failed; the publish job will run again", "err", err)
					return false
				}
				if s.giveUp(ctx, dj, sub, err) != nil {
					return false
				}
				continue
			}
			s.stats.Delivered.Add(1)
			s.subStats.of(sub.ID).delivered.Add(1)
		}
		if len(subs) < s.cfg.ChunkSize {
			break
		}
		after = subs[len(subs)-1].ID
	}
	if !s.deleteJob(ctx, j) {
		return false
	}
	s.stats.Published.Add(1)
	return true
}
