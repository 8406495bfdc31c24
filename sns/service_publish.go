package sns

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

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
	Topic      string                           `json:"topic"`
	Message    string                           `json:"msg"`
	Subject    string                           `json:"subj,omitempty"`
	Structure  string                           `json:"struct,omitempty"`
	Attributes map[string]MessageAttributeValue `json:"attrs,omitempty"`
	GroupID    string                           `json:"group,omitempty"`
	DedupID    string                           `json:"dedup,omitempty"`
	Timestamp  int64                            `json:"ts"` // Unix milliseconds
	Scheme     string                           `json:"scheme,omitempty"`
	Host       string                           `json:"host,omitempty"`

	// Set by fan-out from the publish job's queue message (and carried by
	// a continuation, so that it keeps the original's).
	MessageID      string `json:"mid,omitempty"`
	SequenceNumber string `json:"seq,omitempty"`
	// After is where a continuation resumes the topic's subscriptions
	// (fanOut's checkpoints); uuid.Nil from the start.
	After uuid.UUID `json:"after,omitzero"`
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
	case in.PhoneNumber != "":
		return PublishOutput{}, ErrInvalidParameter("PhoneNumber Reason: SMS is not supported")
	case arn != "" && in.TargetARN != "":
		return PublishOutput{}, ErrInvalidParameter("TopicArn or TargetArn Reason: Only one of TopicArn, TargetArn or PhoneNumber may be given")
	case arn == "":
		arn = in.TargetARN
	}
	if arn == "" {
		return PublishOutput{}, ErrInvalidParameter("TopicArn or TargetArn Reason: no value for required parameter")
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
		return out, NewError(CodeEmptyBatchRequest, "The batch request doesn't contain any entries")
	case len(in.Entries) > MaxBatchEntries:
		return out, NewError(CodeTooManyEntriesInBatchRequest, "The batch request contains more entries than permissible")
	}
	seen := map[string]bool{}
	total := 0
	for _, en := range in.Entries {
		if !validBatchID(en.ID) {
			return out, NewError(CodeInvalidBatchEntryID, "The Id of a batch entry in a batch request doesn't abide by the specification")
		}
		if seen[en.ID] {
			return out, NewError(CodeBatchEntryIdsNotDistinct, "Two or more batch entries in the request have the same Id")
		}
		seen[en.ID] = true
		total += messageSize(en.Message, en.MessageAttributes)
	}
	if total > MaxMessageBytes {
		return out, NewError(CodeBatchRequestTooLong, "The length of all the messages put together is more than the limit")
	}
	var send []sqs.SendMessageBatchEntry
	for _, en := range in.Entries {
		if e := validatePublish(t, en); e != nil {
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

func validBatchID(id string) bool {
	if id == "" || len(id) > MaxBatchEntryIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !isNameChar(id[i]) {
			return false
		}
	}
	return true
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
	j := publishJob{TopicID: t.ID, Account: t.Account, Topic: t.Name, Message: en.Message, Subject: en.Subject,
		Structure: en.MessageStructure, Attributes: en.MessageAttributes, GroupID: en.MessageGroupID,
		DedupID: en.MessageDeduplicationID, Timestamp: s.now().UnixMilli(), Scheme: c.Scheme, Host: c.Host}
	var out sqs.SendMessageBatchEntry
	if topicFIFO(t) {
		dedup := en.MessageDeduplicationID
		if dedup == "" {
			sum := sha256.Sum256([]byte(en.Message))
			dedup = "content:" + hex.EncodeToString(sum[:])
			j.DedupID = hex.EncodeToString(sum[:])
		}
		out.MessageGroupID = hashID(t.ID.String(), en.MessageGroupID)
		out.MessageDeduplicationID = hashID(t.ID.String(), dedup)
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

// validatePublish checks one message for topic t as AWS does.
func validatePublish(t *Topic, en PublishBatchEntry) *Error {
	if en.Message == "" {
		return ErrInvalidParameter("Empty message")
	}
	if messageSize(en.Message, en.MessageAttributes) > MaxMessageBytes {
		return ErrInvalidParameter("Message too long")
	}
	if en.Subject != "" && !validSubject(en.Subject) {
		return ErrInvalidParameter("Subject")
	}
	switch en.MessageStructure {
	case "":
	case "json":
		if _, e := parseStructure(en.Message); e != nil {
			return e
		}
	default:
		return ErrInvalidParameter("MessageStructure")
	}
	for name, v := range en.MessageAttributes {
		if e := validateAttribute(name, v); e != nil {
			return e
		}
	}
	if topicFIFO(t) {
		if en.MessageGroupID == "" {
			return ErrInvalidParameter("The MessageGroupId parameter is required for FIFO topics")
		}
		if len(en.MessageGroupID) > MaxGroupIDLength || !printableASCII(en.MessageGroupID) {
			return ErrInvalidParameter("MessageGroupId")
		}
		if en.MessageDeduplicationID == "" && t.Attributes[AttrContentBasedDeduplication] != "true" {
			return ErrInvalidParameter("The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly")
		}
		if len(en.MessageDeduplicationID) > MaxDedupIDLength || !printableASCII(en.MessageDeduplicationID) {
			return ErrInvalidParameter("MessageDeduplicationId")
		}
		return nil
	}
	if en.MessageDeduplicationID != "" {
		return ErrInvalidParameter("MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type")
	}
	if len(en.MessageGroupID) > MaxGroupIDLength || !printableASCII(en.MessageGroupID) {
		return ErrInvalidParameter("MessageGroupId")
	}
	return nil
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// validSubject: ASCII, starting with a letter, digit or punctuation, no
// line breaks or control characters, at most 100 characters.
func validSubject(s string) bool {
	if len(s) > MaxSubjectLength || s[0] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// parseStructure reads a MessageStructure=json message: a JSON object of
// strings with a "default" entry.
func parseStructure(msg string) (map[string]string, *Error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(msg), &m); err != nil || m == nil {
		return nil, ErrInvalidParameter("Message Structure - JSON message body failed to parse")
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		str, ok := v.(string)
		if !ok {
			return nil, ErrInvalidParameter("Message Structure - JSON message body failed to parse")
		}
		out[k] = str
	}
	if _, ok := out["default"]; !ok {
		return nil, ErrInvalidParameter("Message Structure - No default entry in JSON message body")
	}
	return out, nil
}

// validateAttribute checks one message attribute.
func validateAttribute(name string, v MessageAttributeValue) *Error {
	bad := func(format string, args ...any) *Error { return NewError(CodeInvalidParameterValue, format, args...) }
	if name == "" || len(name) > 256 || name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
		return bad("The message attribute name '%s' is invalid.", name)
	}
	for i := 0; i < len(name); i++ {
		if !isNameChar(name[i]) && name[i] != '.' {
			return bad("The message attribute name '%s' is invalid.", name)
		}
	}
	lower := strings.ToLower(name)
	if strings.HasPrefix(lower, "aws.") || strings.HasPrefix(lower, "amazon.") {
		return bad("The message attribute name '%s' is reserved.", name)
	}
	base, _, _ := strings.Cut(v.DataType, ".")
	if v.DataType == "String.Array" || strings.HasPrefix(v.DataType, "String.Array.") {
		base = "String.Array"
	}
	switch base {
	case "String", "Number", "String.Array":
		if v.StringValue == "" {
			return bad("The message attribute '%s' must contain non-empty message attribute value for message attribute type '%s'.", name, base)
		}
		if !utf8.ValidString(v.StringValue) {
			return bad("The message attribute '%s' contains invalid characters.", name)
		}
	case "Binary":
		if len(v.BinaryValue) == 0 {
			return bad("The message attribute '%s' must contain non-empty message attribute value for message attribute type 'Binary'.", name)
		}
	default:
		return bad("The message attribute '%s' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.", name)
	}
	switch base {
	case "Number":
		if _, err := strconv.ParseFloat(v.StringValue, 64); err != nil {
			return bad("The message attribute '%s' with type 'Number' must have a valid numeric value.", name)
		}
	case "String.Array":
		var arr []any
		if err := json.Unmarshal([]byte(v.StringValue), &arr); err != nil {
			return bad("The message attribute '%s' with type 'String.Array' must be a valid JSON array.", name)
		}
	}
	return nil
}
