package sns

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/sqs"
)

// Publish limits, as on AWS.
const (
	MaxMessageBytes       = 262144 // message and attributes together
	MaxSubjectLength      = 100
	MaxBatchEntries       = 10
	MaxDedupIDLength      = 128
	MaxGroupIDLength      = 128
	MaxBatchEntryIDLength = 80
)

// publishJob is the internal job Publish enqueues: everything fan-out and
// delivery need, so that no later read of the request is required.
type publishJob struct {
	TopicID    uuid.UUID                        `json:"tid"`
	Account    string                           `json:"acct"`
	Region     string                           `json:"region,omitempty"` // the topic's; "" the home region
	Topic      string                           `json:"topic"`
	Message    string                           `json:"msg"`
	Subject    string                           `json:"subj,omitempty"`
	Structure  string                           `json:"struct,omitempty"`
	Attributes map[string]MessageAttributeValue `json:"attrs,omitempty"`
	GroupID    string                           `json:"group,omitempty"`
	DedupID    string                           `json:"dedup,omitempty"`
	Timestamp  int64                            `json:"ts"`              // Unix milliseconds
	Trace      string                           `json:"trace,omitempty"` // the request's X-Amzn-Trace-Id
	Scheme     string                           `json:"scheme,omitempty"`
	Host       string                           `json:"host,omitempty"`

	// Set by fan-out from the publish job's queue message (and carried by
	// a continuation, so that it keeps the original's).
	MessageID      string `json:"mid,omitempty"`
	SequenceNumber string `json:"seq,omitempty"`
	// After is where a continuation resumes the topic's subscriptions
	// (fanOut's checkpoints); uuid.Nil from the start.
	After uuid.UUID `json:"after,omitzero"`
	// Index is set when this fan-out walks the filter index
	// (filterindex.go) rather than every subscription; Phase is then the
	// index of the key being walked in indexWalk of the message's keys. A
	// continuation keeps both, so that a fan-out begun one way ends that
	// way.
	Index bool `json:"ix,omitempty"`
	Phase int  `json:"ph,omitempty"`
}

// queueError turns an error of the queue service into an SNS error.
func queueError(err error) *Error {
	var qe *sqs.Error
	if errors.As(err, &qe) && qe.Code == sqs.CodeServiceUnavailable {
		e := NewError(CodeServiceUnavailable, "The request has failed due to a temporary failure of the server.")
		e.Err = err
		return e
	}
	return AsError(err)
}

func (s *Service) Publish(ctx context.Context, c Caller, in PublishInput) (PublishOutput, error) {
	arn := in.TopicARN
	switch {
	case in.PhoneNumber != "" && (arn != "" || in.TargetARN != ""):
		return PublishOutput{}, ErrInvalidParameter("TopicArn or TargetArn Reason: Only one of TopicArn, TargetArn or PhoneNumber may be given")
	case in.PhoneNumber != "":
		return s.publishSMS(ctx, c, in)
	case arn != "" && in.TargetARN != "":
		return PublishOutput{}, ErrInvalidParameter("TopicArn or TargetArn Reason: Only one of TopicArn, TargetArn or PhoneNumber may be given")
	case arn == "":
		arn = in.TargetARN
	}
	if arn == "" {
		return PublishOutput{}, ErrInvalidParameter("TopicArn or TargetArn Reason: no value for required parameter")
	}
	if in.TargetARN != "" && isEndpointARN(arn) {
		return s.publishPush(ctx, c, in, arn) // deliver_push.go
	}
	t, e := s.lookupTopic(ctx, c, arn, "TopicArn", "Publish")
	if e != nil {
		return PublishOutput{}, e
	}
	entry := PublishBatchEntry{Message: in.Message, Subject: in.Subject, MessageStructure: in.MessageStructure,
		MessageAttributes: in.MessageAttributes, MessageDeduplicationID: in.MessageDeduplicationID, MessageGroupID: in.MessageGroupID}
	if e := validatePublish(t, entry); e != nil {
		return PublishOutput{}, e
	}
	sendIn, err := s.jobEntry(ctx, c, t, entry)
	if err != nil {
		return PublishOutput{}, AsError(err)
	}
	url, e := s.ensureQueue(ctx, s.publishQueue(t))
	if e != nil {
		return PublishOutput{}, e
	}
	out, err := s.q.SendMessage(ctx, s.internalCaller(), sqs.SendMessageInput{QueueURL: url, MessageBody: sendIn.MessageBody,
		MessageGroupID: sendIn.MessageGroupID, MessageDeduplicationID: sendIn.MessageDeduplicationID})
	if err != nil {
		return PublishOutput{}, queueError(err)
	}
	return PublishOutput{MessageID: messageIDFor(out.MessageID), SequenceNumber: out.SequenceNumber}, nil
}

func (s *Service) PublishBatch(ctx context.Context, c Caller, in PublishBatchInput) (PublishBatchOutput, error) {
	var out PublishBatchOutput
	t, e := s.lookupTopic(ctx, c, in.TopicARN, "TopicArn", "Publish")
	if e != nil {
		return out, e
	}
	switch {
	case len(in.Entries) == 0:
		return out, errEmptyBatch()
	case len(in.Entries) > MaxBatchEntries:
		return out, errTooManyEntries()
	}
	seen := map[string]bool{}
	total := 0
	for _, en := range in.Entries {
		if !validBatchID(en.ID) {
			return out, errInvalidBatchEntryID()
		}
		if seen[en.ID] {
			return out, errBatchIDsNotDistinct()
		}
		seen[en.ID] = true
		total += messageSize(en.Message, en.MessageAttributes)
	}
	if total > MaxMessageBytes {
		return out, errBatchTooLong()
	}
	// As on AWS, one entry with a bad structure, bad attributes or (FIFO)
	// a missing group or deduplication ID fails the whole request.
	for _, en := range in.Entries {
		if e := requestError(t, en); e != nil {
			return out, e
		}
	}
	var send []sqs.SendMessageBatchEntry
	for _, en := range in.Entries {
		if e := entryError(t, en); e != nil {
			out.Failed = append(out.Failed, BatchResultErrorEntry{ID: en.ID, Code: e.Code, Message: e.Message, SenderFault: e.Sender})
			continue
		}
		se, err := s.jobEntry(ctx, c, t, en)
		if err != nil {
			return out, AsError(err)
		}
		se.ID = en.ID
		send = append(send, se)
	}
	if len(send) == 0 {
		return out, nil
	}
	url, e := s.ensureQueue(ctx, s.publishQueue(t))
	if e != nil {
		return out, e
	}
	res, err := s.q.SendMessageBatch(ctx, s.internalCaller(), sqs.SendMessageBatchInput{QueueURL: url, Entries: send})
	if err != nil {
		return PublishBatchOutput{}, queueError(err)
	}
	for _, r := range res.Successful {
		out.Successful = append(out.Successful, PublishBatchResultEntry{ID: r.ID, MessageID: messageIDFor(r.MessageID), SequenceNumber: r.SequenceNumber})
	}
	for _, f := range res.Failed {
		out.Failed = append(out.Failed, BatchResultErrorEntry{ID: f.ID, Code: CodeInternalError, Message: f.Message, SenderFault: false})
	}
	return out, nil
}

// publishQueue is the internal queue t's jobs go to.
func (s *Service) publishQueue(t *Topic) string {
	if topicFIFO(t) {
		return s.cfg.PublishFIFOQueue
	}
	return s.cfg.PublishQueue
}

// hashID is a queue-safe identifier (64 hex digits) for parts.
func hashID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// jobEntry builds the internal queue message of one publish. On FIFO
// topics the internal FIFO queue does the deduplication (5-minute window)
// and keeps each message group in order.
func (s *Service) jobEntry(ctx context.Context, c Caller, t *Topic, en PublishBatchEntry) (sqs.SendMessageBatchEntry, error) {
	j := publishJob{TopicID: t.ID, Account: t.Account, Region: t.Region, Topic: t.Name, Message: en.Message, Subject: deref(en.Subject),
		Structure: en.MessageStructure, Attributes: en.MessageAttributes, GroupID: en.MessageGroupID,
		DedupID: en.MessageDeduplicationID, Timestamp: s.now().UnixMilli(), Scheme: c.Scheme, Host: c.Host, Trace: c.TraceHeader}
	var out sqs.SendMessageBatchEntry
	if topicFIFO(t) {
		dedup := en.MessageDeduplicationID
		if dedup == "" {
			sum := sha256.Sum256([]byte(en.Message))
			dedup = "content:" + hex.EncodeToString(sum[:])
			j.DedupID = hex.EncodeToString(sum[:])
		}
		group, dedupID := hashID(t.ID.String(), en.MessageGroupID), hashID(t.ID.String(), dedup)
		out.MessageGroupID, out.MessageDeduplicationID = &group, &dedupID
	}
	b, err := json.Marshal(j)
	if err != nil {
		return out, err
	}
	out.MessageBody, err = s.seal(ctx, b)
	return out, err
}

// messageSize is what counts toward the 256 KiB limit: the message and
// each attribute's name, type and value.
func messageSize(msg string, attrs map[string]MessageAttributeValue) int {
	n := len(msg)
	for k, v := range attrs {
		n += len(k) + len(v.DataType) + len(v.StringValue) + len(v.BinaryValue)
	}
	return n
}

// deref is *p, or "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
