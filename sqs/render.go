package sqs

import (
	"strconv"
	"time"
)

// QueueStats are the computed attributes a storage engine supplies for
// GetQueueAttributes.
type QueueStats struct {
	ApproximateNumberOfMessages           int64
	ApproximateNumberOfMessagesNotVisible int64
	ApproximateNumberOfMessagesDelayed    int64
	CreatedTimestamp                      time.Time // rendered as Unix seconds
	LastModifiedTimestamp                 time.Time // rendered as Unix seconds
	QueueArn                              string
}

// gettable lists every attribute GetQueueAttributes knows, in the order
// "All" renders them.
var gettable = []string{
	AttrApproximateNumberOfMessages,
	AttrApproximateNumberOfMessagesNotVisible,
	AttrApproximateNumberOfMessagesDelayed,
	AttrCreatedTimestamp,
	AttrLastModifiedTimestamp,
	AttrQueueArn,
	AttrDelaySeconds,
	AttrMaximumMessageSize,
	AttrMessageRetentionPeriod,
	AttrReceiveMessageWaitTimeSeconds,
	AttrVisibilityTimeout,
	AttrPolicy,
	AttrRedrivePolicy,
	AttrRedriveAllowPolicy,
	AttrFifoQueue,
	AttrContentBasedDeduplication,
	AttrDeduplicationScope,
	AttrFifoThroughputLimit,
	AttrKmsMasterKeyID,
	AttrKmsDataKeyReusePeriodSeconds,
	AttrSqsManagedSseEnabled,
}

var gettableSet = func() map[string]bool {
	m := make(map[string]bool, len(gettable))
	for _, n := range gettable {
		m[n] = true
	}
	return m
}()

// RenderAttributes answers GetQueueAttributes: it returns the requested
// attributes of q and st as strings. "All" (anywhere in names) requests
// everything; an unknown name is InvalidAttributeName; no names yields an
// empty map. Attributes that do not apply are left out: Policy,
// RedrivePolicy and RedriveAllowPolicy when unset, FIFO attributes on a
// standard queue, and the KMS attributes when no KMS key is configured.
func RenderAttributes(q QueueAttributes, st QueueStats, names []string) (map[string]string, error) {
	want := names
	for _, n := range names {
		if n == AttrAll {
			want = gettable
			break
		}
		if !gettableSet[n] {
			return nil, ErrInvalidAttributeName(n)
		}
	}
	out := make(map[string]string, len(want))
	for _, n := range want {
		if v, ok := attributeValue(q, st, n); ok {
			out[n] = v
		}
	}
	return out, nil
}

func attributeValue(q QueueAttributes, st QueueStats, name string) (string, bool) {
	itoa := strconv.Itoa
	i64 := func(n int64) string { return strconv.FormatInt(n, 10) }
	switch name {
	case AttrApproximateNumberOfMessages:
		return i64(st.ApproximateNumberOfMessages), true
	case AttrApproximateNumberOfMessagesNotVisible:
		return i64(st.ApproximateNumberOfMessagesNotVisible), true
	case AttrApproximateNumberOfMessagesDelayed:
		return i64(st.ApproximateNumberOfMessagesDelayed), true
	case AttrCreatedTimestamp:
		return i64(st.CreatedTimestamp.Unix()), true
	case AttrLastModifiedTimestamp:
		return i64(st.LastModifiedTimestamp.Unix()), true
	case AttrQueueArn:
		return st.QueueArn, true
	case AttrDelaySeconds:
		return itoa(q.DelaySeconds), true
	case AttrMaximumMessageSize:
		return itoa(q.MaximumMessageSize), true
	case AttrMessageRetentionPeriod:
		return itoa(q.MessageRetentionPeriod), true
	case AttrReceiveMessageWaitTimeSeconds:
		return itoa(q.ReceiveMessageWaitTimeSeconds), true
	case AttrVisibilityTimeout:
		return itoa(q.VisibilityTimeout), true
	case AttrPolicy:
		return q.Policy, q.Policy != ""
	case AttrRedrivePolicy:
		if q.RedrivePolicy == nil {
			return "", false
		}
		return q.RedrivePolicy.String(), true
	case AttrRedriveAllowPolicy:
		if q.RedriveAllowPolicy == nil {
			return "", false
		}
		return q.RedriveAllowPolicy.String(), true
	case AttrFifoQueue:
		return "true", q.FifoQueue
	case AttrContentBasedDeduplication:
		return strconv.FormatBool(q.ContentBasedDeduplication), q.FifoQueue
	case AttrDeduplicationScope:
		return q.DeduplicationScope, q.FifoQueue
	case AttrFifoThroughputLimit:
		return q.FifoThroughputLimit, q.FifoQueue
	case AttrKmsMasterKeyID:
		return q.KmsMasterKeyID, q.KmsMasterKeyID != ""
	case AttrKmsDataKeyReusePeriodSeconds:
		return itoa(q.KmsDataKeyReusePeriodSeconds), q.KmsMasterKeyID != ""
	case AttrSqsManagedSseEnabled:
		return strconv.FormatBool(q.SqsManagedSseEnabled), true
	}
	return "", false
}
