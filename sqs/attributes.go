package sqs

import (
	"slices"
	"strconv"
	"strings"

	"github.com/heraldmq/herald/policy"
)

// Queue attribute names.
const (
	AttrAll                                   = "All"
	AttrDelaySeconds                          = "DelaySeconds"
	AttrMaximumMessageSize                    = "MaximumMessageSize"
	AttrMessageRetentionPeriod                = "MessageRetentionPeriod"
	AttrReceiveMessageWaitTimeSeconds         = "ReceiveMessageWaitTimeSeconds"
	AttrVisibilityTimeout                     = "VisibilityTimeout"
	AttrPolicy                                = "Policy"
	AttrRedrivePolicy                         = "RedrivePolicy"
	AttrRedriveAllowPolicy                    = "RedriveAllowPolicy"
	AttrFifoQueue                             = "FifoQueue"
	AttrContentBasedDeduplication             = "ContentBasedDeduplication"
	AttrDeduplicationScope                    = "DeduplicationScope"
	AttrFifoThroughputLimit                   = "FifoThroughputLimit"
	AttrKmsMasterKeyID                        = "KmsMasterKeyId"
	AttrKmsDataKeyReusePeriodSeconds          = "KmsDataKeyReusePeriodSeconds"
	AttrSqsManagedSseEnabled                  = "SqsManagedSseEnabled"
	AttrApproximateNumberOfMessages           = "ApproximateNumberOfMessages"
	AttrApproximateNumberOfMessagesNotVisible = "ApproximateNumberOfMessagesNotVisible"
	AttrApproximateNumberOfMessagesDelayed    = "ApproximateNumberOfMessagesDelayed"
	AttrCreatedTimestamp                      = "CreatedTimestamp"
	AttrLastModifiedTimestamp                 = "LastModifiedTimestamp"
	AttrQueueArn                              = "QueueArn"
)

// Values of DeduplicationScope and FifoThroughputLimit.
const (
	DeduplicationScopeMessageGroup     = "messageGroup"
	DeduplicationScopeQueue            = "queue"
	FifoThroughputLimitPerQueue        = "perQueue"
	FifoThroughputLimitPerMessageGroup = "perMessageGroupId"
)

// readOnlyAttributes are computed by the service; CreateQueue and
// SetQueueAttributes reject them as unknown, as AWS does.
var readOnlyAttributes = map[string]bool{
	AttrApproximateNumberOfMessages:           true,
	AttrApproximateNumberOfMessagesNotVisible: true,
	AttrApproximateNumberOfMessagesDelayed:    true,
	AttrCreatedTimestamp:                      true,
	AttrLastModifiedTimestamp:                 true,
	AttrQueueArn:                              true,
}

// QueueAttributes are a queue's settable attributes.
type QueueAttributes struct {
	DelaySeconds                  int
	MaximumMessageSize            int
	MessageRetentionPeriod        int
	ReceiveMessageWaitTimeSeconds int
	VisibilityTimeout             int

	Policy             string // any JSON document, stored verbatim; "" for none
	RedrivePolicy      *RedrivePolicy
	RedriveAllowPolicy *RedriveAllowPolicy

	FifoQueue                 bool
	ContentBasedDeduplication bool
	DeduplicationScope        string // FIFO only
	FifoThroughputLimit       string // FIFO only

	KmsMasterKeyID               string
	KmsDataKeyReusePeriodSeconds int
	SqsManagedSseEnabled         bool
}

// DefaultQueueAttributes returns the attributes of a new queue named name
// before any requested attributes apply.
func DefaultQueueAttributes(name string, lim Limits) QueueAttributes {
	q := QueueAttributes{
		DelaySeconds:                  lim.DefaultDelaySeconds,
		MaximumMessageSize:            lim.DefaultMaximumMessageSize,
		MessageRetentionPeriod:        lim.DefaultMessageRetentionPeriod,
		ReceiveMessageWaitTimeSeconds: lim.DefaultReceiveMessageWaitTimeSeconds,
		VisibilityTimeout:             lim.DefaultVisibilityTimeout,
		KmsDataKeyReusePeriodSeconds:  lim.DefaultKmsDataKeyReusePeriodSeconds,
		SqsManagedSseEnabled:          true, // AWS's default for new queues
	}
	if IsFIFOName(name) {
		q.FifoQueue = true
		q.DeduplicationScope = DeduplicationScopeQueue
		q.FifoThroughputLimit = FifoThroughputLimitPerQueue
	}
	return q
}

// NewQueueAttributes validates CreateQueue's name and attributes and returns
// the new queue's attributes. FifoQueue must be "true" exactly when the name
// ends in .fifo (InvalidParameterValue otherwise); as on AWS, a standard
// queue takes no FifoQueue attribute, not even "false" (InvalidAttributeName).
// Unknown, read-only and FIFO-only-on-standard names are
// InvalidAttributeName; bad values are InvalidAttributeValue.
func NewQueueAttributes(name string, in map[string]string, lim Limits) (QueueAttributes, error) {
	if err := ValidateQueueName(name); err != nil {
		return QueueAttributes{}, err
	}
	fifo := false
	if v, ok := in[AttrFifoQueue]; ok {
		b, okb := parseBool(v)
		if !okb {
			return QueueAttributes{}, ErrInvalidAttributeValue(AttrFifoQueue, "")
		}
		if !b && !IsFIFOName(name) {
			return QueueAttributes{}, ErrInvalidAttributeName(AttrFifoQueue)
		}
		fifo = b
	}
	if fifo != IsFIFOName(name) {
		if fifo {
			return QueueAttributes{}, ErrInvalidParameterValue("The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.")
		}
		return QueueAttributes{}, ErrInvalidParameterValue("Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length")
	}
	q := DefaultQueueAttributes(name, lim)
	if err := q.apply(in, lim, true); err != nil {
		return QueueAttributes{}, err
	}
	return q, nil
}

// Apply validates SetQueueAttributes' attributes and applies them to q. It
// changes nothing unless every attribute is valid. FifoQueue cannot be
// changed after creation: "true" on a FIFO queue changes nothing, as on
// AWS; "false" (or anything not true) is InvalidAttributeValue "Modifying
// queue type is not supported."; "true" on a standard queue is
// InvalidAttributeName.
func (q *QueueAttributes) Apply(in map[string]string, lim Limits) error {
	next := *q
	if err := next.apply(in, lim, false); err != nil {
		return err
	}
	*q = next
	return nil
}

func (q *QueueAttributes) apply(in map[string]string, lim Limits, creating bool) error {
	// Validate in a fixed order so the reported error does not depend on
	// map iteration.
	names := make([]string, 0, len(in))
	for k := range in {
		names = append(names, k)
	}
	slices.Sort(names)
	kmsSet, sseSet := false, false
	for _, name := range names {
		v := in[name]
		var err error
		switch name {
		case AttrDelaySeconds:
			q.DelaySeconds, err = parseIntAttr(name, v, 0, lim.MaxDelaySeconds)
		case AttrMaximumMessageSize:
			q.MaximumMessageSize, err = parseIntAttr(name, v, lim.MinMaximumMessageSize, lim.MaxMaximumMessageSize)
		case AttrMessageRetentionPeriod:
			q.MessageRetentionPeriod, err = parseIntAttr(name, v, lim.MinMessageRetentionPeriod, lim.MaxMessageRetentionPeriod)
		case AttrReceiveMessageWaitTimeSeconds:
			q.ReceiveMessageWaitTimeSeconds, err = parseIntAttr(name, v, 0, lim.MaxReceiveMessageWaitTimeSeconds)
		case AttrVisibilityTimeout:
			q.VisibilityTimeout, err = parseIntAttr(name, v, 0, lim.MaxVisibilityTimeout)
		case AttrPolicy:
			if _, perr := policy.Parse(v); perr != nil {
				return ErrInvalidAttributeValue(name, perr.Error())
			}
			q.Policy = v
		case AttrRedrivePolicy:
			if v == "" {
				q.RedrivePolicy = nil
				continue
			}
			p, perr := ParseRedrivePolicy(v, lim)
			if perr != nil {
				return perr
			}
			q.RedrivePolicy = &p
		case AttrRedriveAllowPolicy:
			if v == "" {
				q.RedriveAllowPolicy = nil
				continue
			}
			p, perr := ParseRedriveAllowPolicy(v, lim)
			if perr != nil {
				return perr
			}
			q.RedriveAllowPolicy = &p
		case AttrFifoQueue:
			if creating {
				break // checked against the name by NewQueueAttributes
			}
			switch b, ok := parseBool(v); {
			case !ok || !b:
				// As AWS answers it: a queue's type never changes.
				return ErrInvalidAttributeValue(name, "Modifying queue type is not supported.")
			case !q.FifoQueue:
				return ErrInvalidAttributeName(name)
			}
			// Checked against the name by NewQueueAttributes.
		case AttrContentBasedDeduplication:
			if !q.FifoQueue {
				return ErrInvalidAttributeName(name)
			}
			b, ok := parseBool(v)
			if !ok {
				return ErrInvalidAttributeValue(name, "")
			}
			q.ContentBasedDeduplication = b
		case AttrDeduplicationScope:
			if !q.FifoQueue {
				return errFIFOOnlyAttribute(name)
			}
			if v != DeduplicationScopeMessageGroup && v != DeduplicationScopeQueue {
				return ErrInvalidAttributeValue(name, "Valid values are messageGroup and queue.")
			}
			q.DeduplicationScope = v
		case AttrFifoThroughputLimit:
			if !q.FifoQueue {
				return errFIFOOnlyAttribute(name)
			}
			if v != FifoThroughputLimitPerQueue && v != FifoThroughputLimitPerMessageGroup {
				return ErrInvalidAttributeValue(name, "Valid values are perQueue and perMessageGroupId.")
			}
			q.FifoThroughputLimit = v
		case AttrKmsMasterKeyID:
			q.KmsMasterKeyID = v
			kmsSet = true
		case AttrKmsDataKeyReusePeriodSeconds:
			q.KmsDataKeyReusePeriodSeconds, err = parseIntAttr(name, v, lim.MinKmsDataKeyReusePeriodSeconds, lim.MaxKmsDataKeyReusePeriodSeconds)
		case AttrSqsManagedSseEnabled:
			b, ok := parseBool(v)
			if !ok {
				return ErrInvalidAttributeValue(name, "")
			}
			q.SqsManagedSseEnabled = b
			sseSet = true
		default:
			return ErrInvalidAttributeName(name)
		}
		if err != nil {
			return err
		}
	}
	if kmsSet && q.KmsMasterKeyID != "" {
		if sseSet && q.SqsManagedSseEnabled {
			return ErrInvalidAttributeValue(AttrSqsManagedSseEnabled, "SqsManagedSseEnabled cannot be true together with KmsMasterKeyId.")
		}
		q.SqsManagedSseEnabled = false // a KMS key replaces SSE-SQS
	}
	if q.FifoQueue && q.FifoThroughputLimit == FifoThroughputLimitPerMessageGroup &&
		q.DeduplicationScope != DeduplicationScopeMessageGroup {
		return ErrInvalidAttributeValue(AttrFifoThroughputLimit, "perMessageGroupId is allowed only when DeduplicationScope is messageGroup.")
	}
	if q.RedrivePolicy != nil {
		_, _, dlq, _ := ParseQueueARN(q.RedrivePolicy.DeadLetterTargetARN)
		if IsFIFOName(dlq) != q.FifoQueue {
			return ErrInvalidAttributeValue(AttrRedrivePolicy, "The dead-letter queue of a FIFO queue must be a FIFO queue, and of a standard queue a standard queue.")
		}
	}
	return nil
}

// errFIFOOnlyAttribute is AWS's answer to DeduplicationScope or
// FifoThroughputLimit on a standard queue. (ContentBasedDeduplication
// there is simply an unknown attribute.)
func errFIFOOnlyAttribute(name string) *Error {
	return NewError(CodeInvalidAttributeName, "You can specify the %s only when FifoQueue is set to true.", name)
}

// parseIntAttr parses a decimal integer attribute within [lo, hi].
func parseIntAttr(name, v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return 0, ErrInvalidAttributeValue(name, "Value must be an integer from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi)+".")
	}
	return n, nil
}

// parseBool accepts "true" and "false" in any case.
func parseBool(v string) (bool, bool) {
	switch {
	case strings.EqualFold(v, "true"):
		return true, true
	case strings.EqualFold(v, "false"):
		return false, true
	}
	return false, false
}
