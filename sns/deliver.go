package sns

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/sqs"
)

// Delivery: a worker takes a delivery job and delivers its message to each
// of its subscriptions (at most Parallelism at a time). A failed http
// delivery is re-enqueued as a single-subscription job delayed as the
// effective DeliveryPolicy says, until its retries are spent; then the
// message goes to the subscription's dead-letter queue, if any, or is
// dropped and counted. The job is deleted only once every subscription in
// it was delivered, scheduled again or given up.

// permanentError marks a failure that retrying cannot fix (a queue that
// does not exist, an invalid path).
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// maxQueueDelay is the longest DelaySeconds SQS allows; longer delays
// continue with the job's visibility (maxVisibility at a time).
const (
	maxQueueDelay = 900 * time.Second
	maxVisibility = 43200 * time.Second
)

// transientRetry is how sqs and path deliveries retry when the store is
// unavailable: every 20 s for a day.
var transientRetry RetryPolicy = fixedRetry{n: 4320, delay: 20 * time.Second}

// notification builds what sub's protocol receives of p.
func (s *Service) notification(p *publishJob, protocol string) Notification {
	msg := p.Message
	if p.Structure == "json" {
		if m, e := parseStructure(msg); e == nil {
			if v, ok := m[protocol]; ok {
				msg = v
			} else {
				msg = m["default"]
			}
		}
	}
	return Notification{
		MessageID: p.MessageID, TopicARN: TopicARN(s.regionName(p.Region), p.Account, p.Topic), Subject: p.Subject,
		Message: msg, Timestamp: time.UnixMilli(p.Timestamp).UTC(), MessageAttributes: p.Attributes,
		MessageGroupID: p.GroupID, MessageDeduplicationID: p.DedupID, SequenceNumber: p.SequenceNumber,
		TraceHeader: p.Trace,
	}
}

// target describes sub to a deliverer.
func (s *Service) target(dj *deliveryJob, sub jobSub) Target {
	topicARN := TopicARN(s.regionName(dj.Pub.Region), dj.Pub.Account, dj.Pub.Topic)
	t := Target{
		SubscriptionARN: topicARN + ":" + sub.ID.String(), TopicARN: topicARN,
		Protocol: sub.Protocol, Endpoint: sub.Endpoint, Raw: boolAttr(sub.Attrs, AttrRawMessageDelivery),
		SignatureVersion: dj.SignatureVersion, Scheme: dj.Pub.Scheme, Host: dj.Pub.Host, DisplayName: dj.DisplayName,
	}
	// Only a delivery policy can change the content type; most
	// subscriptions have none, and parsing one per delivery is costly.
	subPolicy := sub.Attrs[AttrDeliveryPolicy]
	if (sub.Protocol == ProtocolHTTP || sub.Protocol == ProtocolHTTPS) && (dj.TopicPolicy != "" || subPolicy != "") {
		if dp, err := ParseDeliveryPolicy(dj.TopicPolicy, subPolicy); err == nil {
			t.ContentType = dp.HeaderContentType
		}
	}
	return t
}

// body is what a queue receives: the message itself when raw, else the
// JSON envelope.
func (s *Service) body(t Target, n Notification) (string, error) {
	if t.Raw {
		return n.Message, nil
	}
	return s.cfg.Envelope(t, n)
}

// sqsAttributes converts message attributes for a raw SQS delivery (at most
// the 10 SQS allows, by name; String.Array travels as String).
func sqsAttributes(attrs map[string]MessageAttributeValue) map[string]sqs.MessageAttributeValue {
	if len(attrs) == 0 {
		return nil
	}
	names := make([]string, 0, len(attrs))
	for k := range attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) > 10 {
		names = names[:10]
	}
	out := make(map[string]sqs.MessageAttributeValue, len(names))
	for _, k := range names {
		v := attrs[k]
		dt := v.DataType
		if dt == "String.Array" {
			dt = "String"
		}
		out[k] = sqs.MessageAttributeValue{DataType: dt, StringValue: v.StringValue, BinaryValue: v.BinaryValue}
	}
	return out
}

// transient reports whether err may go away by itself.
func transient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var qe *sqs.Error
	if errors.As(err, &qe) {
		return qe.Code == sqs.CodeServiceUnavailable || qe.Code == sqs.CodeRequestThrottled || qe.Status >= 500
	}
	var se *Error
	if errors.As(err, &se) {
		return !se.Sender
	}
	return herald.ErrorCode(err) == herald.EUnavailable
}

// deliver makes one delivery attempt to sub. Errors of sqs and path
// deliveries that retrying cannot fix are permanentErrors.
func (s *Service) deliver(ctx context.Context, dj *deliveryJob, sub jobSub) error {
	n := s.notification(&dj.Pub, sub.Protocol)
	t := s.target(dj, sub)
	var err error
	switch sub.Protocol {
	case ProtocolHTTP, ProtocolHTTPS:
		if s.cfg.HTTP == nil {
			return permanentError{errors.New("no HTTP deliverer configured")}
		}
		return s.cfg.HTTP.Deliver(ctx, t, n)
	case ProtocolSQS:
		var body string
		if body, err = s.body(t, n); err == nil {
			err = s.sendQueueMessage(ctx, sub.Endpoint, body, t.Raw, n)
		}
	case ProtocolPath:
		if s.cfg.Paths == nil {
			return permanentError{errors.New("no path putter configured")}
		}
		err = s.cfg.Paths.PutNotification(ctx, sub.Endpoint, n)
	case ProtocolRollup:
		if s.cfg.Rollups == nil {
			return permanentError{errors.New("no rollups configured")}
		}
		account, name, _ := strings.Cut(sub.Endpoint, "/")
		err = s.cfg.Rollups.IngestNotification(ctx, account, name, n.Message)
	case ProtocolEmail, ProtocolEmailJSON:
		return s.deliverEmail(ctx, t, n)
	case ProtocolSMS:
		return s.deliverSMS(ctx, dj, sub, n)
	case ProtocolApplication:
		return s.deliverPush(ctx, dj, sub, n)
	default:
		err = errors.New("unknown protocol " + sub.Protocol)
	}
	if err != nil && !transient(err) {
		return permanentError{err}
	}
	return err
}

// sendQueueMessage delivers to an SQS subscription: on FIFO queues with
// the publish's group and deduplication id; on standard queues with the
// publish's MessageGroupId, if any, which AWS passes on from standard
// topics since 2024 (a standard queue keeps it for fair queueing).
func (s *Service) sendQueueMessage(ctx context.Context, arn, body string, raw bool, n Notification) error {
	region, account, name, err := sqs.ParseQueueARN(arn)
	if err != nil {
		return err
	}
	in := sqs.SendMessageInput{QueueURL: "/" + account + "/" + name, MessageBody: body}
	if raw {
		in.MessageAttributes = sqsAttributes(n.MessageAttributes)
	}
	if n.MessageGroupID != "" {
		in.MessageGroupID = &n.MessageGroupID
	}
	if sqs.IsFIFOName(name) {
		dedup := n.MessageDeduplicationID
		if dedup == "" {
			dedup = n.MessageID
		}
		in.MessageDeduplicationID = &dedup
	}
	qc := s.queueCaller(n.TopicARN, region)
	qc.TraceHeader = n.TraceHeader
	_, err = s.q.SendMessage(ctx, qc, in)
	return err
}

// deliverJob handles one delivery job.
func (s *Service) deliverJob(ctx context.Context, j job) bool {
	var dj deliveryJob
	if err := json.Unmarshal([]byte(j.msg.Body), &dj); err != nil {
		s.log.Error("sns: dropping an unreadable delivery job", "err", err)
		return s.deleteJob(ctx, j)
	}
	if wait := time.UnixMilli(dj.NotBefore).Sub(s.now()); dj.NotBefore != 0 && wait > 0 {
		sec := secondsCeil(min(wait, maxVisibility))
		_ = s.q.ChangeMessageVisibility(ctx, s.internalCaller(), sqs.ChangeMessageVisibilityInput{
			QueueURL: j.url, ReceiptHandle: j.msg.ReceiptHandle, VisibilityTimeout: &sec})
		return false
	}
	if dj.Confirm != nil {
		if !s.confirm(ctx, &dj) {
			return false
		}
		return s.deleteJob(ctx, j)
	}
	var (
		mu       sync.Mutex
		leftover []jobSub
		wg       sync.WaitGroup
		sem      = make(chan struct{}, s.cfg.Parallelism)
	)
	for _, sub := range dj.Subs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := s.settle(ctx, &dj, sub); err != nil {
				mu.Lock()
				leftover = append(leftover, sub)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return false // the job becomes visible again and runs on another worker
	}
	if len(leftover) > 0 {
		rest := dj
		rest.Subs = leftover
		if err := s.enqueueDelivery(ctx, &rest, 0); err != nil {
			s.log.Warn("sns: re-enqueuing undelivered subscriptions failed; the job will run again", "err", err)
			return false
		}
	}
	return s.deleteJob(ctx, j)
}

// settle delivers to sub, or schedules a retry, or gives up; an error
// means none of these happened (the subscription stays in its job).
func (s *Service) settle(ctx context.Context, dj *deliveryJob, sub jobSub) error {
	if wait := s.throttleDelay(dj, sub); wait > maxThrottleWait {
		later := *dj
		later.Subs, later.Paced, later.NotBefore = []jobSub{sub}, true, 0
		if err := s.enqueueDelivery(ctx, &later, wait); err != nil {
			return err
		}
		s.stats.Throttled.Add(1)
		return nil
	} else if wait > 0 && !s.sleep(ctx, wait) {
		return context.Canceled
	}
	err := s.deliver(ctx, dj, sub)
	if err == nil {
		s.stats.Delivered.Add(1)
		s.subStats.of(sub.ID).delivered.Add(1)
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var pe permanentError
	if errors.As(err, &pe) && sub.Protocol != ProtocolHTTP && sub.Protocol != ProtocolHTTPS {
		return s.giveUp(ctx, dj, sub, err)
	}
	policy := transientRetry
	if sub.Protocol == ProtocolHTTP || sub.Protocol == ProtocolHTTPS {
		p, _, perr := s.cfg.DeliveryPolicies.Effective(dj.TopicPolicy, sub.Attrs[AttrDeliveryPolicy])
		if perr != nil {
			p = DefaultDeliveryPolicy()
		}
		policy = p
	}
	if notifyProtocol(sub.Protocol) {
		policy = s.cfg.NotifyRetry
	}
	next := dj.Attempt + 1
	if next > policy.Retries() {
		return s.giveUp(ctx, dj, sub, err)
	}
	retry := *dj
	retry.Subs = []jobSub{sub}
	retry.Attempt = next
	retry.NotBefore, retry.Paced = 0, false
	if err := s.enqueueDelivery(ctx, &retry, policy.Delay(next)); err != nil {
		return err
	}
	s.stats.Retried.Add(1)
	s.subStats.of(sub.ID).retried.Add(1)
	return nil
}

// enqueueDelivery puts dj on the delivery queue to run after delay.
func (s *Service) enqueueDelivery(ctx context.Context, dj *deliveryJob, delay time.Duration) error {
	url, e := s.ensureQueue(ctx, s.cfg.DeliveryQueue)
	if e != nil {
		return e
	}
	if delay > maxQueueDelay {
		dj.NotBefore = s.now().Add(delay).UnixMilli()
		delay = maxQueueDelay
	}
	body, err := json.Marshal(dj)
	if err != nil {
		return err
	}
	sealed, err := s.seal(ctx, body)
	if err != nil {
		return err
	}
	sec := secondsCeil(delay)
	_, err = s.q.SendMessage(ctx, s.internalCaller(), sqs.SendMessageInput{QueueURL: url, MessageBody: sealed, DelaySeconds: &sec})
	return err
}

// giveUp sends an undeliverable message to sub's dead-letter queue, or
// drops it (logged and counted) when there is none. An error means the
// dead-letter queue could not be written.
func (s *Service) giveUp(ctx context.Context, dj *deliveryJob, sub jobSub, cause error) error {
	s.subStats.of(sub.ID).failed.Add(1)
	dlq := ""
	if p := sub.Attrs[AttrRedrivePolicy]; p != "" {
		dlq, _ = parseRedrivePolicy(p)
	}
	t := s.target(dj, sub)
	if dlq == "" {
		s.stats.Dropped.Add(1)
		s.log.Warn("sns: delivery failed; message dropped", "subscription", t.SubscriptionARN, "message_id", dj.Pub.MessageID, "err", cause)
		return nil
	}
	n := s.notification(&dj.Pub, sub.Protocol)
	body, err := s.body(t, n)
	if err == nil {
		err = s.sendQueueMessage(ctx, dlq, body, t.Raw, n)
	}
	if err != nil {
		if !transient(err) {
			s.stats.Dropped.Add(1)
			s.log.Warn("sns: dead-letter queue rejected the message; dropped", "subscription", t.SubscriptionARN, "dlq", dlq, "err", err)
			return nil
		}
		return err
	}
	s.stats.DeadLettered.Add(1)
	return nil
}
