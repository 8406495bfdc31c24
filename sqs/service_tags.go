package sqs

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AWS's limits on queue tags.
const (
	maxTagsPerQueue = 50
	maxTagKeyLen    = 128
	maxTagValueLen  = 256
)

// validateTags checks tags to be added to a queue that has `existing` other
// tags: keys 1 to 128 characters not starting with "aws:", values up to 256,
// at most 50 in all.
func validateTags(tags map[string]string, existing int) error {
	if existing+len(tags) > maxTagsPerQueue {
		return ErrInvalidParameterValue("Too many tags added for queue. A queue can have at most %d tags.", maxTagsPerQueue)
	}
	for k, v := range tags {
		if n := utf8.RuneCountInString(k); n == 0 || n > maxTagKeyLen {
			return ErrInvalidParameterValue("Tag keys must be between 1 and %d characters in length.", maxTagKeyLen)
		}
		if strings.HasPrefix(strings.ToLower(k), "aws:") {
			return ErrInvalidParameterValue("Tag keys must not start with aws:.")
		}
		if utf8.RuneCountInString(v) > maxTagValueLen {
			return ErrInvalidParameterValue("Tag values must be at most %d characters in length.", maxTagValueLen)
		}
		if firstInvalid(k) >= 0 || firstInvalid(v) >= 0 {
			return ErrInvalidParameterValue("Tag keys and values must be valid characters.")
		}
	}
	return nil
}

// ShardsTag is the queue tag that sets a new queue's message shards at
// CreateQueue, a whole number from 1 to MaxShards, in place of
// Config.Shards: an unchanged AWS SDK can send it. It stays on the queue
// as an ordinary tag. The count is fixed at creation, so TagQueue may set
// the tag only to the count the queue has; UntagQueue may remove it (the
// count stays).
const ShardsTag = "herald:shards"

// shardsTag reads the ShardsTag of tags: the count and true, or false when
// tags have none. A value that is not a whole number from 1 to MaxShards
// is InvalidParameterValue.
func shardsTag(tags map[string]string) (int, bool, error) {
	v, ok := tags[ShardsTag]
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || strings.Trim(v, "0123456789") != "" || n < 1 || n > MaxShards {
		return 0, false, ErrInvalidParameterValue("Value %q for tag %s is invalid. Reason: the number of message shards must be a whole number from 1 to %d.", v, ShardsTag, MaxShards)
	}
	return n, true, nil
}

// TagQueue adds or replaces tags of a queue. The ShardsTag may only be set
// to the shard count the queue has.
func (s *Service) TagQueue(ctx context.Context, c Caller, in TagQueueInput) error {
	q, err := s.queueFor(ctx, c, ActTagQueue, in.QueueURL)
	if err != nil {
		return err
	}
	if len(in.Tags) == 0 {
		return ErrMissingParameter("Tags")
	}
	added := 0
	for k := range in.Tags {
		if _, ok := q.Tags[k]; !ok {
			added++
		}
	}
	if err := validateTags(in.Tags, len(q.Tags)+added-len(in.Tags)); err != nil {
		return err
	}
	n, tagged, err := shardsTag(in.Tags)
	if err != nil {
		return err
	}
	if have := max(1, q.Shards); tagged && n != have {
		return ErrInvalidParameterValue("Value %q for tag %s is invalid. Reason: a queue's number of message shards is fixed when it is created; this queue has %d.", in.Tags[ShardsTag], ShardsTag, have)
	}
	next := cloneQueue(q)
	if next.Tags == nil {
		next.Tags = make(map[string]string, len(in.Tags))
	}
	for k, v := range in.Tags {
		next.Tags[k] = v
	}
	return s.updateQueue(ctx, next)
}

// UntagQueue removes tags; unknown keys are ignored. Removing the
// ShardsTag leaves the queue's shard count as it is.
func (s *Service) UntagQueue(ctx context.Context, c Caller, in UntagQueueInput) error {
	q, err := s.queueFor(ctx, c, ActUntagQueue, in.QueueURL)
	if err != nil {
		return err
	}
	if len(in.TagKeys) == 0 {
		return ErrMissingParameter("TagKeys")
	}
	next := cloneQueue(q)
	for _, k := range in.TagKeys {
		delete(next.Tags, k)
	}
	return s.updateQueue(ctx, next)
}

// ListQueueTags returns a queue's tags (an empty map when it has none).
func (s *Service) ListQueueTags(ctx context.Context, c Caller, queueURL string) (map[string]string, error) {
	q, err := s.queueFor(ctx, c, ActListQueueTags, queueURL)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(q.Tags))
	for k, v := range q.Tags {
		out[k] = v
	}
	return out, nil
}
