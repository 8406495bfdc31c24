package sqs

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/heraldmq/herald"
)

// outgoing is one message to send, from SendMessage or a batch entry.
type outgoing struct {
	body         string
	delaySeconds *int
	attrs        map[string]MessageAttributeValue
	sysAttrs     map[string]MessageAttributeValue
	dedupID      *string // nil when absent
	groupID      *string // nil when absent
}

// SendMessage validates and enqueues one message.
func (s *Service) SendMessage(ctx context.Context, c Caller, in SendMessageInput) (SendMessageOutput, error) {
	q, err := s.queueFor(ctx, c, ActSendMessage, in.QueueURL)
	if err != nil {
		return SendMessageOutput{}, err
	}
	m, err := s.newMessage(c, q, outgoing{
		body: in.MessageBody, delaySeconds: in.DelaySeconds, attrs: in.MessageAttributes,
		sysAttrs: in.MessageSystemAttributes, dedupID: in.MessageDeduplicationID, groupID: in.MessageGroupID,
	})
	if err != nil {
		return SendMessageOutput{}, err
	}
	ids, err := s.enqueue(ctx, q, []*Message{m})
	if err != nil {
		return SendMessageOutput{}, err
	}
	return sendOutput(q, m, ids[0]), nil
}

// SendMessageBatch enqueues up to MaxBatchEntries messages in one Store
// write. Malformed requests fail as a whole; an invalid entry fails alone.
func (s *Service) SendMessageBatch(ctx context.Context, c Caller, in SendMessageBatchInput) (SendMessageBatchOutput, error) {
	q, err := s.queueFor(ctx, c, ActSendMessage, in.QueueURL)
	if err != nil {
		return SendMessageBatchOutput{}, err
	}
	ids := make([]string, len(in.Entries))
	total := 0
	for i, e := range in.Entries {
		ids[i] = e.ID
		total += MessageSize(e.MessageBody, e.MessageAttributes)
	}
	if err := ValidateBatchEntryIDs(ids, s.lim); err != nil {
		return SendMessageBatchOutput{}, err
	}
	if err := CheckBatchSize(total, s.lim); err != nil {
		return SendMessageBatchOutput{}, err
	}
	if err := checkFIFOBatch(q, in.Entries); err != nil {
		return SendMessageBatchOutput{}, err
	}
	var out SendMessageBatchOutput
	var msgs []*Message
	var entryIDs []string
	for _, e := range in.Entries {
		m, err := s.newMessage(c, q, outgoing{
			body: e.MessageBody, delaySeconds: e.DelaySeconds, attrs: e.MessageAttributes,
			sysAttrs: e.MessageSystemAttributes, dedupID: e.MessageDeduplicationID, groupID: e.MessageGroupID,
		})
		if err != nil {
			out.Failed = append(out.Failed, batchError(e.ID, err))
			continue
		}
		msgs = append(msgs, m)
		entryIDs = append(entryIDs, e.ID)
	}
	if len(msgs) == 0 {
		return out, nil
	}
	sent, err := s.enqueue(ctx, q, msgs)
	if err != nil {
		// The write failed for every entry alike; a whole-request error
		// tells the client to retry, as for SendMessage.
		return SendMessageBatchOutput{}, err
	}
	for i, m := range msgs {
		out.Successful = append(out.Successful, SendMessageBatchResultEntry{ID: entryIDs[i], SendMessageOutput: sendOutput(q, m, sent[i])})
	}
	return out, nil
}

// checkFIFOBatch applies, to a FIFO queue's SendMessageBatch, the checks
// AWS makes on the request as a whole rather than per entry: every entry
// needs a MessageGroupId, and a deduplication ID unless the queue
// deduplicates by content. (SendMessage reports a missing MessageGroupId
// as MissingParameter; in a batch AWS answers InvalidParameterValue.)
func checkFIFOBatch(q *Queue, entries []SendMessageBatchEntry) error {
	if !q.Attributes.FifoQueue {
		return nil
	}
	for _, e := range entries {
		if e.MessageGroupID == nil {
			return ErrInvalidParameterValue("The request must contain the parameter MessageGroupId.")
		}
		if e.MessageDeduplicationID == nil && !q.Attributes.ContentBasedDeduplication {
			return errMissingDeduplicationID()
		}
	}
	return nil
}

// batchError turns an entry's error into a Failed entry.
func batchError(id string, err error) BatchResultErrorEntry {
	e := AsError(err)
	return BatchResultErrorEntry{ID: id, Code: e.Code, Message: e.Message, SenderFault: e.Sender}
}

// sendOutput answers a send of m, reported under id (the original's
// MessageId when m was a FIFO duplicate).
func sendOutput(q *Queue, m *Message, id uuid.UUID) SendMessageOutput {
	out := SendMessageOutput{
		MessageID:                    id.String(),
		MD5OfMessageBody:             m.BodyDigest(),
		MD5OfMessageAttributes:       MD5OfMessageAttributes(m.Attributes),
		MD5OfMessageSystemAttributes: MD5OfMessageAttributes(m.SystemAttributes),
	}
	if q.Attributes.FifoQueue {
		out.SequenceNumber = sequenceNumber(id)
	}
	return out
}

// invalidParameter is AWS's message for a bad parameter value.
func invalidParameter(name, value, reason string) *Error {
	return ErrInvalidParameterValue("Value %s for parameter %s is invalid. Reason: %s", herald.Clip(value), name, reason)
}

// notForQueueType is AWS's reason for a parameter the queue type rejects.
const notForQueueType = "The request include parameter that is not valid for this queue type."

// newMessage validates one outgoing message against q and builds it.
func (s *Service) newMessage(c Caller, q *Queue, o outgoing) (*Message, error) {
	if err := ValidateBody(o.body); err != nil {
		return nil, err
	}
	if err := ValidateMessageAttributes(o.attrs, s.lim); err != nil {
		return nil, err
	}
	if err := validateSystemAttributes(o.sysAttrs); err != nil {
		return nil, err
	}
	o.sysAttrs = withTraceHeader(o.sysAttrs, c.TraceHeader)
	if err := CheckMessageSize(MessageSize(o.body, o.attrs), q.Attributes.MaximumMessageSize); err != nil {
		return nil, err
	}
	fifo := q.Attributes.FifoQueue
	delay := q.Attributes.DelaySeconds
	if o.delaySeconds != nil {
		d := *o.delaySeconds
		if d < 0 || d > s.lim.MaxDelaySeconds {
			return nil, invalidParameter("DelaySeconds", itoa(d), "DelaySeconds must be >= 0 and <= "+itoa(s.lim.MaxDelaySeconds)+".")
		}
		// FIFO queues take delays per queue only; an explicit 0 is
		// harmless and some clients always send it.
		if fifo && d != 0 {
			return nil, invalidParameter("DelaySeconds", itoa(d), notForQueueType)
		}
		if !fifo {
			delay = d
		}
	}
	dedupID, err := s.checkFIFOParameters(q, o)
	if err != nil {
		return nil, err
	}
	id, err := NewMessageID()
	if err != nil {
		return nil, ErrInternal(err)
	}
	now := s.now()
	sentAt := now.Truncate(time.Millisecond)
	m := &Message{
		ID:                     id,
		Shard:                  ShardOf(id, q.Shards),
		Body:                   o.body,
		BodyMD5:                MD5OfBody(o.body),
		Attributes:             o.attrs,
		SystemAttributes:       o.sysAttrs,
		SenderID:               c.SenderID,
		SentAt:                 sentAt,
		ExpiresAt:              sentAt.Add(seconds(q.Attributes.MessageRetentionPeriod)),
		MessageGroupID:         deref(o.groupID),
		MessageDeduplicationID: dedupID,
		State:                  State{ID: id, VisibleAt: now.Add(seconds(delay))},
	}
	if fifo {
		m.SequenceNumber = sequenceNumber(id)
	}
	return m, nil
}

// traceHeader is the only message system attribute SQS accepts.
const traceHeader = "AWSTraceHeader"

// maxTraceHeaderLen bounds the X-Amzn-Trace-Id header taken as a
// message's AWSTraceHeader (X-Ray's headers are about 100 bytes).
const maxTraceHeaderLen = 1024

// withTraceHeader returns attrs with AWSTraceHeader set to header, the
// request's X-Amzn-Trace-Id, as AWS sets it, unless the message carries
// its own or the header is empty, too long or not of the allowed
// characters (a bad header is transport metadata, not a bad message: it
// is left out, not refused). attrs itself is not changed.
func withTraceHeader(attrs map[string]MessageAttributeValue, header string) map[string]MessageAttributeValue {
	if _, ok := attrs[traceHeader]; ok || header == "" || len(header) > maxTraceHeaderLen || firstInvalid(header) >= 0 {
		return attrs
	}
	out := make(map[string]MessageAttributeValue, len(attrs)+1)
	for k, v := range attrs {
		out[k] = v
	}
	out[traceHeader] = MessageAttributeValue{DataType: DataTypeString, StringValue: header}
	return out
}

func validateSystemAttributes(attrs map[string]MessageAttributeValue) error {
	for name, a := range attrs {
		if name != traceHeader {
			return ErrInvalidParameterValue("Message system attribute name '%s' is invalid.", name)
		}
		if a.DataType != DataTypeString || a.StringValue == "" || a.BinaryValue != nil {
			return ErrInvalidParameterValue("Message system attribute '%s' must be of type String with a non-empty value.", name)
		}
		if firstInvalid(a.StringValue) >= 0 {
			return ErrInvalidParameterValue("Message system attribute '%s' contains characters outside the allowed set.", name)
		}
	}
	return nil
}

// enqueue stores msgs, drops FIFO duplicates, indexes the rest and wakes
// long polls. It returns the MessageId to report for each message: its own,
// or the original's for a duplicate.
//
// The Store write comes first and alone makes the send succeed: if the
// Index write fails the queue is marked for a rebuild instead (a duplicate
// is acceptable, a loss is not). Deduplication runs after the Store write
// so that a failed write never leaves a deduplication record behind that
// would swallow the client's retry.
func (s *Service) enqueue(ctx context.Context, q *Queue, msgs []*Message) ([]uuid.UUID, error) {
	if err := s.store.PutMessages(ctx, q, msgs); err != nil {
		return nil, AsError(err)
	}
	s.reconcile.touch(q)
	ids := make([]uuid.UUID, len(msgs))
	fresh := make([]*Message, 0, len(msgs))
	var dups []uuid.UUID
	for i, m := range msgs {
		ids[i] = m.ID
		if q.Attributes.FifoQueue {
			if orig, dup := s.deduplicate(ctx, q, m, s.now()); dup {
				ids[i] = orig
				dups = append(dups, m.ID)
				continue
			}
		}
		fresh = append(fresh, m)
	}
	if len(dups) > 0 {
		// A duplicate left behind is never indexed, so at worst a rebuild
		// delivers it once more: acceptable.
		_ = s.store.DeleteMessages(ctx, q, dups)
	}
	s.countSent(q, len(fresh))
	if len(fresh) == 0 {
		return ids, nil
	}
	entries := make([]Entry, len(fresh))
	for i, m := range fresh {
		entries[i] = Entry{ID: m.ID, Group: indexGroup(q, m), VisibleAt: m.State.VisibleAt}
	}
	if err := s.index.Add(ctx, s.indexQueue(ctx, q), entries); err != nil {
		s.stats.Unindexed.Add(1)
		if merr := s.indexWriteFailed(ctx, q); merr != nil {
			return nil, AsError(merr)
		}
	}
	s.notifier.Notify(ctx, q.ID)
	return ids, nil
}
