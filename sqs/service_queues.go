package sqs

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
)

// CreateQueue creates a queue, or returns the URL of an existing one when
// every attribute the request names has the same value (AWS compares only
// the requested attributes; tags of an existing queue are left alone, and
// so is its shard count).
//
// A new queue's messages are spread over the shards its ShardsTag names,
// else over Config.Shards (newQueueShards); the count is fixed for the
// queue's life.
//
// A deleted queue's name may be used again at once. AWS asks for 60 seconds
// (QueueDeletedRecently) because its deletion is lazy; Herald's new queue
// gets a fresh ID, so nothing of the old queue (messages, Index state,
// receipt handles) can leak into it, and tests that recreate queues need
// not wait. Limits.DeleteRecreateIntervalSeconds is therefore not enforced.
func (s *Service) CreateQueue(ctx context.Context, c Caller, in CreateQueueInput) (string, error) {
	if in.QueueName == "" {
		return "", ErrMissingParameter("QueueName")
	}
	if err := s.authorizeAccount(c, ActCreateQueue); err != nil {
		return "", err
	}
	attrs, err := NewQueueAttributes(in.QueueName, in.Attributes, s.lim)
	if err != nil {
		return "", err
	}
	if err := validateTags(in.Tags, 0); err != nil {
		return "", err
	}
	shards, tagged, err := shardsTag(in.Tags)
	if err != nil {
		return "", err
	}
	if !tagged {
		shards = s.newQueueShards()
	}
	region := s.region(c.Region)
	arn := QueueARN(s.regionName(region), c.Account, in.QueueName)
	if err := s.checkRedriveTarget(ctx, arn, attrs.RedrivePolicy); err != nil {
		return "", err
	}
	now := s.now()
	q := &Queue{
		ID:         uuid.New(),
		Account:    c.Account,
		Region:     region,
		Name:       in.QueueName,
		Attributes: attrs,
		Tags:       copyTags(in.Tags),
		Shards:     shards,
		CreatedAt:  now,
		ModifiedAt: now,
		Home:       s.cfg.DC.Local,
	}
	url := QueueURL(c.Scheme, c.Host, c.Account, in.QueueName)
	existing, err := s.store.CreateQueue(ctx, q)
	if err == nil {
		s.queues.put(q)
		s.track(q)
		// A new queue has no messages: spare its first receive the scan
		// of an empty rebuild.
		_ = s.index.MarkBuilt(ctx, s.indexQueue(ctx, q))
		return url, nil
	}
	if herald.ErrorCode(err) != herald.EConflict || existing == nil {
		return "", AsError(err)
	}
	if diff := differingAttributes(existing.Attributes, attrs, in.Attributes); len(diff) > 0 {
		// AWS names one differing attribute; report the first by name.
		return "", ErrQueueNameExists(diff[0])
	}
	s.queues.put(existing)
	return url, nil
}

// newQueueShards is the shard count of a new queue that names none with
// the ShardsTag: Config.Shards, else the Store's default, within
// 1..MaxShards.
func (s *Service) newQueueShards() int {
	shards := s.cfg.Shards
	if shards <= 0 {
		shards = s.store.DefaultShards()
	}
	return max(1, min(shards, MaxShards))
}

// differingAttributes lists the requested attribute names whose value in
// the existing queue differs from the requested one, compared as
// GetQueueAttributes would render them.
func differingAttributes(existing, requested QueueAttributes, in map[string]string) []string {
	var diff []string
	for name := range in {
		a, aok := attributeValue(existing, QueueStats{}, name)
		b, bok := attributeValue(requested, QueueStats{}, name)
		if a != b || aok != bok {
			diff = append(diff, name)
		}
	}
	slices.Sort(diff)
	return diff
}

// checkRedriveTarget checks that a RedrivePolicy names an existing queue
// that accepts sourceARN as a source (its RedriveAllowPolicy).
func (s *Service) checkRedriveTarget(ctx context.Context, sourceARN string, p *RedrivePolicy) error {
	if p == nil {
		return nil
	}
	srcRegion, srcAccount, _, _ := ParseQueueARN(sourceARN)
	region, account, _, _ := ParseQueueARN(p.DeadLetterTargetARN)
	if account != srcAccount {
		// A dead-letter queue belongs to its source's account, as on AWS
		// (and so no queue can push messages into another account's).
		return ErrInvalidParameterValue("Value %s for parameter RedrivePolicy is invalid. Reason: Dead-letter target owner should be same as the source.", p)
	}
	if region != srcRegion {
		// And to its region.
		return ErrInvalidParameterValue("Value %s for parameter RedrivePolicy is invalid. Reason: Dead-letter target region should be same as the source.", p)
	}
	dlq, err := s.queueByARN(ctx, p.DeadLetterTargetARN)
	if err != nil {
		var se *Error
		if errors.As(err, &se) && se.Code == CodeQueueDoesNotExist {
			return ErrInvalidParameterValue("Value %s for parameter RedrivePolicy is invalid. Reason: Dead letter target does not exist.", p)
		}
		return err
	}
	if ap := dlq.Attributes.RedriveAllowPolicy; ap != nil {
		allowed := ap.RedrivePermission == RedriveAllowAll ||
			ap.RedrivePermission == RedriveByQueue && slices.Contains(ap.SourceQueueARNs, sourceARN)
		if !allowed {
			return ErrInvalidParameterValue("Value %s for parameter RedrivePolicy is invalid. Reason: Queue %s does not allow %s as a dead-letter source.", p, p.DeadLetterTargetARN, sourceARN)
		}
	}
	return nil
}

// GetQueueURL returns the URL of a queue of the caller's account or of
// QueueOwnerAWSAccountId.
func (s *Service) GetQueueURL(ctx context.Context, c Caller, in GetQueueURLInput) (string, error) {
	if in.QueueName == "" {
		return "", ErrMissingParameter("QueueName")
	}
	account := c.Account
	if in.QueueOwnerAWSAccountID != "" {
		account = in.QueueOwnerAWSAccountID
	}
	if !validAccount(account) || ValidateQueueName(in.QueueName) != nil {
		return "", ErrQueueDoesNotExist()
	}
	q, err := s.queueOf(ctx, c, ActGetQueueURL, account, s.region(c.Region), in.QueueName)
	if err != nil {
		return "", err
	}
	return QueueURL(c.Scheme, c.Host, q.Account, q.Name), nil
}

// maxListResults is the most queues one ListQueues or
// ListDeadLetterSourceQueues page holds.
const maxListResults = 1000

// pageSize validates MaxResults (1 to hi) and returns the page size and
// whether the caller asked for paging.
func pageSize(maxResults *int, hi int) (int, bool, error) {
	if maxResults == nil {
		return hi, false, nil
	}
	if *maxResults < 1 || *maxResults > hi {
		return 0, false, ErrInvalidParameterValue("Value %d for parameter MaxResults is invalid. Reason: MaxResults must be an integer between 1 and %d.", *maxResults, hi)
	}
	return *maxResults, true, nil
}

// encodeNextToken and decodeNextToken make the opaque paging token: the
// last queue name returned.
func encodeNextToken(lastName string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(lastName))
}

func decodeNextToken(token string) (string, error) {
	if token == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || ValidateQueueName(string(b)) != nil {
		return "", ErrInvalidParameterValue("Invalid NextToken value.")
	}
	return string(b), nil
}

// ListQueues lists the caller's queues by name prefix. As on AWS, NextToken
// is returned only when MaxResults was given and more queues follow.
func (s *Service) ListQueues(ctx context.Context, c Caller, in ListQueuesInput) (ListQueuesOutput, error) {
	limit, paged, err := pageSize(in.MaxResults, maxListResults)
	if err != nil {
		return ListQueuesOutput{}, err
	}
	after, err := decodeNextToken(in.NextToken)
	if err != nil {
		return ListQueuesOutput{}, err
	}
	if err := s.authorizeAccount(c, ActListQueues); err != nil {
		return ListQueuesOutput{}, err
	}
	qs, err := s.store.ListQueues(ctx, c.Account, s.region(c.Region), in.QueueNamePrefix, after, limit+1)
	if err != nil {
		return ListQueuesOutput{}, AsError(err)
	}
	var out ListQueuesOutput
	more := len(qs) > limit
	if more {
		qs = qs[:limit]
	}
	for _, q := range qs {
		out.QueueURLs = append(out.QueueURLs, QueueURL(c.Scheme, c.Host, q.Account, q.Name))
	}
	if more && paged {
		out.NextToken = encodeNextToken(qs[len(qs)-1].Name)
	}
	return out, nil
}

// DeleteQueue removes the queue record and forgets its Index state; the
// Store reclaims its messages later.
func (s *Service) DeleteQueue(ctx context.Context, c Caller, queueURL string) error {
	q, err := s.queueFor(ctx, c, ActDeleteQueue, queueURL)
	if err != nil {
		return err
	}
	s.queues.invalidate(q.Account, q.Region, q.Name)
	if err := s.store.DeleteQueue(ctx, q); err != nil {
		if herald.ErrorCode(err) == herald.ENotFound {
			return ErrQueueDoesNotExist()
		}
		return AsError(err)
	}
	// The queue ID is never reused, so a failed Drop only leaves state
	// nothing will read again.
	_ = s.index.Drop(ctx, s.indexQueue(ctx, q))
	s.untrack(q.ID)
	return nil
}

// needsCounts reports whether GetQueueAttributes must ask the Index.
func needsCounts(names []string) bool {
	for _, n := range names {
		switch n {
		case AttrAll, AttrApproximateNumberOfMessages, AttrApproximateNumberOfMessagesNotVisible, AttrApproximateNumberOfMessagesDelayed:
			return true
		}
	}
	return false
}

// GetQueueAttributes renders the requested attributes; the
// ApproximateNumberOf* counters come from the Index (or, while it is
// unavailable, from a bounded scan of the Store).
func (s *Service) GetQueueAttributes(ctx context.Context, c Caller, in GetQueueAttributesInput) (map[string]string, error) {
	q, err := s.queueFor(ctx, c, ActGetQueueAttributes, in.QueueURL)
	if err != nil {
		return nil, err
	}
	st := QueueStats{CreatedTimestamp: q.CreatedAt, LastModifiedTimestamp: q.ModifiedAt, QueueArn: s.queueARN(q)}
	// Validate the names before paying for the counts.
	if _, err := RenderAttributes(q.Attributes, st, in.AttributeNames); err != nil {
		return nil, err
	}
	if needsCounts(in.AttributeNames) {
		n, err := s.counts(ctx, q)
		if err != nil {
			return nil, err
		}
		st.ApproximateNumberOfMessages = n.Visible
		st.ApproximateNumberOfMessagesNotVisible = n.InFlight
		st.ApproximateNumberOfMessagesDelayed = n.Delayed
	}
	return RenderAttributes(q.Attributes, st, in.AttributeNames)
}

// SetQueueAttributes validates and applies attributes atomically.
func (s *Service) SetQueueAttributes(ctx context.Context, c Caller, in SetQueueAttributesInput) error {
	q, err := s.queueFor(ctx, c, ActSetQueueAttributes, in.QueueURL)
	if err != nil {
		return err
	}
	next := cloneQueue(q)
	if err := next.Attributes.Apply(in.Attributes, s.lim); err != nil {
		return err
	}
	if _, ok := in.Attributes[AttrRedrivePolicy]; ok {
		if err := s.checkRedriveTarget(ctx, s.queueARN(q), next.Attributes.RedrivePolicy); err != nil {
			return err
		}
	}
	return s.updateQueue(ctx, next)
}

// PurgeQueue deletes every message sent before now, at most once per
// PurgeIntervalSeconds.
func (s *Service) PurgeQueue(ctx context.Context, c Caller, queueURL string) error {
	q, err := s.queueFor(ctx, c, ActPurgeQueue, queueURL)
	if err != nil {
		return err
	}
	// Read the record afresh: a purge on another node within the cache TTL
	// must be seen.
	fresh, err := s.store.GetQueue(ctx, q.Account, q.Region, q.Name)
	if err != nil {
		if herald.ErrorCode(err) == herald.ENotFound {
			return ErrQueueDoesNotExist()
		}
		return AsError(err)
	}
	now := s.now()
	if !fresh.PurgedAt.IsZero() && now.Sub(fresh.PurgedAt) < seconds(s.lim.PurgeIntervalSeconds) {
		return ErrPurgeQueueInProgress(q.Name)
	}
	next := cloneQueue(fresh)
	next.PurgedAt = now
	if err := s.updateQueue(ctx, next); err != nil {
		return err
	}
	if err := s.store.PurgeMessages(ctx, next, now); err != nil {
		return AsError(err)
	}
	// Drop the Index state; the next receive rebuilds it from what the
	// Store still holds. If the Index is down, have Run drop it later.
	if err := s.index.Drop(ctx, s.indexQueue(ctx, next)); err != nil {
		if merr := s.indexWriteFailed(ctx, next); merr != nil {
			return AsError(merr)
		}
	}
	return nil
}

// copyTags copies a tag map (nil stays nil).
func copyTags(tags map[string]string) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	out := make(map[string]string, len(tags))
	for k, v := range tags {
		out[k] = v
	}
	return out
}
